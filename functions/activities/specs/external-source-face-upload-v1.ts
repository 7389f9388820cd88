import { key, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'EXTERNAL_SOURCE_FACE_UPLOAD_V1',
  displayName: 'External Source Face Upload v1',
  kind: 'service',
  description:
    'Makes a pre-signed upload URL for a face image from outside the journey; the URL goes to the process variable named by Output Variable and its headers to {Output Variable}_headers.',
  inputs: [
    key('Image Key', undefined, 'The image key (as in processInstanceInit.externalSources.faceUploads).'),
    { name: 'Image Format', type: 'S', required: false, default: 'JPEG', enum: ['JPEG', 'PNG'] },
    key('Output Variable', 'uploadURL'),
  ],
  rules: [],
  outputs: [
    { name: 'Upload URL', variable: 'vars.{Output Variable}' },
    { name: 'Upload headers', variable: 'vars.{Output Variable}_headers' },
  ],
  errorEvents: [],
  family: { beans: ['externalSourceFaceUploadV1'] },
} as const satisfies ActivitySpec;
