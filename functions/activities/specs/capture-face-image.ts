import { key, stepTimeout, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'CAPTURE_FACE_IMAGE',
  displayName: 'Capture Face Image',
  kind: 'user',
  description:
    "Captures the end user's live face image and judges it by its face: exactly one face, large, frontal, sharp and lit enough, or the page says what to fix and the step waits; then a passive liveness score, which the check records (PASS, REVIEW or FAIL) for the decider.",
  inputs: [
    key('Face Key', 'face1', 'Where the capture and its check are kept.'),
    {
      name: 'Image Format',
      type: 'S',
      required: false,
      default: 'JPEG',
      enum: ['JPEG', 'PNG'],
      description: "The format the page's camera takes the photo in (a chosen file may be either).",
      family: { name: 'faceImageFormat', label: 'Face Image Format' },
    },
    {
      name: 'Camera Width',
      type: 'I',
      required: false,
      default: 1280,
      min: 160,
      max: 7680,
      description: 'The width, in pixels, the page asks the camera for (the camera gives the nearest it has).',
      family: { name: 'cameraWidth' },
    },
    {
      name: 'Camera Height',
      type: 'I',
      required: false,
      default: 720,
      min: 120,
      max: 4320,
      description: 'The height, in pixels, the page asks the camera for.',
      family: { name: 'cameraHeight' },
    },
    {
      name: 'Timeout (in seconds)',
      type: 'I',
      required: false,
      default: 60,
      min: 5,
      max: 3600,
      description: "How long the page's camera stays on without a photo taken: then it stops, and the end user can start it again or choose a file. Not the step's timeout.",
      family: { name: 'timeoutInSeconds' },
    },
    stepTimeout,
  ],
  rules: [],
  outputs: [
    { name: 'Face captures', variable: '_faces.{Face Key}.captures' },
    { name: 'Face capture check', variable: '_checks.{Face Key}', description: '{result: "PASS" | "FAIL" | "REVIEW", ...}' },
  ],
  errorEvents: [],
  family: { beans: ['captureFaceImageV1'] },
} as const satisfies ActivitySpec;
