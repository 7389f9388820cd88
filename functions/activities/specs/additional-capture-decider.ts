import { key, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'ADDITIONAL_CAPTURE_DECIDER',
  displayName: 'Additional Capture Decider',
  kind: 'service',
  description:
    'Says where an additional documents loop goes: `_additionalCaptureFinished` when the end user said they are finished or every document offered is captured, `_additionalDocsFinished` when the requirements are met (every required document and at least minAdditionalDocuments). Gateways route back to Select Additional Document Type V2 or on.',
  inputs: [
    { ...key('Add Doc Key', 'addDoc1', 'The additional documents judged (`_additionalDocuments.{Add Doc Key}`).'), family: { name: 'addDocKey' } },
    {
      name: 'Additional Documents',
      type: 'S',
      required: true,
      check: 'additionalDocuments',
      description: 'The same configuration as the selection step\'s. Checked at publish.',
      family: { name: 'additionalDocuments' },
    },
  ],
  rules: [],
  outputs: [
    { name: 'Capture finished', variable: 'vars._additionalCaptureFinished', description: 'True when nothing more will be asked: the end user said finished, or every document is captured.' },
    { name: 'Documents finished', variable: 'vars._additionalDocsFinished', description: 'True when the requirements are met.' },
  ],
  errorEvents: [],
  family: { beans: ['additionalCaptureDecider'] },
} as const satisfies ActivitySpec;
