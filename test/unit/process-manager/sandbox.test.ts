import { describe, expect, it } from 'vitest';
import { lenient } from '../../../functions/shared/lenient.js';
import {
  checkSandbox,
  forceCheck,
  forcedOutcome,
  forcedStatus,
  forceSessionCheck,
  keepSandbox,
  SandboxNotForTestError,
  SandboxSchema,
} from '../../../functions/process-manager/sandbox.js';
import { newProcessToken, tokenView } from '../../../functions/process-manager/tokens/tokens.js';
import { ProcessTokenCreateSchema } from '../../../functions/process-manager/tokens/token-schemas.js';
import { initialSession, instanceView, newInstance } from '../../../functions/process-manager/instances/instances.js';
import type { CheckRecord, ProcessDefinitionRecord } from '../../../functions/process-manager/model.js';

const ctx = { tenantId: 'demo', actor: 'apikey:1', now: new Date('2026-11-28T00:00:00Z'), tenantOrigin: 'https://demo.fir.example.com', definitionFound: true, definitionId: 'd1' };
const body = (extra: Record<string, unknown>) => ProcessTokenCreateSchema.parse(lenient(ProcessTokenCreateSchema, { name: 't', processDefnName: 'x', processDefnVersion: 1, ...extra }));

describe('SandboxSchema', () => {
  it('takes forced checks and a decision', () => {
    expect(SandboxSchema.parse({ checks: { face: 'PASS', faceMatch: 'REVIEW' }, decision: 'FAIL' })).toEqual({ checks: { face: 'PASS', faceMatch: 'REVIEW' }, decision: 'FAIL' });
  });

  it.each([
    ['an outcome that is not PASS, FAIL or REVIEW', { decision: 'pass' }],
    ['an unknown member (a typo)', { decison: 'PASS' }],
    ['nothing to force', {}],
    ['a check key with a space', { checks: { 'face key': 'PASS' } }],
    ['a check forced to a non-string', { checks: { face: true } }],
  ])('rejects %s', (_why, value) => {
    expect(SandboxSchema.safeParse(value).success).toBe(false);
  });
});

describe('newProcessToken', () => {
  it('keeps forTest, sent as the string "true" too, with its sandbox', () => {
    const token = newProcessToken(body({ forTest: 'true', sandbox: { decision: 'REVIEW' } }), ctx);
    expect(token).toMatchObject({ forTest: true, sandbox: { decision: 'REVIEW' } });
    expect(tokenView(token, ctx.tenantOrigin)).toMatchObject({ forTest: true, sandbox: { decision: 'REVIEW' } });
  });

  it('rejects a sandbox on a token that is not forTest, with a stable 400 code', () => {
    for (const forTest of [undefined, false, 'false']) {
      let thrown: unknown;
      try {
        newProcessToken(body({ ...(forTest === undefined ? {} : { forTest }), sandbox: { decision: 'PASS' } }), ctx);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(SandboxNotForTestError);
      expect(thrown).toMatchObject({ code: 'SANDBOX_NOT_FOR_TEST', statusCode: 400 });
    }
  });

  it('leaves a live token as it was: no forTest, no sandbox on its record or answer', () => {
    const token = newProcessToken(body({ forTest: false }), ctx);
    expect('forTest' in token).toBe(false);
    expect('forTest' in tokenView(token, ctx.tenantOrigin)).toBe(false);
    expect(checkSandbox(false, undefined)).toBeUndefined();
  });
});

describe('an instance of a test-mode token', () => {
  const definition = { id: 'd1', name: 'x', version: 1, retentionDays: 90, stateMachineArn: 'arn:sm' } as unknown as ProcessDefinitionRecord;

  it('is marked forTest on its record, its read and its session, which carries the sandbox', () => {
    const token = newProcessToken(body({ forTest: true, sandbox: { checks: { face: 'PASS' } } }), ctx);
    const { record } = newInstance(token, definition, ctx);
    expect(record).toMatchObject({ forTest: true, sandbox: { checks: { face: 'PASS' } } });
    expect(instanceView(record, ctx.now).forTest).toBe(true);
    expect(initialSession(record)._sandbox).toEqual({ forTest: true, checks: { face: 'PASS' } });
  });

  it('of a live token has no forTest field at all (strict clients map the read)', () => {
    const { record } = newInstance(newProcessToken(body({}), ctx), definition, ctx);
    expect('forTest' in instanceView(record, ctx.now)).toBe(false);
    expect('_sandbox' in initialSession(record)).toBe(false);
  });
});

describe('forceCheck', () => {
  const check: CheckRecord = {
    checkId: 'faceMatch',
    activityId: 'match',
    checkType: 'FACE_MATCH',
    result: 'FAIL',
    displayName: 'Face match',
    description: 'The faces do not match.',
    moreinfo: JSON.stringify({ similarity: 0.2 }),
    checkedAt: '2026-11-28T00:00:00.000Z',
    reports: [{ name: 'faceMatch', result: 'FAIL', description: 'no match' }],
  };

  it('records the forced result as forced, with what the check found', () => {
    const forced = forceCheck(check, 'PASS');
    expect(forced.result).toBe('PASS');
    expect(forced.reports[0]!.result).toBe('PASS');
    expect(JSON.parse(forced.moreinfo!)).toEqual({ similarity: 0.2, forced: true, actualResult: 'FAIL' });
    expect(forced.description).toMatch(/^Test mode: forced to PASS \(the check found FAIL\)\./);
  });

  it('marks the session form forced too', () => {
    expect(forceSessionCheck({ result: 'PASS', checkType: 'FACE_CAPTURE' }, 'REVIEW')).toEqual({ result: 'REVIEW', checkType: 'FACE_CAPTURE', forced: true, actualResult: 'PASS' });
  });

  it('finds a forced outcome only for a key the sandbox names (not a prototype name)', () => {
    expect(forcedOutcome({ checks: { face: 'FAIL' } }, 'face')).toBe('FAIL');
    expect(forcedOutcome({ checks: { face: 'FAIL' } }, 'constructor')).toBeUndefined();
    expect(forcedOutcome(undefined, 'face')).toBeUndefined();
  });
});

describe('forcedStatus', () => {
  const test = (decision: 'PASS' | 'FAIL' | 'REVIEW') => ({ forTest: true as const, sandbox: { decision } });

  it('gives the status the decider gives for each forced decision', () => {
    expect(forcedStatus(test('PASS'), 'COMPLETED_ENDED_ERROR')).toBe('COMPLETED_ENDED_SUCCESS');
    expect(forcedStatus(test('FAIL'), 'COMPLETED_ENDED_SUCCESS')).toBe('COMPLETED_ENDED_ERROR');
    expect(forcedStatus(test('REVIEW'), 'COMPLETED_ENDED_SUCCESS')).toBe('REVIEW');
  });

  it('leaves a process error, a timeout, a live instance and one without a decision as they are', () => {
    expect(forcedStatus(test('PASS'), 'COMPLETED_PROCESS_ERROR')).toBe('COMPLETED_PROCESS_ERROR');
    expect(forcedStatus(test('PASS'), 'COMPLETED_TERMINATED')).toBe('COMPLETED_TERMINATED');
    expect(forcedStatus({ sandbox: { decision: 'PASS' } }, 'COMPLETED_ENDED_ERROR')).toBe('COMPLETED_ENDED_ERROR');
    expect(forcedStatus({ forTest: true, sandbox: { checks: { face: 'PASS' } } }, 'REVIEW')).toBe('REVIEW');
  });
});

describe('keepSandbox', () => {
  it('undoes a step that adds, changes or removes the sandbox', () => {
    const sandbox = { forTest: true, decision: 'PASS' };
    expect(keepSandbox({}, { vars: {}, _sandbox: { decision: 'PASS' } })).toEqual({ vars: {} });
    expect(keepSandbox({ _sandbox: sandbox }, { _sandbox: { decision: 'FAIL' } })).toEqual({ _sandbox: sandbox });
    expect(keepSandbox({ _sandbox: sandbox }, {})).toEqual({ _sandbox: sandbox });
  });
});
