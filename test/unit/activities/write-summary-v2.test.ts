import { describe, expect, it, vi } from 'vitest';
import { activityDeps } from '../../../functions/activities/deps.js';
import { instanceSummary, run, SUMMARY_MAX_BYTES } from '../../../functions/activities/write-summary-v2.js';
import type { ActivityDeps, Session } from '../../../functions/activities/contract.js';
import type { ProcessInstanceRecord, StepUserData } from '../../../functions/process-manager/model.js';
import { loadUserData } from '../../../functions/userdata/user-data.js';
import { UserDataSchema } from '../../../functions/userdata/routes.js';
import * as z from '../../../functions/shared/zod.js';

const NOW = '2030-01-02T03:04:05.000Z';
const session = (over: Record<string, unknown> = {}): Session =>
  ({
    instance: { tenantId: 'demo', processInstanceId: 'p1', processDefnName: 'onboarding', processDefnVersion: 3 },
    parameters: {},
    vars: { secret: 'typed by the end user' },
    _checks: {
      face: { result: 'PASS', checkType: 'FACE_CAPTURE', displayName: 'Face image capture', liveness: 97 },
      dvs: { result: 'FAIL', outcome: 'NO_MATCH', valid: false },
      custom: { valid: true },
    },
    _decision: 'REVIEW',
    _lastError: { Error: 'FaceMatchFailed', Cause: 'The live face did not match.' },
    _redirect: { url: 'https://bank.example/otp', at: '2030-01-02T03:00:00.000Z' },
    ...over,
  }) as Session;
const step = (activityId: string, activityType: string, submittedAt: string): StepUserData => ({ activityId, activityType, dataKey: activityId, submittedAt, values: { typed: 'x' } });
const STORED = [
  step('capture', 'CAPTURE_FACE_IMAGE', '2030-01-02T03:02:00.000Z'),
  step('details', 'DATA_FORM', '2030-01-02T03:01:00.000Z'),
  step('summary1', 'WRITE_SUMMARY_V2', '2030-01-02T03:03:00.000Z'),
];

describe('Write Summary Report V2', () => {
  it("summarises the decision, each check's result, the steps with their times and the error events, and nothing typed", () => {
    const summary = instanceSummary(session(), STORED, NOW);
    expect(summary).toEqual({
      processInstanceId: 'p1',
      processDefnName: 'onboarding',
      processDefnVersion: 3,
      writtenAt: NOW,
      decision: 'REVIEW',
      checks: [
        { checkId: 'face', result: 'PASS', valid: true, checkType: 'FACE_CAPTURE', displayName: 'Face image capture' },
        { checkId: 'dvs', result: 'FAIL', valid: false, outcome: 'NO_MATCH' },
        { checkId: 'custom', result: null, valid: true },
      ],
      steps: [
        { activityId: 'details', activityType: 'DATA_FORM', at: '2030-01-02T03:01:00.000Z' },
        { activityId: 'capture', activityType: 'CAPTURE_FACE_IMAGE', at: '2030-01-02T03:02:00.000Z' },
      ],
      errors: [{ error: 'FaceMatchFailed', cause: 'The live face did not match.' }],
      redirect: { url: 'https://bank.example/otp', at: '2030-01-02T03:00:00.000Z' },
    });
    expect(JSON.stringify(summary)).not.toContain('typed');
  });

  it('lists _errors, then the last error caught unless it is the last of them; a journey with nothing has empty lists', () => {
    const errors = [{ Error: 'A', Cause: 'a' }, { Error: 'B' }];
    expect(instanceSummary(session({ _errors: errors, _lastError: { Error: 'B' } }), [], NOW).errors).toEqual([{ error: 'A', cause: 'a' }, { error: 'B' }]);
    expect(instanceSummary(session({ _errors: errors, _lastError: { Error: 'C', Cause: 'c' } }), [], NOW).errors.map((e) => e.error)).toEqual(['A', 'B', 'C']);
    const bare = instanceSummary({ instance: { tenantId: 'demo', processInstanceId: 'p1' } } as Session, [], NOW);
    expect(bare).toEqual({ processInstanceId: 'p1', writtenAt: NOW, decision: null, checks: [], steps: [], errors: [] });
  });

  it('stays within its size bound, leaving out the oldest steps first and saying so', () => {
    const many = Array.from({ length: 3000 }, (_, i) => step(`s${String(i).padStart(4, '0')}${'x'.repeat(70)}`, 'DATA_FORM', new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString()));
    const checks = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`c${i}`, { result: 'PASS', checkType: 'é'.repeat(400), displayName: 'ü'.repeat(400) }]));
    const summary = instanceSummary(session({ _checks: checks }), many, NOW);
    expect(Buffer.byteLength(JSON.stringify(summary))).toBeLessThanOrEqual(SUMMARY_MAX_BYTES);
    expect(summary.truncated).toBe(true);
    expect(summary.steps.at(-1)?.activityId).toMatch(/^s2999/);
  });

  it('keeps the summary in user data and leaves the session as it was', async () => {
    const listUserData = vi.fn(async () => STORED);
    const putUserData = vi.fn(async () => undefined);
    const deps = { ...activityDeps, instances: { ...activityDeps.instances, listUserData, putUserData } } as ActivityDeps;
    const before = session();
    const after = await run({ activityId: 'summary1', inputs: {}, session: before, tenantId: 'demo', actor: 'journey:p1', now: new Date(NOW), expiresAt: 2_000_000_000, deps });
    expect(after).toBe(before);
    expect(listUserData).toHaveBeenCalledWith('demo', 'p1');
    expect(putUserData).toHaveBeenCalledWith(
      'demo',
      'p1',
      expect.objectContaining({ activityId: 'summary1', activityType: 'WRITE_SUMMARY_V2', dataKey: 'summary', submittedAt: NOW, values: expect.objectContaining({ decision: 'REVIEW' }) }),
      2_000_000_000,
    );
  });

  it('is read back by the user data API as `summary`, its newest, and is none of the steps', async () => {
    const summary = instanceSummary(session(), STORED, NOW);
    const older = { ...step('summary0', 'WRITE_SUMMARY_V2', '2030-01-02T02:00:00.000Z'), values: { old: true } };
    const record = { tenantId: 'demo', id: 'p1', processDefnId: 'd1', processDefnName: 'onboarding', processDefnVersion: 3, status: 'REVIEW' } as ProcessInstanceRecord;
    const instances = {
      getLive: async () => record,
      listUserData: async () => [...STORED.slice(0, 2), older, { ...STORED[2]!, values: summary as unknown as Record<string, unknown> }],
    };
    const data = await loadUserData({ instances }, 'demo', 'd1', 'p1', new Date(NOW));
    expect(data.summary).toEqual(summary);
    expect(data.steps.map((s) => s.activityId)).toEqual(['details', 'capture']);
    expect(z.safeParse(UserDataSchema, data).success).toBe(true);
  });
});
