import { s, stepTimeout, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'GENERIC_USER_TASK',
  displayName: 'Generic User Task',
  kind: 'user',
  description:
    "The family's generic user step, which shows the screen it names (UI Component ID). The one this deployment has is `preview`, " +
    "Confirm Image: the end user sees the journey's last capture (Starting Component ID `face-capture`, the default: the newest face " +
    'capture; `document-capture`: the document image, or a note that there is none) and confirms it ("Use this photo") or asks for ' +
    'it again ("Take it again"). The step sets the process variables `photoConfirmed` and `_photoConfirmed` (`documentConfirmed` and ' +
    '`_documentConfirmed` for a document) to true or false; a gateway routes a retake back to the capture. Any other screen shows the ' +
    'page saying the step cannot be completed here.',
  inputs: [
    {
      ...s('Document Key', false, undefined, 'The document whose image a `document-capture` preview shows (`${idv.documentKey}`).'),
      family: { name: 'docKey' },
    },
    stepTimeout,
  ],
  rules: [],
  outputs: [
    {
      name: 'Photo confirmed',
      variable: 'vars.photoConfirmed',
      description: 'A `face-capture` preview: true (Use this photo) or false (Take it again); `vars._photoConfirmed` too.',
    },
    {
      name: 'Document confirmed',
      variable: 'vars.documentConfirmed',
      description: 'A `document-capture` preview: true or false; `vars._documentConfirmed` too.',
    },
  ],
  errorEvents: [],
  family: { beans: ['genericUserTaskV1'] },
} as const satisfies ActivitySpec;
