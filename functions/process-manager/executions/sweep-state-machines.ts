import { getConfig } from '../../config.js';
import { log } from '../../http/log.js';
import { definitions } from '../deps.js';
import { stateMachinePrefix } from './state-machine-names.js';
import { stepFunctionsInventory } from './step-functions-inventory.js';
import { sweepStateMachines } from './state-machine-janitor.js';

/** A state machine younger than this is never deleted (see sweepStateMachines). */
const GRACE_HOURS = 24;

/**
 * The state machine janitor, run once a day by an EventBridge schedule (AWS only: the local engine
 * keeps state machines in memory and makes them again at each start). Deletes this deployment's
 * state machines that no live version needs; logs what it kept and why.
 */
export async function handler(): Promise<{ deleted: number; kept: number }> {
  const verdicts = await sweepStateMachines(
    { inventory: stepFunctionsInventory(), definitions },
    { prefix: stateMachinePrefix(getConfig().SERVICE_REGION), now: new Date(), graceHours: GRACE_HOURS },
  );
  const counts: Record<string, number> = {};
  for (const v of verdicts.values()) counts[v] = (counts[v] ?? 0) + 1;
  const deleted = [...verdicts].filter(([, v]) => v === 'deleted').map(([arn]) => arn);
  log().info('state machines swept', { counts, deleted });
  return { deleted: deleted.length, kept: verdicts.size - deleted.length };
}
