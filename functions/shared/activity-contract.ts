/**
 * The activity contract: what a compiled state machine and the activity function say to each
 * other (the Task payload's fields and their forms, and the answer the state machine reads back),
 * by number. A state machine is immutable and lives as long as versions use it and its executions
 * run (up to a year); the activity function is invoked unqualified, so a deploy changes the code
 * every running execution calls. Each Task payload therefore names the contract its state machine
 * was compiled to (`contract`, a constant in the ASL, statemachines/compile.ts), and the activity
 * function serves that contract and the one before it (functions/activities/payload.ts).
 *
 * When to bump, and how long the previous one is kept: docs/journeys.md, "Activity contract".
 */

/**
 * The contract this build compiles and speaks. 1: every payload written before contracts had a
 * number (they carry no `contract` field). 2: the payload names its contract, its `inputs` (and
 * `outputs`) are always JSON text and its `keep` always present.
 */
export const ACTIVITY_CONTRACT = 2;

/** The oldest contract this build still serves: the previous one (N-1). */
export const OLDEST_SERVED_CONTRACT = ACTIVITY_CONTRACT - 1;

/** What a payload with no `contract` field speaks: state machines compiled before contracts were numbered. */
export const UNNUMBERED_CONTRACT = 1;

/** The contracts an activity function serves: `oldest` to `current`, both included. */
export interface ContractWindow {
  readonly current: number;
  readonly oldest: number;
}

/** This build's window. */
export const SERVED_CONTRACTS: ContractWindow = { current: ACTIVITY_CONTRACT, oldest: OLDEST_SERVED_CONTRACT };

/**
 * The ASL error names of a refused payload. Nothing retries TOO_OLD or BAD_PAYLOAD (no later
 * attempt would be served); TOO_NEW is retried with Lambda's own failures (a state machine newer
 * than the code it calls exists only while a deploy is under way), then fails the step.
 */
export const CONTRACT_ERRORS = {
  TOO_OLD: 'Activity.ContractTooOld',
  TOO_NEW: 'Activity.ContractTooNew',
  BAD_PAYLOAD: 'Activity.BadPayload',
} as const;
