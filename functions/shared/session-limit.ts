/**
 * The cap on a journey's session (parameters, form values, checks, image metadata), as JSON in
 * UTF-8 bytes: 192 KiB.
 *
 * Why this number: the session is stored in the table, one item per version
 * (functions/store/sessions.ts), and DynamoDB's 400 KB item limit is the hard bound; the
 * execution's state carries only a reference and a small projection (statemachines/compile.ts).
 * The cap stays where it was when the session itself went through Step Functions (256 KiB of
 * state, with room for a step's inputs and `_lastError`): the waiting step's item holds the
 * session beside the step's inputs (an inline form), and executions started before the session
 * moved to the table still carry it whole. A journey is refused cleanly where the end user or the
 * activity grew it, never failed somewhere later.
 */
export const SESSION_MAX_BYTES = 196_608;

/** A session's size as Step Functions counts it: its JSON text in UTF-8 bytes. */
export function sessionBytes(session: unknown): number {
  return Buffer.byteLength(JSON.stringify(session) ?? '', 'utf8');
}
