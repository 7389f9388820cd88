import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from '../../functions/shared/zod.js';
import { reviewInstance, type ReviewDeps } from '../../functions/process-manager/instances/review.js';
import { ReviewRequestSchema, reviewDecision, reviewRequest } from '../../functions/process-manager/instances/review-schemas.js';
import { instanceRead } from '../../functions/process-manager/instances/instances.js';
import type { InstanceReview, ProcessInstanceRecord } from '../../functions/process-manager/model.js';
import type { EventEnvelope } from '../../functions/shared/events.js';

/**
 * A reviewer's decision with its storage faked: what it writes over what it read, and how it
 * resumes the back-office step (completeUserStep on a mocked table, a fake Step Functions).
 */
const ddb = mockClient(DynamoDBDocumentClient);
const tableName = process.env.TABLE_NAME;
beforeAll(() => {
  process.env.TABLE_NAME = 'unit';
});
afterAll(() => {
  ddb.restore();
  if (tableName === undefined) delete process.env.TABLE_NAME;
  else process.env.TABLE_NAME = tableName;
});
beforeEach(() => {
  ddb.reset();
  ddb.on(TransactWriteCommand).resolves({});
  ddb.on(GetCommand).resolves({});
});

const now = new Date('2026-06-01T12:00:00.000Z');
const STEP = { activityId: 'wait', activityType: 'REVIEW_FROM_BACK_OFFICE', inputs: {}, state: { instance: { tenantId: 'acme', processInstanceId: 'pi' }, vars: {} }, taskToken: 'tok-1', since: now.toISOString() };

const instance = (overrides: Partial<ProcessInstanceRecord> = {}): ProcessInstanceRecord =>
  ({
    tenantId: 'acme',
    id: 'pi',
    processDefnId: 'def',
    processDefnName: 'review-tail',
    processDefnVersion: 1,
    processTokenId: 'tok',
    status: 'REVIEW',
    createdAt: now.toISOString(),
    lastUpdatedAt: now.toISOString(),
    retentionDays: 1,
    expiringDtm: now.toISOString(),
    expiresAt: 99,
    parameters: {},
    ...overrides,
  }) as ProcessInstanceRecord;

function harness(stored: ProcessInstanceRecord | undefined, written = true) {
  const decisions: { record: ProcessInstanceRecord; change: { from: string; to: string; review: InstanceReview }; events: readonly EventEnvelope[] }[] = [];
  const sent: { token: string; output: Record<string, unknown> }[] = [];
  const deps: ReviewDeps = {
    instances: { getLive: async () => stored },
    reviews: {
      decideReview: async (record, change, _now, events) => {
        decisions.push({ record, change, events });
        return written;
      },
    },
    resumer: async () => ({
      sendTaskSuccess: async (token, output) => void sent.push({ token, output: output as Record<string, unknown> }),
      sendTaskFailure: async () => undefined,
    }),
  };
  return { deps, decisions, sent };
}

const decide = (deps: ReviewDeps, decision: 'APPROVE' | 'REJECT' | 'REVIEW', comment = 'Checked by hand.', actor = 'apikey:k1') =>
  reviewInstance(deps, { tenantId: 'acme', processInstanceId: 'pi', decision, comment, actor }, now);

describe('the review request', () => {
  it("reads the family's spellings of a decision, in any case, as the canonical one", () => {
    for (const [sent, read] of [['APPROVE', 'APPROVE'], ['Approve', 'APPROVE'], ['approved', 'APPROVE'], [' APPROVED ', 'APPROVE'], ['Reject', 'REJECT'], ['REJECTED', 'REJECT'], ['review', 'REVIEW'], ['Review', 'REVIEW']]) {
      expect(reviewDecision(sent!), sent).toBe(read);
    }
    for (const sent of ['', 'yes', 'ACCEPT', 'PASS', 'constructor', 'toString']) expect(reviewDecision(sent), sent).toBeUndefined();
  });

  it('takes a comment of 1 to 2000 characters once trimmed, and keeps it trimmed', () => {
    expect(reviewRequest(z.parse(ReviewRequestSchema, { status: 'Approved', comment: '  fine  ' }))).toEqual({ decision: 'APPROVE', comment: 'fine' });
    expect(reviewRequest(z.parse(ReviewRequestSchema, { status: 'REJECT', comment: ` ${'é'.repeat(2000)} ` })).comment).toHaveLength(2000);
    for (const body of [{ status: 'APPROVE' }, { status: 'APPROVE', comment: '' }, { status: 'APPROVE', comment: ' \n\t ' }, { status: 'APPROVE', comment: 'x'.repeat(2001) }, { status: 'MAYBE', comment: 'x' }, { comment: 'x' }]) {
      expect(z.safeParse(ReviewRequestSchema, body).success, JSON.stringify(body).slice(0, 60)).toBe(false);
    }
  });
});

describe('reviewInstance', () => {
  it('approves an instance waiting for the back office in REVIEW: the status at once, then its step resumed with PASS', async () => {
    const { deps, decisions, sent } = harness(instance({ review: { status: 'PENDING', id: 'r0', requiredAt: now.toISOString() }, currentStep: STEP }));
    const after = await decide(deps, 'APPROVE');
    expect(decisions).toHaveLength(1);
    const { change, events } = decisions[0]!;
    expect(change).toMatchObject({ from: 'REVIEW', to: 'COMPLETED_ENDED_SUCCESS' });
    expect(change.review).toEqual({ status: 'APPROVE', id: expect.any(String), requiredAt: now.toISOString(), comment: 'Checked by hand.', reviewedBy: 'apikey:k1', reviewedAt: now.toISOString() });
    expect(change.review.id).not.toBe('r0');
    expect(events.map((e) => [e.type, e.data.status])).toEqual([
      ['process-instance.reviewed', 'COMPLETED_ENDED_SUCCESS'],
      ['process-instance.status-changed', 'COMPLETED_ENDED_SUCCESS'],
      ['process-instance.completed', 'COMPLETED_ENDED_SUCCESS'],
    ]);
    expect(events[0]!.data).toMatchObject({ decision: 'APPROVE', previousStatus: 'REVIEW', reviewedBy: 'apikey:k1' });
    expect(JSON.stringify(events)).not.toContain('Checked by hand');
    expect(sent).toEqual([{ token: 'tok-1', output: { instance: { tenantId: 'acme', processInstanceId: 'pi' }, vars: {}, _decision: 'PASS' } }]);
    expect(after).toMatchObject({ status: 'COMPLETED_ENDED_SUCCESS', review: { status: 'APPROVE' } });
    expect(instanceRead(after, now).review).toEqual({ status: 'APPROVE', comment: 'Checked by hand.', reviewedBy: 'apikey:k1', reviewedAt: now.toISOString() });
  });

  it('rejects with FAIL, and keeps an instance in review with REVIEW (no status change, the comment recorded)', async () => {
    const rejected = harness(instance({ currentStep: STEP }));
    await decide(rejected.deps, 'REJECT');
    expect(rejected.decisions[0]!.change).toMatchObject({ from: 'REVIEW', to: 'COMPLETED_ENDED_ERROR' });
    expect(rejected.sent[0]!.output._decision).toBe('FAIL');

    const kept = harness(instance({ currentStep: STEP }));
    await decide(kept.deps, 'REVIEW', 'Ask for a second document.');
    expect(kept.decisions[0]!.change).toMatchObject({ from: 'REVIEW', to: 'REVIEW', review: { status: 'REVIEW', comment: 'Ask for a second document.' } });
    expect(kept.decisions[0]!.events.map((e) => e.type)).toEqual(['process-instance.reviewed']);
    expect(kept.sent[0]!.output._decision).toBe('REVIEW');
  });

  it('decides a journey that ended in REVIEW, resuming nothing; and one still ACTIVE at its back-office step', async () => {
    const ended = harness(instance());
    expect(await decide(ended.deps, 'APPROVE')).toMatchObject({ status: 'COMPLETED_ENDED_SUCCESS' });
    expect(ended.sent).toEqual([]);

    const active = harness(instance({ status: 'ACTIVE', currentStep: STEP }));
    await decide(active.deps, 'REJECT');
    expect(active.decisions[0]!.change).toMatchObject({ from: 'ACTIVE', to: 'COMPLETED_ENDED_ERROR' });
    expect(active.sent).toHaveLength(1);
  });

  it('refuses what is not in review (409), and an instance it cannot find (404), writing nothing', async () => {
    for (const stored of [
      instance({ status: 'ACTIVE' }),
      instance({ status: 'PENDING' }),
      instance({ status: 'ACTIVE', currentStep: { ...STEP, activityType: 'DATA_FORM' } }),
      instance({ status: 'COMPLETED_ENDED_SUCCESS', review: { status: 'APPROVE', id: 'r1', comment: 'ok', reviewedBy: 'apikey:k1', reviewedAt: now.toISOString() } }),
      instance({ status: 'COMPLETED_ENDED_ERROR' }),
      instance({ status: 'COMPLETED_PROCESS_ERROR', currentStep: STEP }),
    ]) {
      const { deps, decisions, sent } = harness(stored);
      await expect(decide(deps, 'APPROVE'), stored.status).rejects.toMatchObject({ code: 'PROCESS_INSTANCE_NOT_IN_REVIEW' });
      expect([...decisions, ...sent]).toEqual([]);
    }
    const { deps } = harness(undefined);
    await expect(decide(deps, 'APPROVE')).rejects.toMatchObject({ code: 'PROCESS_INSTANCE_NOT_FOUND' });
  });

  it('loses to a decision written first (409 CONCURRENT_UPDATE), resuming nothing', async () => {
    const { deps, sent } = harness(instance({ currentStep: STEP }), false);
    await expect(decide(deps, 'APPROVE')).rejects.toMatchObject({ code: 'CONCURRENT_UPDATE' });
    expect(sent).toEqual([]);
  });

  it('resumes the step again, deciding nothing twice, when the same caller sends the same decision while the step still waits', async () => {
    const decided: InstanceReview = { status: 'APPROVE', id: 'r1', comment: 'Checked by hand.', reviewedBy: 'apikey:k1', reviewedAt: now.toISOString() };
    const again = harness(instance({ status: 'COMPLETED_ENDED_SUCCESS', review: decided, currentStep: STEP }));
    await decide(again.deps, 'APPROVE');
    expect(again.decisions).toEqual([]);
    expect(again.sent[0]!.output._decision).toBe('PASS');
    // Another caller, or another comment, is a second decision on an instance no longer in review.
    for (const [comment, actor] of [['Checked by hand.', 'apikey:k2'], ['Other words.', 'apikey:k1']]) {
      const other = harness(instance({ status: 'COMPLETED_ENDED_SUCCESS', review: decided, currentStep: STEP }));
      await expect(decide(other.deps, 'APPROVE', comment, actor)).rejects.toMatchObject({ code: 'PROCESS_INSTANCE_NOT_IN_REVIEW' });
    }
  });
});

describe('the instance read', () => {
  it('carries review only once a reviewer decided', () => {
    expect(instanceRead(instance(), now)).not.toHaveProperty('review');
    expect(instanceRead(instance({ review: { status: 'PENDING', id: 'r0', requiredAt: now.toISOString() } }), now)).not.toHaveProperty('review');
  });
});
