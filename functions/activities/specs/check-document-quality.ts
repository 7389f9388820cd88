import { docKey } from '../document-spec.js';
import type { ActivitySpec } from '../spec.js';

export const spec = {
  type: 'CHECK_DOCUMENT_QUALITY',
  displayName: 'Document Quality Assessment',
  kind: 'service',
  description:
    "Judges the newest capture of each side of the document: the document found in the photo (and cut out of it, with Crop Image), its resolution, sharpness, glare and brightness, each a measured figure with the threshold it was judged by in the check `_checks.documents.{Document Key}.quality`. A capture that falls short raises \"Failed Document Quality\" (its route usually leads back to the capture, which then says what to fix).",
  inputs: [
    docKey,
    {
      name: 'Crop Image',
      type: 'B',
      required: false,
      default: true,
      description: 'True: the document found in the photo is cut out and kept beside the capture, and later checks with Image Profile Cropped look at it. False: the photo is judged whole, as the document.',
      family: { name: 'cropImage' },
    },
  ],
  rules: [],
  outputs: [{ name: 'Quality check', variable: '_checks.documents.{Document Key}.quality', description: '{result: "PASS" | "FAIL", figures: {...}, problems: [...]}' }],
  errorEvents: [
    { name: 'Failed Document Quality', aslError: 'DocumentQualityFailed', code: 'failedDocumentQuality', description: 'No document was found, or its resolution, sharpness, glare or brightness is outside its threshold.' },
  ],
  family: { beans: ['checkDocumentQualityV1'], palette: 'CDQ01' },
} as const satisfies ActivitySpec;
