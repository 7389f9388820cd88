/**
 * Limits of a face image sent to a Capture Face Image step (the spec leaves them open).
 * 3 MiB: far above a camera capture (the page sends a JPEG of at most 1280 px, about 100-300 KB)
 * and what a phone photo chosen as a file weighs once the page has scaled it; base64-encoded
 * in the Lambda event it stays under Lambda's 6 MB request limit.
 */
export const MAX_FACE_IMAGE_BYTES = 3 * 1024 * 1024;
/** Below this on its shorter side an image cannot show a face well enough to check: refused. */
export const MIN_FACE_IMAGE_SIDE = 240;
/** The largest image decoded, in pixels by its header (one cap for the pages and both engines). */
export { MAX_FACE_IMAGE_PIXELS } from '../shared/face-engine-image.js';
