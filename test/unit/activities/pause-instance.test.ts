import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { activityDeps } from '../../../functions/activities/deps.js';
import { run } from '../../../functions/activities/pause-instance.js';
import { begin, screens, submission } from '../../../functions/activities/wait-resume-instance.js';
import { activityFunction } from '../../../functions/activities/run.js';
import { BEGINS, RUNS } from '../../../functions/activities/index.generated.js';
import type { ActivityDeps, Session, StepView } from '../../../functions/activities/contract.js';
import type { InstancePause, ProcessInstanceRecord } from '../../../functions/process-manager/model.js';
import type { EventEnvelope } from '../../../functions/shared/events.js';
import { validateDefinition } from '../../../statemachines/validate.js';
import { openInstance } from '../../support/instances-fake.js';

const now = new Date('2026-06-01T12:30:00.000Z');
const ORIGIN = 'https://demo.fir.example.com';
const session = (vars: Record<string, unknown> = {}): Session => ({ instance: { tenantId: 'acme', processInstanceId: 'p1' }, parameters: {}, vars }) as Session;

/** Pauses and user data in memory, with the store's condition: a pause is written only over the status read. */
function fakes(record: Partial<ProcessInstanceRecord> | null = {}) {
  const stored = record === null ? undefined : { ...openInstance('p1', { origin: ORIGIN }), ...record };
  const written: { pause: InstancePause; events: readonly EventEnvelope[]; from: string }[] = [];
  const userData: unknown[] = [];
  const deps: ActivityDeps = {
    ...activityDeps,
    pauses: {
      getRecord: async () => stored && structuredClone(stored),
      pause: async (r, pause, _now, events) => {
        if (!stored || stored.status !== r.status) return false;
        written.push({ pause, events, from: r.status });
        stored.status = 'PAUSED';
        stored.pause = pause;
        return true;
      },
      markWaiting: vi.fn(async () => true),
    },
    instances: { ...activityDeps.instances, putUserData: async (_t, _id, data) => void userData.push(data) },
  };
  return { deps, written, userData, stored };
}

const pause = (deps: ActivityDeps, vars?: Record<string, unknown>) =>
  run({ activityId: 'pause', inputs: {}, session: session(vars), tenantId: 'acme', actor: 'journey:p1', now, expiresAt: 99, deps });

describe('Pause Instance', () => {
  it('pauses the instance with a fresh secret, keeping only its hash, and sets the resume URL as resumeUrl and _resumeUrl', async () => {
    const f = fakes();
    const after = await pause(f.deps, { kept: 1 });
    const url = new URL(String(after.vars!.resumeUrl));
    expect(`${url.origin}${url.pathname}`).toBe(`${ORIGIN}/journey/p1/resume`);
    const secret = url.searchParams.get('r')!;
    // 256 random bits.
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(after.vars).toEqual({ kept: 1, resumeUrl: url.href, _resumeUrl: url.href });
    expect(f.written).toHaveLength(1);
    expect(f.written[0]!.pause).toEqual({ activityId: 'pause', secretHash: createHash('sha256').update(secret).digest('hex'), pausedAt: now.toISOString() });
    expect(JSON.stringify(f.stored)).not.toContain(secret);
    expect(f.written[0]!.events.map((e) => [e.type, e.data.status, e.data.previousStatus])).toEqual([['process-instance.status-changed', 'PAUSED', 'ACTIVE']]);
    // The relying party reads the URL in the step's user data.
    expect(f.userData).toEqual([{ activityId: 'pause', activityType: 'PAUSE_INSTANCE', dataKey: 'resumeUrl', values: { resumeUrl: url.href }, submittedAt: now.toISOString() }]);
  });

  it('pauses again with a new secret (the earlier link resumes nothing), with no second status event', async () => {
    const f = fakes();
    const first = await pause(f.deps);
    const second = await pause(f.deps);
    expect(second.vars!.resumeUrl).not.toBe(first.vars!.resumeUrl);
    expect(f.written.map((w) => w.events.length)).toEqual([1, 0]);
    expect(f.stored!.pause!.secretHash).toBe(createHash('sha256').update(new URL(String(second.vars!.resumeUrl)).searchParams.get('r')!).digest('hex'));
  });

  it('fails as InstanceNotPausable when the instance is gone, has ended or kept no origin; as Activity.Transient when its status keeps changing', async () => {
    await expect(pause(fakes(null).deps)).rejects.toMatchObject({ name: 'InstanceNotPausable', message: expect.stringContaining('retention') });
    await expect(pause(fakes({ status: 'COMPLETED_TERMINATED' }).deps)).rejects.toMatchObject({ name: 'InstanceNotPausable', message: expect.stringContaining('ended') });
    await expect(pause(fakes({ origin: undefined }).deps)).rejects.toMatchObject({ name: 'InstanceNotPausable', message: expect.stringContaining('host') });
    const racing = fakes();
    racing.deps = { ...racing.deps, pauses: { ...racing.deps.pauses, pause: async () => false } };
    await expect(pause(racing.deps)).rejects.toMatchObject({ name: 'Activity.Transient' });
  });

  it('has its output parameter applied by the activity function: `_resumeUrl` = `${resumeUrl}`', async () => {
    const f = fakes();
    const fn = activityFunction({ runs: RUNS, begins: BEGINS, deps: f.deps });
    const out = (await fn({ activityId: 'pause', activityType: 'PAUSE_INSTANCE', inputs: {}, outputs: { _resumeUrl: '${resumeUrl}', copy: '${resumeUrl}' }, state: session() }, now)) as Session;
    expect(out.vars!._resumeUrl).toBe(out.vars!.resumeUrl);
    expect(out.vars!.copy).toBe(out.vars!.resumeUrl);
  });

  it('publishes with no inputs, as the family draws it, and a Waiting for Resume with a timer', () => {
    const def = validateDefinition({
      name: 'pause',
      version: 1,
      startActivityId: 'pause',
      activities: {
        pause: { type: 'PAUSE_INSTANCE', outputs: { _resumeUrl: '${resumeUrl}' }, next: 'wait' },
        wait: { type: 'WAIT_RESUME_INSTANCE', timer: { duration: 'PT1H', next: 'declined' }, next: 'accepted' },
        accepted: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
        declined: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'FAIL' } },
      },
    });
    expect(def.activities.wait).toMatchObject({ type: 'WAIT_RESUME_INSTANCE', timer: { duration: 'PT1H' } });
  });
});

describe('Waiting for Resume', () => {
  it('records on the pause where, and since when, its resume is due', async () => {
    const f = fakes();
    const inputs = { 'Step Timeout (Seconds)': 1800 };
    expect(await begin({ activityId: 'wait', inputs, session: session(), tenantId: 'acme', actor: 'journey:p1', now, deps: f.deps })).toEqual(inputs);
    expect(f.deps.pauses.markWaiting).toHaveBeenCalledWith('acme', 'p1', { activityId: 'wait', since: now.toISOString() });
  });

  it('shows the paused page, which looks again now and then, and completes on its resume with the session as it was', async () => {
    const view = { lang: 'en', step: { activityId: 'wait' } } as unknown as StepView<typeof import('../../../functions/activities/specs/wait-resume-instance.js').spec>;
    const html = await screens.render.paused!(view);
    expect(html).toContain('This journey is paused');
    expect(html).toMatch(/<meta http-equiv="refresh" content="20">/);
    expect(submission.part).toBe('resume');
    expect(await submission.submit(view, { body: { resumedBy: 'apikey:k1' } }, now)).toEqual({
      complete: { result: {}, values: { resumedBy: 'apikey:k1', resumedAt: now.toISOString() }, dataKey: 'wait' },
    });
  });
});
