import { key, type ActivitySpec } from '../spec.js';

/**
 * The most passes a Counter counts: the next fails the journey (`CounterLimitExceeded`, a process
 * error). It bounds a loop of service steps that a Counter counts (validation accepts such a loop
 * only through a Counter), far below Step Functions' 25,000 history events per execution.
 */
export const COUNTER_PASS_LIMIT = 500;

export const spec = {
  type: 'COUNTER_V1',
  displayName: 'Counter v1',
  kind: 'service',
  description:
    'Adds one to a process variable, creating it at 1: how many times the journey has passed this point, for a gateway to read ' +
    '(`${dvsAttempt > 2}`) so a retry loop ends.',
  inputs: [
    {
      ...key('Counter Name', undefined, 'The process variable that counts (read by gateways as `${<name>}`), written as it is: a session key (`instance`, `_checks`, ...) is refused.'),
      // Gateways name the variable, so it is known when the definition is published.
      references: false,
    },
  ],
  rules: [],
  outputs: [{ name: 'Count', variable: 'vars.{Counter Name}', description: 'The count after this step: 1 the first time.' }],
  errorEvents: [],
  // The variable holds something other than a whole number (a token parameter of that name, say);
  // the count would pass COUNTER_PASS_LIMIT.
  failures: ['CounterNotANumber', 'CounterLimitExceeded'],
  family: { displayName: 'Counter', beans: ['counterV1'] },
} as const satisfies ActivitySpec;
