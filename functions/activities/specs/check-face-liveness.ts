import { key, type ActivitySpec } from '../spec.js';
import { exceptionOnMaxAttempts, maxAttempts } from '../document-spec.js';

export const spec = {
  type: 'CHECK_FACE_LIVENESS',
  displayName: 'Face Liveness',
  kind: 'service',
  description:
    "Judges the liveness of the newest live capture of Face Key against Threshold: the score its Capture Face Image step measured (ACTIVE: 1 for a passed challenge, 0.5 for a near miss sent to review, 0 for a failed one; PASSIVE: the embedded model's single-image score, a weak signal). The check `_checks.faces.{Face Key}.liveness` (and `{Face Key}.liveness` in `userdata/checks`) holds the score, the threshold, the method and the attempts; `faceLivenessFailed` is set true or false (the family's output parameter `_faceLivenessFailed` reads it). A score under Threshold raises \"Failed Face Liveness\" (its route usually leads back to the capture, for a new challenge), or \"Exceed Failed Liveness Count\" once failed attempts exceed Max Attempts.",
  inputs: [
    { ...key('Face Key', 'face1', 'The Capture Face Image step whose newest capture is judged.'), family: { name: 'faceKey' } },
    {
      name: 'Threshold',
      type: 'N',
      required: false,
      default: 0.5,
      min: 0,
      max: 1,
      description: 'The liveness score (0 to 1) at or above which the capture is live. 0 passes every capture (the family writes `${idv.config.docAuthBypass > "" ? 0 : 0.5}` to turn it off in test journeys).',
      family: { name: 'threshold' },
    },
    maxAttempts,
    exceptionOnMaxAttempts,
    {
      name: 'Pipeline',
      type: 'S',
      required: false,
      description: "The family's liveness vendor pipeline (`aphrodite` in its files): recorded in the check; this service judges with its own engine.",
      family: { name: 'pipeline' },
    },
    {
      name: 'URL Template',
      type: 'S',
      required: false,
      references: false,
      description: "The family's liveness vendor endpoint (`/api/idlive-face-v1-36/check_liveness`): recorded in the check, never called (this service judges with its own engine).",
      family: { name: 'urlTemplate' },
    },
  ],
  rules: [],
  outputs: [
    { name: 'Liveness check', variable: '_checks.faces.{Face Key}.liveness', description: '{result: "PASS" | "REVIEW" | "FAIL", score, threshold, method, attempts}' },
    { name: 'Liveness failed', variable: 'vars.faceLivenessFailed', description: 'true when the score is under Threshold' },
  ],
  errorEvents: [
    {
      name: 'Failed Face Liveness',
      aslError: 'FaceLivenessFailed',
      code: 'failedFaceLiveness',
      description: 'No live capture, or its liveness score is under Threshold, with attempts left.',
    },
    {
      name: 'Exceed Failed Liveness Count',
      aslError: 'FaceLivenessAttemptsExceeded',
      code: 'exceedFailedLivenessCount',
      description: 'Failed attempts exceeded Max Attempts (under Exception On Max Attempts Exceeded).',
    },
  ],
  family: { beans: ['checkFaceLivenessV1'], palette: 'FLA01' },
} as const satisfies ActivitySpec;
