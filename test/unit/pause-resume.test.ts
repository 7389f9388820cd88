/**
 * Pause and resume against Amazon's DynamoDB Local: the pause's and the resume's conditional
 * writes (functions/store/instance-pauses.ts), and the resume's judgement and its once
 * (functions/journey/resume.ts), with the step's completion stubbed.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { useLocalTable } from '../support/local-table.js';
import type { InstancePauseStore, ProcessInstanceRecord, ProcessInstanceStore, ProcessTokenRecord, WaitingStep } from '../../functions/process-manager/model.js';
import { instanceEvents } from '../../functions/events/catalogue.js';
import { hashCapability } from '../../functions/process-manager/instances/instances.js';
import { hashResumeSecret, pauseInstance } from '../../functions/process-manager/instances/pause.js';
import { judgeResume, resumeJourney, taskDigest, type ResumeDeps } from '../../functions/journey/resume.js';
import { relyingPartyOf } from '../../functions/journey/refusal-chrome.js';
import { ServiceUnavailableError } from '../../functions/journey/steps.js';
import { tampered } from '../support/tamper.js';

let instances: ProcessInstanceStore;
let pauses: InstancePauseStore;
let keys: typeof import('../../functions/store/keys.js').keys;
const TENANT = 'acme';
const TABLE = 'pauses-unit';
const now = new Date('2026-03-01T00:00:00Z');
const ORIGIN = 'https://acme.fir.example.com';

const table = useLocalTable(TABLE, async () => {
  ({ processInstanceStore: instances } = await import('../../functions/store/process-instances.js'));
  ({ instancePauseStore: pauses } = await import('../../functions/store/instance-pauses.js'));
  ({ keys } = await import('../../functions/store/keys.js'));
});

let seq = 0;
async function createInstance(overrides: Partial<ProcessInstanceRecord> = {}): Promise<ProcessInstanceRecord> {
  const n = ++seq;
  const token = { tenantId: TENANT, id: `tok${n}` } as ProcessTokenRecord;
  const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
  const { dynamo } = await import('../../functions/store/client.js');
  const { doc, tableName } = await dynamo();
  await doc.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.processToken(TENANT, token.id), itemType: 'ProcessToken', status: 'ACTIVE', counter: 0, maxCount: null, validFromDtm: null, validToDtm: null },
    }),
  );
  const record: ProcessInstanceRecord = {
    tenantId: TENANT,
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    processDefnId: 'def-1',
    processDefnName: 'pause-journey',
    processDefnVersion: 1,
    processTokenId: token.id,
    status: 'ACTIVE',
    createdAt: now.toISOString(),
    lastUpdatedAt: now.toISOString(),
    retentionDays: 1,
    expiringDtm: new Date(now.getTime() + 86_400_000).toISOString(),
    expiresAt: Math.floor(now.getTime() / 1000) + 86_400,
    parameters: { firstName: 'Ann' },
    capabilityHash: hashCapability('first-link-capability'),
    stateMachineArn: 'arn:sm',
    createdBy: 'op',
    origin: ORIGIN,
    ...overrides,
  };
  expect(await instances.createWithToken(record, token, now, instanceEvents.created(record, now))).toEqual({ outcome: 'created' });
  return record;
}

async function rawItem(key: { PK: string; SK: string }) {
  const out = await table.client().send(new GetItemCommand({ TableName: TABLE, Key: { PK: { S: key.PK }, SK: { S: key.SK } }, ConsistentRead: true }));
  return out.Item && unmarshall(out.Item);
}

const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);

/** Pauses `r`; the secret handed out. */
async function paused(r: ProcessInstanceRecord, when = at(1)): Promise<string> {
  const out = await pauseInstance({ pauses }, { tenantId: TENANT, processInstanceId: r.id, activityId: 'pause' }, when);
  if (!('paused' in out)) throw new Error(JSON.stringify(out));
  return out.paused.secret;
}

/** The journey reached its Waiting for Resume step at `when`: marked on the pause, then recorded, as the activity function does. */
async function waiting(r: ProcessInstanceRecord, token: string, when = at(2), activityId = 'wait', activityType = 'WAIT_RESUME_INSTANCE'): Promise<WaitingStep> {
  const step: WaitingStep = { activityId, activityType, inputs: {}, state: {}, taskToken: token, since: when.toISOString() };
  if (activityType === 'WAIT_RESUME_INSTANCE') await pauses.markWaiting(TENANT, r.id, { activityId, since: step.since });
  expect(await instances.setWaitingStep(r, step, instanceEvents.stepChanged(r, step, when))).toBe(true);
  return step;
}

function deps(complete: ResumeDeps['complete'] = async () => {}, waitMs = 0): ResumeDeps {
  return { instances, pauses, resumeTypes: ['WAIT_RESUME_INSTANCE'], complete: vi.fn(complete), waitMs, pollMs: 10 };
}

const resume = (d: ResumeDeps, r: ProcessInstanceRecord, by: { secret: string } | { actor: string }) =>
  resumeJourney(d, { tenantId: TENANT, processInstanceId: r.id }, by, at(5));

describe('pausing', () => {
  it('sets PAUSED with the pause in one write (its event, the status view moved), keeping the secret\'s hash only', async () => {
    const r = await createInstance();
    const secret = await paused(r);
    const item = await rawItem(keys.instance(TENANT, r.id));
    expect(item).toMatchObject({ status: 'PAUSED', pause: { activityId: 'pause', secretHash: hashResumeSecret(secret), pausedAt: at(1).toISOString() } });
    expect(JSON.stringify(item)).not.toContain(secret);
    expect(await rawItem(keys.instanceView(TENANT, r.id, 'S'))).toMatchObject({ status: 'PAUSED', GSI1PK: expect.stringContaining('PAUSED') });
  });

  it('refuses an instance that is gone, has ended, or kept no origin', async () => {
    const ref = (id: string) => ({ tenantId: TENANT, processInstanceId: id, activityId: 'pause' });
    expect(await pauseInstance({ pauses }, ref('00000000-0000-4000-8000-999999999999'), now)).toEqual({ refused: 'gone' });
    expect(await pauseInstance({ pauses }, ref((await createInstance({ status: 'REVIEW' })).id), now)).toEqual({ refused: 'ended' });
    expect(await pauseInstance({ pauses }, ref((await createInstance({ origin: undefined })).id), now)).toEqual({ refused: 'noOrigin' });
  });

  it('marks the wait only on a pause not yet resumed', async () => {
    const r = await createInstance();
    expect(await pauses.markWaiting(TENANT, r.id, { activityId: 'wait', since: at(2).toISOString() })).toBe(false);
    await paused(r);
    expect(await pauses.markWaiting(TENANT, r.id, { activityId: 'wait', since: at(2).toISOString() })).toBe(true);
    expect((await rawItem(keys.instance(TENANT, r.id)))?.pause.waitingAt).toEqual({ activityId: 'wait', since: at(2).toISOString() });
  });
});

describe('resuming', () => {
  it('resumes once: the pause marked, ACTIVE again, a capability of its own, the step completed; again it is refused and changes nothing', async () => {
    const r = await createInstance();
    const secret = await paused(r);
    const step = await waiting(r, 'task-1');
    const d = deps();
    const { record, capability } = await resume(d, r, { secret });
    expect(record.status).toBe('ACTIVE');
    expect(d.complete).toHaveBeenCalledTimes(1);
    expect(vi.mocked(d.complete).mock.calls[0]!.slice(1, 4)).toEqual([expect.objectContaining({ activityId: 'wait', taskToken: 'task-1' }), 'link', capability]);
    const item = await rawItem(keys.instance(TENANT, r.id));
    expect(item).toMatchObject({
      status: 'ACTIVE',
      resumeCapabilityHash: hashCapability(capability),
      capabilityHash: hashCapability('first-link-capability'),
      pause: { resumedAt: at(5).toISOString(), resumedBy: 'link', resumedTask: taskDigest(step.taskToken) },
    });
    expect(await rawItem(keys.instanceView(TENANT, r.id, 'S'))).toMatchObject({ status: 'ACTIVE' });

    // The step completed (its item emptied, as finishStep does): the same link again is refused, nothing written.
    const { dynamo } = await import('../../functions/store/client.js');
    const { doc, tableName, commands } = await dynamo();
    await doc.send(new commands.UpdateCommand({ TableName: tableName, Key: keys.instanceStep(TENANT, r.id), UpdateExpression: 'REMOVE taskToken' }));
    await expect(resume(d, r, { secret })).rejects.toMatchObject({ code: 'RESUME_ALREADY_USED', statusCode: 410 });
    await expect(resume(d, r, { actor: 'apikey:k1' })).rejects.toMatchObject({ code: 'RESUME_ALREADY_USED' });
    expect(await rawItem(keys.instance(TENANT, r.id))).toEqual(item);
    expect(d.complete).toHaveBeenCalledTimes(1);
  });

  it('lets the device that opens the resume link go on: a device a Switch Device step gave the journey to holds it no more', async () => {
    // A phone held the journey when it paused; the resume link arrives by e-mail and is opened on a third device.
    const phone = hashCapability('phone-capability');
    const r = await createInstance({
      holder: { capabilityHash: phone, from: hashCapability('first-link-capability'), via: 'to-mobile', activityId: 'switch', step: 'visit-1', since: now.toISOString() },
    });
    const secret = await paused(r);
    await waiting(r, 'task-h');
    const { capability } = await resume(deps(), r, { secret });
    const item = await rawItem(keys.instance(TENANT, r.id));
    expect(item?.holder).toBeUndefined();
    expect(item?.resumeCapabilityHash).toBe(hashCapability(capability));
  });

  it('lets one resumer of many racing ones through (the winning link may be sent again while its step waits)', async () => {
    const r = await createInstance();
    const secret = await paused(r);
    await waiting(r, 'task-race');
    const d = deps();
    const outcomes = await Promise.allSettled([
      ...Array.from({ length: 4 }, () => resume(d, r, { secret })),
      ...Array.from({ length: 4 }, (_, i) => resume(d, r, { actor: `apikey:k${i}` })),
    ]);
    // The winner's resumer (the link, or one API caller) may go on while its step still waits (the
    // stub finishes nothing): the same link sent again. Every other resumer is refused.
    const item = await rawItem(keys.instance(TENANT, r.id));
    const completedBy = new Set(vi.mocked(d.complete).mock.calls.map((c) => c[2]));
    expect([...completedBy]).toEqual([item?.pause.resumedBy]);
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    expect(won.length).toBe(item?.pause.resumedBy === 'link' ? vi.mocked(d.complete).mock.calls.length : 1);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ code: 'RESUME_ALREADY_USED' });
    // A link's resumes all lead to the one journey link.
    if (item?.pause.resumedBy === 'link') {
      const caps = new Set(won.map((o) => (o as PromiseFulfilledResult<{ capability: string }>).value.capability));
      expect(caps.size).toBe(1);
      expect(item.resumeCapabilityHash).toBe(hashCapability([...caps][0]!));
    }
  });

  it('sends a resume whose hand-over was cut short again to the same step: by the link to the same journey link, by the API to a new one', async () => {
    for (const by of [{ secret: '' }, { actor: 'apikey:k1' }]) {
      const r = await createInstance();
      const secret = await paused(r);
      const resumer = 'secret' in by ? { secret } : by;
      await waiting(r, `task-cut-${seq}`);
      let calls = 0;
      const d = deps(async () => {
        if (++calls === 1) throw new ServiceUnavailableError('Step Functions did not confirm the hand-over of wait; send it again.');
      });
      await expect(resume(d, r, resumer)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      const first = await rawItem(keys.instance(TENANT, r.id));
      // Another resumer meanwhile: refused.
      await expect(resume(d, r, 'secret' in by ? { actor: 'apikey:other' } : { secret })).rejects.toMatchObject({ code: 'RESUME_ALREADY_USED' });
      const { capability } = await resume(d, r, resumer);
      const second = await rawItem(keys.instance(TENANT, r.id));
      expect(second?.resumeCapabilityHash).toBe(hashCapability(capability));
      if ('secret' in by) expect(second?.resumeCapabilityHash).toBe(first?.resumeCapabilityHash);
      else expect(second?.resumeCapabilityHash).not.toBe(first?.resumeCapabilityHash);
      expect(second?.pause).toEqual(first?.pause);
      expect(calls).toBe(2);
    }
  });

  it('tells a resume before the wait to come again, changing nothing; and one after the wait is over that it expired', async () => {
    const r = await createInstance();
    const secret = await paused(r);
    const before = await rawItem(keys.instance(TENANT, r.id));
    await expect(resume(deps(undefined, 30), r, { secret })).rejects.toMatchObject({ code: 'RESUME_NOT_READY', statusCode: 409, headers: { 'Retry-After': '2' } });
    expect(await rawItem(keys.instance(TENANT, r.id))).toEqual(before);

    // A resume that arrives while the steps before the wait still run waits for it.
    const d = deps(undefined, 5_000);
    const pending = resume(d, r, { secret });
    await new Promise((ok) => setTimeout(ok, 50));
    await waiting(r, 'task-3');
    await expect(pending).resolves.toMatchObject({ record: { status: 'ACTIVE' } });

    // The wait began, and its timer took the journey on to another step: expired.
    const late = await createInstance();
    const lateSecret = await paused(late);
    await waiting(late, 'task-4', at(2));
    await waiting(late, 'task-5', at(20), 'apology', 'DATA_FORM');
    await expect(resume(deps(), late, { secret: lateSecret })).rejects.toMatchObject({ code: 'RESUME_EXPIRED', statusCode: 410 });
  });

  it('answers a wrong secret, another tenant and an unknown instance alike (404), an ended journey 410, and the API on an instance never paused 409', async () => {
    const r = await createInstance();
    const secret = await paused(r);
    await waiting(r, 'task-6');
    const d = deps();
    await expect(resume(d, r, { secret: tampered(secret) })).rejects.toMatchObject({ code: 'RESUME_NOT_AVAILABLE', statusCode: 404 });
    await expect(resumeJourney(d, { tenantId: 'other', processInstanceId: r.id }, { secret }, at(5))).rejects.toMatchObject({ code: 'RESUME_NOT_AVAILABLE' });
    await expect(resumeJourney(d, { tenantId: 'other', processInstanceId: r.id }, { actor: 'apikey:k' }, at(5))).rejects.toMatchObject({ code: 'PROCESS_INSTANCE_NOT_FOUND' });
    expect(d.complete).not.toHaveBeenCalled();

    const plain = await createInstance();
    await expect(resume(d, plain, { actor: 'apikey:k' })).rejects.toMatchObject({ code: 'INSTANCE_NOT_PAUSED', statusCode: 409 });
    await expect(resume(d, plain, { secret })).rejects.toMatchObject({ code: 'RESUME_NOT_AVAILABLE' });

    const ended = await createInstance();
    const endedSecret = await paused(ended);
    await instances.setStatus({ ...ended, status: 'PAUSED' }, 'PAUSED', 'COMPLETED_TERMINATED', at(3), true, []);
    await expect(resume(d, ended, { secret: endedSecret })).rejects.toMatchObject({ code: 'RESUME_EXPIRED', statusCode: 410 });
  });
});

describe('judgeResume', () => {
  const base = { id: 'p', tenantId: TENANT, status: 'PAUSED', capabilityHash: 'h' } as ProcessInstanceRecord;
  const pause = { activityId: 'pause', secretHash: hashResumeSecret('s3cret-s3cret-s3cret-s3cret'), pausedAt: '2026-03-01T00:00:01.000Z' };
  const step = (since: string, activityType = 'WAIT_RESUME_INSTANCE'): WaitingStep => ({ activityId: 'wait', activityType, inputs: {}, state: {}, taskToken: 't', since });
  const judge = (r: Partial<ProcessInstanceRecord>) => judgeResume('p', { ...base, ...r }, { secret: 's3cret-s3cret-s3cret-s3cret' }, ['WAIT_RESUME_INSTANCE']);

  it('takes only the step whose wait began for this pause, not one left from an earlier pass', () => {
    const since = '2026-03-01T00:00:02.000Z';
    expect(judge({ pause: { ...pause, waitingAt: { activityId: 'wait', since } }, currentStep: step(since) })).toEqual({ resume: step(since) });
    // A step of an earlier pass (its wait timed out, its item left): the journey has not reached this pause's wait yet.
    expect(judge({ pause, currentStep: step('2026-02-28T00:00:00.000Z') })).toEqual({ wait: 'notReached' });
    // Marked, not yet recorded (the instant between the two writes): wait, and at the deadline call it over.
    expect(judge({ pause: { ...pause, waitingAt: { activityId: 'wait', since } }, currentStep: step('2026-02-28T00:00:00.000Z') })).toEqual({ wait: 'maybeOver' });
  });
});

describe('a refused resume link', () => {
  it("carries the relying party for its page once its secret matched, and nobody's for a wrong one", async () => {
    const r = await createInstance({ pages: { presentation: { name: 'Nordbank' } } } as Partial<ProcessInstanceRecord>);
    const secret = await paused(r);
    await waiting(r, 'task-rp');
    const d = deps();
    await resume(d, r, { actor: 'apikey:bank' });
    const used = await resume(d, r, { secret }).catch((err: unknown) => err);
    expect(used).toMatchObject({ code: 'RESUME_ALREADY_USED' });
    expect(relyingPartyOf(used)).toEqual({ presentation: { name: 'Nordbank' } });
    const wrong = await resume(d, r, { secret: tampered(secret, 2) }).catch((err: unknown) => err);
    expect(wrong).toMatchObject({ code: 'RESUME_NOT_AVAILABLE' });
    expect(relyingPartyOf(wrong)).toBeUndefined();
  });
});
