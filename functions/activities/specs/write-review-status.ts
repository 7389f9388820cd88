import type { ActivitySpec } from '../spec.js';

export const spec = {
  type: 'WRITE_REVIEW_STATUS',
  displayName: 'Process Instance Review Status Report',
  kind: 'service',
  description:
    "Records the review on the instance: its status becomes REVIEW, written with its status-changed and completed events (so the relying " +
    "party's webhooks hear that a review is pending, and the instance is found by status REVIEW), and its review PENDING if no step " +
    'required one yet. REVIEW is the status while the back office decides; a decision moves it on.',
  inputs: [],
  rules: [],
  outputs: [],
  errorEvents: [],
  family: { palette: 'RSR01', beans: ['writeReviewStatus'] },
} as const satisfies ActivitySpec;
