import { key, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'CHECK_FACE_QUALITY',
  displayName: 'Face Quality Assessment',
  kind: 'service',
  description:
    "Judges the newest live capture of Face Key by the face engine's figures: one face, its size (pixels and share of the image), its pose (yaw, pitch, roll), its sharpness and its lighting, each a measured figure with the threshold it was judged by, in the check `_checks.faces.{Face Key}.quality` and in `userdata/checks` as `{Face Key}.quality`. A capture that falls short raises \"Failed Face Quality\" (its route usually leads back to the capture).",
  inputs: [{ ...key('Face Key', 'face1', 'The Capture Face Image step whose newest capture is judged.'), family: { name: 'faceKey' } }],
  rules: [],
  outputs: [{ name: 'Quality check', variable: '_checks.faces.{Face Key}.quality', description: '{result: "PASS" | "FAIL", figures: {...}, thresholds: {...}, problems: [...]}' }],
  errorEvents: [
    {
      name: 'Failed Face Quality',
      aslError: 'FaceQualityFailed',
      code: 'failedFaceQuality',
      description: 'No live capture, no face or more than one, or the face too small, turned, blurred, too dark or too bright.',
    },
  ],
  family: { beans: ['checkFaceQualityV1'], palette: 'CFQ01' },
} as const satisfies ActivitySpec;
