import { randomUUID } from 'node:crypto';
import type { InstanceReview } from '../process-manager/model.js';
import type { ActivityAccess, ServiceRun } from './contract.js';
import { spec } from './specs/review-required.js';

/** A review the journey requires now (a new one: its id is what a decision is written over). */
export const pendingReview = (now: Date): InstanceReview => ({ status: 'PENDING', id: randomUUID(), requiredAt: now.toISOString() });

/** The instance's review marked PENDING: one conditional UpdateItem. */
export const aws = { table: ['UpdateItem'] } as const satisfies ActivityAccess;

/**
 * The end user's part is over: the instance's review is PENDING (what the journey page reads to
 * show the review page from now on, even while the journey still runs), and the journey's
 * decision is REVIEW until a reviewer's replaces it. Safe to repeat: a retried run finds the
 * review pending and writes nothing.
 */
export const run: ServiceRun<typeof spec> = async ({ session, tenantId, now, deps: { reviews } }) => {
  await reviews.requireReview(tenantId, session.instance.processInstanceId, pendingReview(now));
  return { ...session, _decision: 'REVIEW' };
};
