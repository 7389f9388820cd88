import { key, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'EXTERNAL_SOURCE_FACE_MATCH_V1',
  displayName: 'External Source Face Match v1',
  kind: 'service',
  description:
    "Matches the face image uploaded from outside the journey against the live face of the Capture Face Image step: the similarity and the engine's threshold go into the check, " +
    'a failed match raises "Failed face to face match" (or "Exceed face match count" once failed attempts exceed Max Attempts), and an upload with no usable face raises "Failed face template generation".',
  inputs: [
    key('External Image Key', undefined, 'The image key of the external upload.'),
    key('Live Face Key', 'face1', 'The Face Key of the Capture Face Image step.'),
    {
      name: 'Max Attempts',
      type: 'I',
      required: false,
      default: 3,
      min: 1,
      max: 100,
      description: 'Failed attempts beyond this raise "Exceed face match count". An attempt is one pair of images: the same pair compared again does not count twice.',
    },
  ],
  rules: [],
  outputs: [{ name: 'Face match check', variable: '_checks.faceMatch', description: '{result: "PASS", similarity, threshold, ...}' }],
  errorEvents: [
    {
      name: 'Exceed face match count',
      aslError: 'FaceMatchCountExceeded', code: 'exceedFaceMatchCount',
      description: 'Failed attempts exceed Max Attempts.',
    },
    { name: 'Failed face to face match', aslError: 'FaceMatchFailed', code: 'failedFaceMatch', description: "The faces' similarity is below the engine's threshold." },
    {
      name: 'Failed face template generation',
      aslError: 'FaceTemplateGenerationFailed', code: 'failedFaceTemplateGeneration',
      description: 'Nothing was uploaded, or the upload is not a JPEG or PNG of at most 5 MiB with exactly one face, or the step has no live capture to compare.',
    },
  ],
  family: { beans: ['externalSourceFaceMatchV1'] },
} as const satisfies ActivitySpec;
