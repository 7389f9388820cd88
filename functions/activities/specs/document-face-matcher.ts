import { docKey, exceptionOnMaxAttempts, maxAttempts } from '../document-spec.js';
import { key, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'DOCUMENT_FACE_MATCHER',
  displayName: 'Document to Face Matching',
  kind: 'service',
  description:
    "Compares the portrait on the captured document with the live face of the Capture Face Image step, through the face engine: the similarity and both thresholds go into the check `_checks.documents.{Document Key}.faceMatch`. Below Face Match Threshold raises \"Failed Document Face Matching\" (\"Exceeded Failed Document Face Matching\" once failed attempts exceed Max Attempts).",
  inputs: [
    docKey,
    { ...key('Face Key', 'face1', 'The Face Key of the Capture Face Image step.'), family: { name: 'faceKey' } },
    {
      name: 'Face Match Threshold',
      type: 'N',
      required: false,
      min: 0,
      max: 1,
      description: "The similarity (0 to 1) at or above which the faces match. Not given: the face engine's own threshold for a document's portrait (docs/documents.md, \"Document to face\"). 1 bypasses the match, as the family's files write it (`${idv.config.docAuthBypass > \"\" ? 1 : 0.34}`): the check is recorded as BYPASSED and the step passes.",
      family: { name: 'threshold' },
    },
    {
      name: 'Internal Face Match Threshold',
      type: 'N',
      required: false,
      min: 0,
      max: 1,
      description: 'A second, lower threshold: a similarity between it and Face Match Threshold is recorded as REVIEW (the step passes; the decider and reviewers see it). Not given: no review band.',
      family: { name: 'internalThreshold' },
    },
    maxAttempts,
    exceptionOnMaxAttempts,
  ],
  rules: [],
  outputs: [{ name: 'Face match check', variable: '_checks.documents.{Document Key}.faceMatch', description: '{result: "PASS" | "REVIEW" | "FAIL", similarity, threshold, internalThreshold, engine}' }],
  errorEvents: [
    { name: 'Failed Document Face Matching', aslError: 'DocumentFaceMatchFailed', code: 'failedDocumentFaceMatching', description: "The similarity is below the threshold, or no face was found on the document or in the live capture." },
    { name: 'Exceeded Failed Document Face Matching', aslError: 'DocumentFaceMatchAttemptsExceeded', code: 'exceededFailedDocumentFaceMatching', description: 'Failed attempts exceed Max Attempts (with Exception On Max Attempts Exceeded).' },
  ],
  family: { beans: ['documentFaceMatcherV1'], palette: 'FMG01' },
} as const satisfies ActivitySpec;
