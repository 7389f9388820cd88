import { key, stepTimeout, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'CAPTURE_ADDITIONAL_DOCUMENT_V3',
  displayName: 'Capture Additional Document v3',
  kind: 'user',
  description:
    'Takes the pages of the additional document chosen under Add Doc Key (Select Additional Document Type V2): photos (JPEG or PNG, each checked as a document image is) or one PDF (judged by its bytes: whole, not encrypted, its pages counted), together at most 4 MiB, within the pages the configuration allows. Kept encrypted with the instance and listed in its user data. The end user may instead go back and choose another document.',
  inputs: [
    {
      ...key('Add Doc Key', 'addDoc1', 'The additional documents (as Select Additional Document Type V2 kept them); the pages are kept under `_additionalDocuments.{Add Doc Key}.documents`.'),
      family: { name: 'addDocKey' },
    },
    {
      name: 'Additional Documents',
      type: 'S',
      required: true,
      check: 'additionalDocuments',
      description: 'The same configuration as the selection step\'s (its pages bounds are judged here). Checked at publish.',
      family: { name: 'additionalDocuments' },
    },
    stepTimeout,
  ],
  rules: [],
  outputs: [
    { name: 'Document pages', variable: '_additionalDocuments.{Add Doc Key}.documents.{id}', description: '{captureId, format, pageCount, pages: [{captureId, page, format, bytes, sha256, width, height}], capturedAt}: a new capture of a document replaces the earlier one.' },
    { name: 'Change document', variable: 'vars.changeDocument', description: 'True when the end user chose another document instead; false after a capture.' },
  ],
  errorEvents: [],
  family: { beans: ['captureAdditionalDocumentImageV3'] },
} as const satisfies ActivitySpec;
