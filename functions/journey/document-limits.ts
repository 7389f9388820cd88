/**
 * Limits of a document image sent to a Capture Document Image step (the family's spec leaves
 * them open; these are this service's choice).
 *
 * 4 MiB: a camera capture the page sends (at most 2560 px on its longer side, JPEG at 0.92) is
 * 0.5 to 1.5 MB, and a phone photo chosen as a file is re-encoded the same way by the page. A
 * file sent without the page's script (a 12 MP phone JPEG is 3 to 5 MB) is taken up to this.
 * Base64-encoded in the Lambda event, 4 MiB and the form's other fields are 5.7 MB: under
 * Lambda's 6 MB request limit, which is why it is not 10 MiB.
 */
export const MAX_DOCUMENT_IMAGE_BYTES = 4 * 1024 * 1024;
/**
 * The shorter side's least: below 600 px a card's MRZ line (about a tenth of its height) is under
 * 15 px of text, too small to read or judge for blur.
 */
export const MIN_DOCUMENT_IMAGE_SIDE = 600;
/**
 * The most pixels, by the header: 16 MP, the face captures' cap (a 12 MP phone photo fits with
 * room). jpeg-js decodes 16 MP in about 4 s and 350 MB here; 40 MP took 1.3 GB, more than the
 * pages' Lambda has.
 */
export { MAX_FACE_IMAGE_PIXELS as MAX_DOCUMENT_IMAGE_PIXELS } from '../shared/face-engine-image.js';
