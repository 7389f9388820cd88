import { randomUUID } from 'node:crypto';
import { getConfig } from '../../config.js';
import { log } from '../../http/log.js';
import { definitions, stateMachineJanitorStore } from '../deps.js';
import { STATE_MACHINE_CLAIM_STALE_MS } from '../model.js';
import { stateMachinePrefix } from './state-machine-names.js';
import { stepFunctionsInventory } from './step-functions-inventory.js';
import { JanitorErrors, sweepStateMachines, type Verdict } from './state-machine-janitor.js';

/** A state machine made, or last used, less than this long ago is never deleted (see sweepStateMachines). */
const GRACE_HOURS = 24;
/** A pass over every state machine starts once a day; the hourly runs in between finish one under way. */
const PASS_INTERVAL_HOURS = 23;
/**
 * Room left before the function's timeout (15 minutes, lib/constructs/journey-functions.ts): a
 * run judges no state machine past it, saves its place and ends. A judgement is a few calls, and a
 * throttled one waits at most 7 s between its tries: three minutes is far more than the last needs.
 */
const SAFETY_MS = 3 * 60_000;
/** The function's timeout, when the context does not say (a test's direct call). */
const TIMEOUT_MS = 15 * 60_000;

/**
 * The state machine janitor, run every hour by an EventBridge schedule (AWS only: the local engine
 * keeps state machines in memory and makes them again at each start). Once a day it starts a pass
 * over the account's state machines, deleting this deployment's that no active version uses and
 * that run nothing; a pass that does not fit one run goes on in the next from its checkpoint.
 * Logs what it kept and why.
 */
export async function handler(
  _event?: unknown,
  context?: { getRemainingTimeInMillis?: () => number },
): Promise<{ deleted: number; kept: number; stopped?: string; passCompleted: boolean }> {
  const remaining = context?.getRemainingTimeInMillis?.() ?? TIMEOUT_MS;
  const summary = (verdicts: Map<string, Verdict>) => {
    const counts: Record<string, number> = {};
    for (const v of verdicts.values()) counts[v] = (counts[v] ?? 0) + 1;
    const deleted = [...verdicts].filter(([, v]) => v === 'deleted').map(([arn]) => arn);
    return { counts, deleted };
  };
  try {
    const run = await sweepStateMachines(
      { inventory: stepFunctionsInventory(), definitions, stateMachines: stateMachineJanitorStore },
      {
        prefix: stateMachinePrefix(getConfig().SERVICE_REGION),
        now: new Date(),
        graceHours: GRACE_HOURS,
        passIntervalHours: PASS_INTERVAL_HOURS,
        deadline: Date.now() + remaining - SAFETY_MS,
        runId: randomUUID(),
        leaseMs: remaining + 60_000,
        claimStaleMs: STATE_MACHINE_CLAIM_STALE_MS,
      },
    );
    const { counts, deleted } = summary(run.verdicts);
    log().info('state machines swept', { counts, deleted, stopped: run.stopped, passCompleted: run.passCompleted });
    return { deleted: deleted.length, kept: run.verdicts.size - deleted.length, ...(run.stopped ? { stopped: run.stopped } : {}), passCompleted: run.passCompleted };
  } catch (err) {
    if (err instanceof JanitorErrors) {
      log().error('state machines swept, some could not be judged', { ...summary(err.verdicts), errors: err.errors.map((e) => ({ arn: e.arn, error: e.error })) });
    }
    throw err;
  }
}
