/**
 * A check step in test mode (functions/process-manager/sandbox.ts): the step runs as it always
 * does, then its outcome is the one the token forces for its check key. The check it keeps in
 * user data is forced where it is written (service-user-data.ts); here the journey follows the
 * forced outcome: a forced PASS or REVIEW goes on where the real check raised its failure event,
 * a forced FAIL raises that event where the real check passed.
 */
import { forcedOutcome, forceSessionCheck, sessionSandbox } from '../process-manager/sandbox.js';
import { ActivityError, TRANSIENT_ERROR, withCheck, type Session } from './contract.js';

export interface ForcedCheckStep {
  /** The check's key in `_checks`. */
  key: string;
  /** The check's type and name, for a check the real step never wrote (it raised its event first). */
  checkType: string;
  displayName: string;
  /** The events the step raises for a failed check: only these give way to a forced PASS or REVIEW. */
  failures: readonly string[];
  /** The event a forced FAIL raises where the real check passed; undefined: the journey goes on with FAIL in its check. */
  failure?: () => ActivityError;
}

export async function runWithForcedCheck(session: Session, step: ForcedCheckStep, real: () => Promise<Session>): Promise<Session> {
  const forced = forcedOutcome(sessionSandbox(session), step.key);
  if (!forced) return real();
  let after: Session;
  try {
    after = await real();
  } catch (err) {
    // A configuration error, a transient error or a forced FAIL: as the real step would.
    if (!(err instanceof ActivityError) || err.name === TRANSIENT_ERROR || !step.failures.includes(err.name) || forced === 'FAIL') throw err;
    return withCheck(session, step.key, forceSessionCheck({ result: 'FAIL', checkType: step.checkType, displayName: step.displayName }, forced));
  }
  if (forced === 'FAIL' && step.failure) throw step.failure();
  const written = (after._checks ?? {})[step.key] as Record<string, unknown> | undefined;
  const check: Record<string, unknown> = written ?? { checkType: step.checkType, displayName: step.displayName };
  return withCheck(after, step.key, forceSessionCheck(check, forced));
}
