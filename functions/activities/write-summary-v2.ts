import type { StepUserData } from '../process-manager/model.js';
import type { ActivityAccess, ServiceRun, Session } from './contract.js';
import { keepStepData } from './service-user-data.js';
import { spec } from './specs/write-summary-v2.js';

/** The steps kept with the instance (Query), and the summary written beside them (PutItem). */
export const aws = { table: ['Query', 'PutItem'] } as const satisfies ActivityAccess;

/** Where the summary is kept among the instance's user data: the user data API reads it from there as `summary`. */
export const SUMMARY_DATA_KEY = 'summary';

/**
 * At most this many bytes of JSON: far inside DynamoDB's 400 KB item, whatever the journey. The
 * parts are bounded on their own (below), so only a journey of hundreds of steps or checks with
 * long names comes near it; then the oldest steps go first, and `truncated` says so. (The
 * session it is made from is at most 192 KiB: functions/shared/session-limit.ts.)
 */
export const SUMMARY_MAX_BYTES = 300_000;
const MAX_CHECKS = 200;
const MAX_ERRORS = 50;
const MAX_STEPS = 400;
/** Characters of any one text taken from the session (a check's type, an error's cause). */
const MAX_TEXT = 300;

export interface SummaryCheck {
  checkId: string;
  /** PASS, FAIL or REVIEW as the check recorded it; null when it recorded none. */
  result: string | null;
  /** Whether the check passed: its own `valid` when it has one, else whether its result is PASS. */
  valid: boolean;
  outcome?: string;
  checkType?: string;
  displayName?: string;
}

export interface InstanceSummary {
  processInstanceId: string;
  processDefnName?: string;
  processDefnVersion?: number;
  writtenAt: string;
  /** The decision taken so far (a decider's outcome: PASS, FAIL or REVIEW), or null. */
  decision: string | null;
  checks: SummaryCheck[];
  /** The steps kept with the instance (each user step the end user completed, and service steps that keep data), oldest first, each at the time it last completed. */
  steps: { activityId: string; activityType: string; at: string }[];
  /** The error events taken, as Step Functions caught them (`Error`, `Cause`), oldest first. */
  errors: { error: string; cause?: string }[];
  /** Where a Redirect User step sent the end user last. */
  redirect?: { url: string; at: string };
  truncated?: true;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v.slice(0, MAX_TEXT) : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function checksOf(session: Session): SummaryCheck[] {
  const checks = isRecord(session._checks) ? session._checks : {};
  return Object.entries(checks)
    .slice(0, MAX_CHECKS)
    .map(([checkId, check]) => {
      const c = isRecord(check) ? check : {};
      const result = text(c.result) ?? null;
      const outcome = text(c.outcome);
      const checkType = text(c.checkType);
      const displayName = text(c.displayName);
      return {
        checkId,
        result,
        valid: typeof c.valid === 'boolean' ? c.valid : result === 'PASS',
        ...(outcome !== undefined ? { outcome } : {}),
        ...(checkType !== undefined ? { checkType } : {}),
        ...(displayName !== undefined ? { displayName } : {}),
      };
    });
}

function errorOf(e: unknown): { error: string; cause?: string } | undefined {
  if (!isRecord(e)) return undefined;
  const error = text(e.Error ?? e.error);
  if (error === undefined) return undefined;
  const cause = text(e.Cause ?? e.cause);
  return { error, ...(cause !== undefined ? { cause } : {}) };
}

/** `_errors` (the error events activities moved there), then `_lastError` (the last one caught) unless it is the last of those. */
function errorsOf(session: Session): { error: string; cause?: string }[] {
  const all = (Array.isArray(session._errors) ? session._errors : []).flatMap((e) => errorOf(e) ?? []);
  const last = errorOf(session._lastError);
  const tail = all.at(-1);
  if (last && !(tail && tail.error === last.error && tail.cause === last.cause)) all.push(last);
  return all.slice(-MAX_ERRORS);
}

/** The summary of an instance from its session and the steps kept with it. */
export function instanceSummary(session: Session, stored: readonly StepUserData[], writtenAt: string): InstanceSummary {
  const steps = stored
    .filter((s) => s.activityType !== spec.type)
    .map((s) => ({ activityId: s.activityId, activityType: s.activityType, at: s.submittedAt }))
    .sort((a, b) => a.at.localeCompare(b.at))
    .slice(-MAX_STEPS);
  const redirect = isRecord(session._redirect) && typeof session._redirect.url === 'string' && typeof session._redirect.at === 'string' ? { url: session._redirect.url, at: session._redirect.at } : undefined;
  const { processInstanceId, processDefnName, processDefnVersion } = session.instance;
  const summary: InstanceSummary = {
    processInstanceId,
    ...(processDefnName !== undefined ? { processDefnName } : {}),
    ...(processDefnVersion !== undefined ? { processDefnVersion } : {}),
    writtenAt,
    decision: text(session._decision) ?? null,
    checks: checksOf(session),
    steps,
    errors: errorsOf(session),
    ...(redirect ? { redirect } : {}),
  };
  // The oldest steps go first, then the oldest errors, then the last checks.
  const cut = <T>(list: T[], fromStart: boolean) => (fromStart ? list.slice(Math.ceil(list.length / 10)) : list.slice(0, -Math.ceil(list.length / 10)));
  while (Buffer.byteLength(JSON.stringify(summary)) > SUMMARY_MAX_BYTES && summary.steps.length + summary.errors.length + summary.checks.length > 0) {
    if (summary.steps.length > 0) summary.steps = cut(summary.steps, true);
    else if (summary.errors.length > 0) summary.errors = cut(summary.errors, true);
    else summary.checks = cut(summary.checks, false);
    summary.truncated = true;
  }
  return summary;
}

/**
 * Reads the steps kept with the instance, and keeps the summary beside them in its user data
 * (one item, written over on a second pass or a retry). The session goes on as it was: the
 * summary is for the relying party, not for the journey's routing.
 */
export const run: ServiceRun<typeof spec> = async (ctx) => {
  const { session, tenantId, now, deps } = ctx;
  const stored = await deps.instances.listUserData(tenantId, session.instance.processInstanceId);
  const summary = instanceSummary(session, stored, now.toISOString());
  await keepStepData(ctx, { activityType: spec.type, dataKey: SUMMARY_DATA_KEY, values: summary as unknown as Record<string, unknown> });
  return session;
};
