import { STEP_TIMEOUT_MAX, stepTimeout, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'REVIEW_FROM_BACK_OFFICE',
  displayName: 'Waiting for B/O review',
  kind: 'user',
  description:
    "The journey waits for the back office: a reviewer's decision (POST /api/process-manager/processInstances/{id}/review: APPROVE, REJECT " +
    'or REVIEW, with a comment) completes the step with `_decision` PASS, FAIL or REVIEW, and the journey goes on. Nothing the end user ' +
    'sends completes it: their page is the review page. A timer boundary event (the family draws P5D) takes the journey on when nobody decides.',
  inputs: [
    {
      ...stepTimeout,
      default: STEP_TIMEOUT_MAX,
      description:
        'How long the back office has when the step has no timer (28 days by default, the longest a step may wait); then the task fails with States.Timeout.',
    },
  ],
  rules: [],
  outputs: [{ name: 'Decision', variable: '_decision', description: "The reviewer's: PASS (APPROVE), FAIL (REJECT) or REVIEW." }],
  errorEvents: [],
  family: { palette: 'WBOR01', beans: ['reviewFromBackOfficeStart'], endBean: 'reviewFromBackOfficeEnd' },
} as const satisfies ActivitySpec;
