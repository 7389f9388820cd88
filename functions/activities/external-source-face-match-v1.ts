import { key, type ActivitySpec } from './spec.js';

export const spec = {
  type: 'EXTERNAL_SOURCE_FACE_MATCH_V1',
  displayName: 'External Source Face Match v1',
  kind: 'service',
  description: 'Matches the externally uploaded face image against the live face captured in the instance.',
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
      description: 'Failed attempts beyond this raise "Exceed face match count".',
    },
  ],
  rules: [],
  outputs: [{ name: 'Face match check', variable: '_checks.faceMatch' }],
  errorEvents: [
    {
      name: 'Exceed face match count',
      aslError: 'FaceMatchCountExceeded', code: 'exceedFaceMatchCount',
      description: 'Failed attempts exceed Max Attempts.',
    },
    { name: 'Failed face to face match', aslError: 'FaceMatchFailed', code: 'failedFaceMatch' },
    { name: 'Failed face template generation', aslError: 'FaceTemplateGenerationFailed', code: 'failedFaceTemplateGeneration' },
  ],
} as const satisfies ActivitySpec;

export const aliases = ['externalSourceFaceMatchV1'] as const;

export const notRunnable = 'no face engine compares faces yet';
