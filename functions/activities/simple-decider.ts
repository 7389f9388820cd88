import type { ActivitySpec } from './spec.js';

/**
 * The decider never runs in the activity function: the compiler turns its rules into one
 * Choice state and a Pass state per outcome (statemachines/compile.ts).
 */
export const spec = {
  type: 'SIMPLE_DECIDER',
  displayName: 'Simple Decider',
  kind: 'decider',
  description:
    'The final decision of an instance from its results or error events: ordered rules, the first that holds gives PASS, FAIL or REVIEW, else the default. It ends the journey.',
  inputs: [],
  rules: [],
  outputs: [{ name: 'Decision', variable: '_decision' }],
  errorEvents: [],
} as const satisfies ActivitySpec;

export const aliases = ['activityOutcomeDeciderV1'] as const;
