import { key, s, stepTimeout, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'DATA_FORM',
  displayName: 'Data Form',
  kind: 'user',
  description:
    'Shows a data form, inline (Form) or stored by name and version (Data form name, Data form version), and keeps the submitted data under Form data Key. Read Only makes it a confirmation screen, Hide Buttons shows it without buttons, Show Retake Button adds a Retake button that raises the Retake error event, and Max Attempts bounds the refused submissions.',
  inputs: [
    { name: 'Form', type: 'F', required: false, description: 'The data form itself, inline: the same format as a stored form. Either this or Data form name and version.' },
    {
      ...s('Data form name', false, undefined, 'The name of a form stored with /api/process-manager/customDataForms (any status but ARCHIVED).'),
      family: { name: 'dataFormName' },
    },
    {
      name: 'Data form version',
      type: 'I',
      required: false,
      min: 1,
      description: 'The version of the named form; empty: the latest DEPLOYED_ACTIVE version when the step starts.',
      family: { name: 'dataFormVersion', type: 'STRING' },
    },
    key('Form data Key', 'form1', 'Where the submitted form data is kept.'),
    {
      name: 'Max Attempts',
      type: 'I',
      required: false,
      min: 1,
      max: 100,
      description: 'How many refused submissions the end user has: the last one raises "Max Attempts Exceeded". Unlimited when not given.',
      family: { name: 'maxAttempts' },
    },
    {
      name: 'Read Only',
      type: 'B',
      required: false,
      description: 'Every field is shown with its value and cannot be changed: a confirmation screen. What is kept is the values shown. False when not given.',
      family: { name: 'readOnlyForm', label: 'Readonly' },
    },
    {
      name: 'Hide Buttons',
      type: 'B',
      required: false,
      description: 'The form is shown without its buttons (a screen that only informs; a timer or the step timeout ends it). False when not given.',
    },
    {
      name: 'Show Retake Button',
      type: 'B',
      required: false,
      description: 'A Retake button beside Submit: it raises the "Retake" error event, whose route leads back to an earlier step. Route that event when this is true. False when not given.',
    },
    stepTimeout,
  ],
  rules: [
    { kind: 'groups', groups: [['Form'], ['Data form name']], min: 1, max: 1 },
    { kind: 'requires', input: 'Data form version', requires: 'Data form name' },
  ],
  outputs: [{ name: 'Form data', variable: 'vars.{Form data Key}' }],
  errorEvents: [
    {
      name: 'Max Attempts Exceeded',
      aslError: 'DataFormMaxAttemptsExceeded',
      code: 'exceedMaxAttempts',
      familyCode: 'ExceededCustomDataFormRetake',
      description: 'The end user\'s submissions were refused Max Attempts times.',
    },
    { name: 'Retake', aslError: 'DataFormRetake', code: 'retake', description: 'The end user pressed Retake (Show Retake Button).' },
  ],
  failures: ['DataFormNotFound', 'DataFormArchived', 'DataFormUnreadable'],
  family: { displayName: 'Custom Data Form', palette: 'CDF01', beans: ['customDataFormV1'], endBean: 'customDataFormWriterV1' },
} as const satisfies ActivitySpec;
