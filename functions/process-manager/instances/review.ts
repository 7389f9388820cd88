/**
 * A reviewer's decision on an instance in review (the family's back office): APPROVE, REJECT or
 * REVIEW, with a comment. The decision is the journey's: it is written at once as the instance's
 * status (APPROVE COMPLETED_ENDED_SUCCESS, REJECT COMPLETED_ENDED_ERROR, REVIEW stays REVIEW),
 * with the review and its events, in one conditional write; then, if the journey waits at its
 * Waiting for B/O review step, that step is completed with `_decision` PASS, FAIL or REVIEW
 * (completeUserStep, the one way a waiting step is resumed) and the journey goes on. Its end
 * then records nothing over the decided status.
 */
import { randomUUID } from 'node:crypto';
import { ConcurrentUpdateError, apiError } from '../../errors.js';
import { instanceEvents } from '../../events/catalogue.js';
import { completeUserStep, StepNotWaitingError, type TaskFailer, type TaskResumer } from '../../journey/steps.js';
import type { InstanceReview, InstanceStatus, ProcessInstanceRecord, ProcessInstanceStore, ReviewDecision, ReviewStore } from '../model.js';
import { ProcessInstanceNotFoundError } from './instances.js';
import { isFinal } from './status.js';

export class ProcessInstanceNotInReviewError extends apiError('PROCESS_INSTANCE_NOT_IN_REVIEW') {}

/** The user step a reviewer's decision completes (functions/activities/specs/review-from-back-office.ts). */
export const BACK_OFFICE_STEP = 'REVIEW_FROM_BACK_OFFICE';

/** What a decision makes of the journey: its decision (`_decision`) and the instance's status. */
export const DECISION_OUTCOMES: Readonly<Record<ReviewDecision, { decision: 'PASS' | 'FAIL' | 'REVIEW'; status: InstanceStatus }>> = {
  APPROVE: { decision: 'PASS', status: 'COMPLETED_ENDED_SUCCESS' },
  REJECT: { decision: 'FAIL', status: 'COMPLETED_ENDED_ERROR' },
  REVIEW: { decision: 'REVIEW', status: 'REVIEW' },
};

export interface ReviewDeps {
  instances: Pick<ProcessInstanceStore, 'getLive'>;
  reviews: Pick<ReviewStore, 'decideReview'>;
  /** Step Functions (the local engine locally), asked only when a step is to be resumed. */
  resumer: () => Promise<TaskResumer & TaskFailer>;
}

export interface ReviewInput {
  tenantId: string;
  processInstanceId: string;
  decision: ReviewDecision;
  /** Trimmed, 1 to REVIEW_COMMENT_MAX characters (the route's schema, review-schemas.ts). */
  comment: string;
  /** Who decides, as audit fields name it (`apikey:{id}`). */
  actor: string;
}

type WaitingStep = NonNullable<ProcessInstanceRecord['currentStep']>;

/** The back-office step the journey waits at (or waited at, when its timer took the journey on), if any. */
function backOfficeStep(record: ProcessInstanceRecord): WaitingStep | undefined {
  const step = record.currentStep;
  return step?.activityType === BACK_OFFICE_STEP ? step : undefined;
}

/**
 * Decides an instance's review. In review: the status is REVIEW (the journey ended there, or its
 * Process Instance Review Status Report wrote it and it waits for the back office), or the
 * journey waits at a Waiting for B/O review step. Anything else is 409
 * PROCESS_INSTANCE_NOT_IN_REVIEW (running elsewhere, not started, decided APPROVE or REJECT
 * already), and 404 for an instance not in the tenant or past its retention; nothing changes.
 *
 * Two decisions at once: one is written (the write holds only over the status and the review's
 * review it read), the other gets 409 CONCURRENT_UPDATE. The same decision sent again by the same
 * caller while its step still waits (its first answer was lost, or the hand-over to Step
 * Functions was refused for now: 503) resumes the step and decides nothing twice.
 *
 * Returns the instance as it is after the decision.
 */
export async function reviewInstance(d: ReviewDeps, input: ReviewInput, now: Date): Promise<ProcessInstanceRecord> {
  const record = await d.instances.getLive(input.tenantId, input.processInstanceId, now);
  if (!record) throw new ProcessInstanceNotFoundError(input.processInstanceId);
  const step = backOfficeStep(record);
  const review = record.review;
  if (step && review && review.status === input.decision && review.comment === input.comment && review.reviewedBy === input.actor) {
    await resume(d, record, step, input, now);
    return record;
  }
  if (record.status !== 'REVIEW' && !(step && !isFinal(record.status))) {
    throw new ProcessInstanceNotInReviewError(`The process instance ${record.id} is ${record.status} and not waiting for a review.`);
  }
  const from = record.status;
  const to = DECISION_OUTCOMES[input.decision].status;
  const reviewedAt = now.toISOString();
  const decided: InstanceReview = {
    status: input.decision,
    id: randomUUID(),
    ...(review?.requiredAt ? { requiredAt: review.requiredAt } : {}),
    comment: input.comment,
    reviewedBy: input.actor,
    reviewedAt,
  };
  const events = [
    instanceEvents.reviewed(record, { decision: input.decision, status: to, previousStatus: from, reviewedBy: input.actor, reviewedAt }, now),
    // A decision is final (REVIEW too: it stays what it is), so a change is also the instance's completed event.
    ...(from !== to ? instanceEvents.statusChanged(record, from, to, now, true) : []),
  ];
  if (!(await d.reviews.decideReview(record, { from, to, review: decided }, now, events))) {
    throw new ConcurrentUpdateError(`The process instance ${record.id} changed meanwhile (another decision, or its journey moved on); read it again.`);
  }
  const after: ProcessInstanceRecord = { ...record, status: to, review: decided, ...(from !== to ? { lastUpdatedAt: reviewedAt } : {}) };
  if (step) await resume(d, after, step, input, now);
  return after;
}

/**
 * The journey goes on from its back-office step with the decision (`_decision`); what the
 * reviewer decided is kept as the step's user data. A step that no longer waits (resumed by the
 * same decision sent at the same time, or its timer took the journey on) is left as it is.
 */
async function resume(d: ReviewDeps, record: ProcessInstanceRecord, step: WaitingStep, input: ReviewInput, now: Date): Promise<void> {
  try {
    await completeUserStep(
      {
        tenantId: record.tenantId,
        processInstanceId: record.id,
        activityId: step.activityId,
        result: { _decision: DECISION_OUTCOMES[input.decision].decision },
        values: { decision: input.decision, comment: input.comment, reviewedBy: input.actor },
        record,
        afterFinalStatus: true,
      },
      await d.resumer(),
      now,
    );
  } catch (err) {
    if (!(err instanceof StepNotWaitingError)) throw err;
  }
}
