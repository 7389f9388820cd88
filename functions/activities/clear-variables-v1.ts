import { SESSION_KEYS } from '../../statemachines/variables.js';
import { activityError, type ServiceRun } from './contract.js';
import { spec } from './specs/clear-variables-v1.js';

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * The session without the named process variables (`vars.<name>`). Names are checked first, so
 * a bad one clears nothing: a variable name (1 to 64 letters, digits or _), and not a session key,
 * which gateways read at the session's root and this step does not touch. It needs no AWS access
 * of its own: the session it returns is written by the activity function.
 */
export const run: ServiceRun<typeof spec> = async ({ inputs, session }) => {
  const names = inputs['Variables to clear'];
  for (const [i, name] of names.entries()) {
    if ((SESSION_KEYS as readonly string[]).includes(name)) throw activityError(spec, 'InvalidInput', `Variables to clear: item ${i + 1} is a session key, not a process variable.`);
    // The message names the position, not the text: an item may have come from a reference.
    if (!VARIABLE_NAME.test(name)) throw activityError(spec, 'InvalidInput', `Variables to clear: item ${i + 1} is not a variable name (1 to 64 letters, digits or _, not starting with a digit).`);
  }
  const vars = { ...(session.vars ?? {}) };
  for (const name of names) if (Object.hasOwn(vars, name)) delete vars[name];
  return { ...session, vars };
};
