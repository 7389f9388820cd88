import { key, stepTimeout, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'SELECT_ADDITIONAL_DOCUMENT_TYPE_V2',
  displayName: 'Select Additional Document Type V2',
  kind: 'user',
  description:
    'The end user chooses which additional document (a utility bill, a birth certificate, ...) to provide next, from the Additional Documents configuration: required ones first. Once the requirements are met the end user may say they are finished instead. Capture Additional Document v3 then takes its pages; Additional Capture Decider says whether to come back here.',
  inputs: [
    { ...key('Add Doc Key', 'addDoc1', 'Where the additional documents are kept (`_additionalDocuments.{Add Doc Key}`); the capture and decider steps name the same key.'), family: { name: 'addDocKey' } },
    {
      name: 'Additional Documents',
      type: 'S',
      required: true,
      check: 'additionalDocuments',
      description:
        'The documents offered, as JSON: {"additionalDocuments": {"<id>": {"id": "<id>", "required": true, "title": ..., "subtitle": ..., "instructions": [...], "pages": {"bounded": true, "minPages": 1, "maxPages": 2}}}, "requirements": {"minAdditionalDocuments": 1}}. Texts are plain or by language ({"values": {"en": "..."}}). Pages from 1 to 20 (maxPages -1: up to 20); ids match their keys. Checked at publish.',
      family: { name: 'additionalDocuments' },
    },
    stepTimeout,
  ],
  rules: [],
  outputs: [
    { name: 'Selected document', variable: '_additionalDocuments.{Add Doc Key}.selected', description: 'The id of the document chosen, captured next.' },
    { name: 'Finished', variable: '_additionalDocuments.{Add Doc Key}.finished', description: 'True when the end user said they have no more documents to give.' },
    { name: 'Capture finished', variable: 'vars._additionalCaptureFinished', description: 'True when the end user said finished (a gateway skips the capture on it), false when a document was chosen.' },
  ],
  errorEvents: [],
  family: { beans: ['selectAdditionalDocumentTypeV2'] },
} as const satisfies ActivitySpec;
