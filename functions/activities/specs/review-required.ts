import { s, type ActivitySpec } from '../spec.js';

/**
 * The first step of the family's manual-review tail (Simple Decider → `${_decision.equals("REVIEW")}`
 * → Review Required → Process Instance Review Status Report → Waiting for B/O review).
 */
export const spec = {
  type: 'REVIEW_REQUIRED',
  displayName: 'Review Required',
  kind: 'service',
  description:
    "Ends the end user's part of the journey: from here on the journey page says the application is being reviewed (or goes on to the " +
    "token's `_redirectUrl`) and never waits for the back office. The instance's review becomes PENDING and the journey's decision REVIEW " +
    '(`_decision`): a reviewer decides through POST /api/process-manager/processInstances/{id}/review, and a journey that ends without ' +
    'a decision ends in REVIEW.',
  inputs: [
    {
      ...s('UI Component ID', false, 'review', "The family's screen id for the review screen; this service shows its own review page whatever it names."),
      family: { name: 'screenId' },
    },
    {
      name: 'List of Screens',
      type: 'L',
      required: false,
      default: ['thank-you'],
      description: "The family's screens after it; kept as given, the review page is the end user's last.",
      family: { name: 'screens' },
    },
    {
      ...s('Starting Component ID', false, 'review', "The family's starting component id; kept as given."),
      family: { name: 'stepId' },
    },
  ],
  rules: [],
  outputs: [{ name: 'Decision', variable: '_decision', description: 'REVIEW: the decision is the reviewer\'s now.' }],
  errorEvents: [],
  family: { palette: 'RRD01', beans: ['reviewRequired'] },
} as const satisfies ActivitySpec;
