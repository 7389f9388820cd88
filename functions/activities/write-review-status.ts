import { settle } from '../process-manager/instances/status.js';
import type { ActivityAccess, ServiceRun } from './contract.js';
import { pendingReview } from './review-required.js';
import { spec } from './specs/write-review-status.js';

/**
 * The instance read (its waiting step's item, then itself), its review marked PENDING when no
 * step did, and the status change: the instance and its views updated, its events put (the outbox).
 */
export const aws = { table: ['GetItem', 'PutItem', 'UpdateItem'] } as const satisfies ActivityAccess;

/**
 * The instance's status becomes REVIEW, as any final status is written (conditionally on the
 * status read, with its status-changed and completed events, off the reconciler's index): the
 * relying party's webhooks hear that a review is pending, and the back office finds the instance
 * by status REVIEW. The journey goes on (usually to Waiting for B/O review); its end records
 * nothing over REVIEW, and a reviewer's decision moves it on. Safe to repeat: a status that is
 * REVIEW already (or any final one) is left as it is.
 */
export const run: ServiceRun<typeof spec> = async ({ session, tenantId, now, deps: { reviews } }) => {
  const id = session.instance.processInstanceId;
  const record = await reviews.get(tenantId, id);
  // Gone (past its retention): there is nothing to record on.
  if (!record) return session;
  // Without a Review Required before it, this step asks for the review.
  if (!record.review) await reviews.requireReview(tenantId, id, pendingReview(now));
  await settle({ instances: reviews }, record, 'REVIEW', now);
  return { ...session, _decision: 'REVIEW' };
};
