/**
 * Test mode (the family's `forTest`): a process token, and every instance it creates, where the
 * relying party forces each check's outcome and the journey's decision, so a developer can make a
 * journey PASS, REVIEW or FAIL on purpose (docs/sandbox.md).
 *
 * The forcing is data on the token (`sandbox`), copied to the instance record and to the session
 * as `_sandbox` when the instance is created. A forced check keeps what the check really found
 * (`actualResult`) and says `forced: true`, so nobody takes it for a real result; test-mode
 * instances carry `forTest: true` on every read and page, and are counted in no metric.
 */
import { ApiError, apiError } from '../errors.js';
import type { CheckRecord, Sandbox } from './model.js';

export type { Sandbox };
export { MAX_FORCED_CHECKS, SANDBOX_OUTCOMES, SandboxSchema, type SandboxOutcome } from './sandbox-schema.js';
import type { SandboxOutcome } from './sandbox-schema.js';

export class SandboxNotForTestError extends apiError('SANDBOX_NOT_FOR_TEST') {}

/** Refuses forced outcomes on a token that is not in test mode: a live journey never has its outcome forced. */
export function checkSandbox(forTest: boolean, sandbox: Sandbox | undefined): ApiError | undefined {
  if (sandbox !== undefined && !forTest) {
    return new SandboxNotForTestError('sandbox forces outcomes and is taken only on a process token with forTest true.', [
      { location: 'body.sandbox', message: 'send forTest: true with it, or leave it out' },
    ]);
  }
  return undefined;
}

/** The session's sandbox (`_sandbox`), as the instance's creation wrote it; undefined outside test mode. */
export function sessionSandbox(session: Record<string, unknown>): Sandbox | undefined {
  const s = session._sandbox;
  return s !== null && typeof s === 'object' && !Array.isArray(s) ? (s as Sandbox) : undefined;
}

/** The outcome the sandbox forces for one check key, if it forces one. */
export function forcedOutcome(sandbox: Sandbox | undefined, key: string): SandboxOutcome | undefined {
  const checks = sandbox?.checks;
  return checks && Object.hasOwn(checks, key) ? checks[key] : undefined;
}

/**
 * A check record with its result forced: the result (and its reports') replaced, `forced: true`
 * and the result the check found (`actualResult`, null when it found none) in its `moreinfo`,
 * and a description that says so first.
 */
export function forceCheck(check: CheckRecord, forced: SandboxOutcome): CheckRecord {
  let info: Record<string, unknown> = {};
  try {
    const parsed = check.moreinfo === undefined ? {} : (JSON.parse(check.moreinfo) as unknown);
    info = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { moreinfo: parsed };
  } catch {
    info = { moreinfo: check.moreinfo };
  }
  return {
    ...check,
    result: forced,
    description: `Test mode: forced to ${forced} (the check found ${check.result}). ${check.description}`,
    moreinfo: JSON.stringify({ ...info, forced: true, actualResult: check.result }),
    reports: check.reports.map((r) => ({ ...r, result: forced })),
  };
}

/** The short form of a check in the session (`_checks.{key}`, which deciders read) with its result forced. */
export function forceSessionCheck<T extends { result?: unknown }>(check: T, forced: SandboxOutcome): T & { result: SandboxOutcome; forced: true; actualResult: unknown } {
  return { ...check, result: forced, forced: true, actualResult: check.result ?? null };
}

/**
 * The status a test-mode instance's outcome is recorded as: a forced decision gives the status the
 * decider would (PASS COMPLETED_ENDED_SUCCESS, FAIL COMPLETED_ENDED_ERROR, REVIEW REVIEW) in place
 * of the one the journey reached. Only an outcome is replaced: a process error, a timeout or a
 * stop stays what it is, so a test still sees a broken definition.
 */
export function forcedStatus<S extends string>(record: { forTest?: boolean; sandbox?: Sandbox }, reached: S): S | 'COMPLETED_ENDED_SUCCESS' | 'COMPLETED_ENDED_ERROR' | 'REVIEW' {
  const decision = record.forTest ? record.sandbox?.decision : undefined;
  if (!decision || !(['COMPLETED_ENDED_SUCCESS', 'COMPLETED_ENDED_ERROR', 'REVIEW'] as string[]).includes(reached)) return reached;
  return decision === 'PASS' ? 'COMPLETED_ENDED_SUCCESS' : decision === 'FAIL' ? 'COMPLETED_ENDED_ERROR' : 'REVIEW';
}

/**
 * A step's new session with the sandbox as the instance's creation wrote it: no step (a cloud
 * function's results, an output a designer mapped) can add, change or remove it, so only a
 * test-mode token's instance ever has outcomes forced.
 */
export function keepSandbox<T extends Record<string, unknown>>(before: Record<string, unknown>, after: T): T {
  if (before._sandbox === after._sandbox) return after;
  const { _sandbox: _dropped, ...rest } = after;
  return (before._sandbox === undefined ? rest : { ...rest, _sandbox: before._sandbox }) as T;
}
