import { type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'CLEAR_VARIABLES_V1',
  displayName: 'Clear Variables',
  kind: 'service',
  description:
    'Removes process variables, as if never set: `${execution.hasVariable("x")}` is false after it and a Counter counts from 1 again ' +
    '(the family resets `dvsAttempt` and `confirmDetailsCounter` before a retry loop). A name the journey does not have is no error.',
  inputs: [
    {
      name: 'Variables to clear',
      type: 'L',
      required: true,
      description: 'The process variables to remove, by name (`dvsAttempt`); a session key (`_checks`, `instance`, ...) is refused.',
      family: { name: 'variables' },
    },
  ],
  rules: [],
  outputs: [],
  errorEvents: [],
  family: { palette: 'CLV01', beans: ['clearVariablesV1'] },
} as const satisfies ActivitySpec;
