import { SESSION_KEYS } from '../../statemachines/variables.js';
import { activityError, withVar, type ServiceRun } from './contract.js';
import { own } from '../shared/own.js';
import { COUNTER_PASS_LIMIT, spec } from './specs/counter-v1.js';

/**
 * One more pass: the variable's count plus one, or 1 when the journey has no such variable yet.
 * A count kept as text (a token parameter such as `"2"`) counts on from its number. It needs no
 * AWS access of its own: the session it returns is written by the activity function.
 */
export const run: ServiceRun<typeof spec> = async ({ inputs, session }) => {
  const name = inputs['Counter Name'];
  // Gateways read these at the session's root (statemachines/variables.ts), never the process variable of that name.
  if ((SESSION_KEYS as readonly string[]).includes(name)) throw activityError(spec, 'InvalidInput', `Counter Name ${name} is a session key, not a process variable.`);
  const current = own(session.vars as Record<string, unknown> | undefined, name);
  const count = current === undefined || current === null ? 0 : typeof current === 'string' && /^\d{1,16}$/.test(current) ? Number(current) : current;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
    throw activityError(spec, 'CounterNotANumber', `The process variable ${name} holds something other than a count.`);
  }
  if (count >= COUNTER_PASS_LIMIT) {
    throw activityError(spec, 'CounterLimitExceeded', `The counter ${name} passed ${COUNTER_PASS_LIMIT}: a loop that never ends is stopped here.`);
  }
  return withVar(session, name, count + 1);
};
