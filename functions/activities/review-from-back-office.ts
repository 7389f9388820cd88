import { renderReview } from '../journey/screens/review.js';
import type { Screens } from './contract.js';
import { spec } from './specs/review-from-back-office.js';

/**
 * The back office's wait: a user step (the journey waits with a task token, as at any user step)
 * whose only page is the review page. It has no `submission`: no journey page route takes it, and
 * only a reviewer's decision resumes it (process-manager/instances/review.ts, through
 * completeUserStep, the one way a waiting step is resumed). Its AWS access is every user step's.
 */
export const screens: Screens<typeof spec> = {
  component: 'review',
  // The end user's last page: the relying party's chrome, no step's progress (their part is over).
  render: { review: (view) => renderReview({ lang: view.lang, redirectUrl: view.record.parameters._redirectUrl, chrome: { ...view.chrome, progress: undefined } }) },
  // Nothing to do on this page: a redirect recorded before it (the family's Redirect User V2) is followed.
  waits: true,
};
