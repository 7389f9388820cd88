import { key, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'FACE_TEMPLATE_GENERATION',
  displayName: 'Face Template Generation',
  kind: 'service',
  description:
    "Makes a face template of the newest live capture of Face Key: the face recognition model's descriptor of its one face (the embedded model's FaceRes, 1,024 values, on either engine), kept with the instance beside the image (encrypted, deleted with it), never in the journey's state. The state gets its reference `_faces.{Face Key}.template` (capture, model, size, SHA-256) and the check `_checks.faces.{Face Key}.template`; `userdata/checks` has `{Face Key}.template`. No live capture, an image the engine refuses, or no face or more than one raises \"Failed Template Generation\".",
  inputs: [{ ...key('Face Key', 'face1', 'The Capture Face Image step whose newest capture the template is made of.'), family: { name: 'faceKey' } }],
  rules: [],
  outputs: [
    { name: 'Template', variable: '_faces.{Face Key}.template', description: '{captureId, model, dimensions, sha256, createdAt}: where the template is, never the template itself' },
    { name: 'Template check', variable: '_checks.faces.{Face Key}.template', description: '{result: "PASS" | "FAIL", model, dimensions, faceCount, problem?}' },
  ],
  errorEvents: [
    {
      name: 'Failed Template Generation',
      aslError: 'FaceTemplateGenerationFailed',
      code: 'failedTemplateGeneration',
      description: 'No live capture, an image the engine refuses, or no face or more than one in it.',
    },
  ],
  family: { beans: ['faceTemplateGenerationV1'], palette: 'FTG01' },
} as const satisfies ActivitySpec;
