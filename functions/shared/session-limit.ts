/**
 * The cap on a journey's session (the execution's state: parameters, form values, checks, image
 * metadata), as JSON in UTF-8 bytes: 192 KiB.
 *
 * Why this number: Step Functions carries at most 256 KiB (262,144 bytes) of state between
 * steps, as a state's input and output, a task's result and SendTaskSuccess's output; over it the
 * execution fails with States.DataLimitExceeded, which nothing catches. The session is not all a
 * state holds: each task's payload adds the step's own inputs (an inline form) to it, and an error
 * route adds `_lastError` (its Cause is up to 32 KiB). The cap keeps 64 KiB of the quota for
 * those, so a journey is refused cleanly where the end user or the activity grew it, never failed
 * somewhere later by Step Functions.
 */
export const SESSION_MAX_BYTES = 196_608;

/** A session's size as Step Functions counts it: its JSON text in UTF-8 bytes. */
export function sessionBytes(session: unknown): number {
  return Buffer.byteLength(JSON.stringify(session) ?? '', 'utf8');
}
