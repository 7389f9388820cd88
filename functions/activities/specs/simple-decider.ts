import type { ActivitySpec } from '../spec.js';

/**
 * The decider never runs in the activity function: the compiler turns its rules into one
 * Choice state and a Pass state per outcome (statemachines/compile.ts).
 */
export const spec = {
  type: 'SIMPLE_DECIDER',
  displayName: 'Simple Decider',
  kind: 'decider',
  description:
    'The final decision of an instance from its results or error events: ordered rules, the first that holds gives PASS, FAIL or REVIEW, else the default, and the journey ends. In a graph (BPMN), where gateways before it do the routing, it records the Outcome its input names and the flow goes on to its next node (usually an end event).',
  inputs: [
    {
      name: 'Outcome',
      type: 'S',
      required: false,
      enum: ['PASS', 'FAIL', 'REVIEW'],
      references: false,
      description: 'The decision this decider records (instead of rules); the flow then goes on to its next node.',
    },
    {
      name: 'Decision on Any Failure',
      type: 'S',
      required: false,
      enum: ['PASS', 'FAIL', 'REVIEW'],
      references: false,
      description:
        "The family's form (with Derive Decision From, instead of Outcome or rules): the decision when the journey took an error route (`_lastError` or `_errors` in its data) and Derive Decision From gave none. FAIL when not given.",
      family: { name: 'decisionOnAnyFailure' },
    },
    {
      name: 'Derive Decision From',
      type: 'S',
      required: false,
      description:
        "The family's form: a reference to the decision (`${idv.overallDecision}`, set by a cloud function): PASS, FAIL or REVIEW there is the decision. Otherwise Decision on Any Failure after an error route, else PASS.",
      family: { name: 'decisionVariable' },
    },
  ],
  rules: [],
  outputs: [{ name: 'Decision', variable: '_decision' }],
  errorEvents: [],
  family: { beans: ['activityOutcomeDeciderV1'] },
} as const satisfies ActivitySpec;
