import { key, type ActivitySpec } from '../spec.js';

/** The largest count: past it a number would lose its last digit. */
export const MAX_COUNT = Number.MAX_SAFE_INTEGER;

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
  // The variable holds something other than a whole number of at most MAX_COUNT (a token parameter of that name, say).
  failures: ['CounterNotANumber'],
  family: { displayName: 'Counter', beans: ['counterV1'] },
} as const satisfies ActivitySpec;
