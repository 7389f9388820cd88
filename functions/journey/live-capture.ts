/**
 * The captures of a Capture Face Image step as the session keeps them, read without the image
 * code: the journey page (which shows whether a capture failed a match) needs this and none of
 * face-capture.ts's JPEG and PNG decoders (jpeg-js and pngjs, about 50 KB of its bundle).
 */

/** A capture as the session keeps it under `_faces.{Face Key}.captures`. */
export interface LiveCapture {
  captureId: string;
  format: 'JPEG' | 'PNG';
}

/** The newest capture of the Capture Face Image step with this Face Key, from the session. */
export function latestCapture(session: { _faces?: Record<string, unknown> }, faceKey: string): LiveCapture | undefined {
  const faces = session._faces;
  const entry = faces && Object.hasOwn(faces, faceKey) ? (faces[faceKey] as { captures?: unknown }) : undefined;
  const captures = Array.isArray(entry?.captures) ? entry.captures : [];
  const last = captures.at(-1) as Partial<LiveCapture> | undefined;
  if (!last || typeof last.captureId !== 'string') return undefined;
  return { captureId: last.captureId, format: last.format === 'PNG' ? 'PNG' : 'JPEG' };
}

/**
 * How a Face Liveness failure tells the capture it leads back to how many attempts are left: in
 * its error's cause (`_lastError.Cause`), the only thing the route back carries.
 */
export const attemptsLeftCause = (left: number) => `attempts left: ${left}.`;

/** The attempts left a Face Liveness failure named, when the journey came back to the capture by its error. */
export function livenessAttemptsLeft(session: { _lastError?: unknown }): number | undefined {
  const last = session._lastError as { Error?: unknown; Cause?: unknown } | undefined;
  if (last?.Error !== 'FaceLivenessFailed' || typeof last.Cause !== 'string') return undefined;
  const found = /attempts left: (\d+)\./.exec(last.Cause);
  return found ? Number(found[1]) : undefined;
}
