import { lookup, referencePath } from '../../statemachines/references.js';
import type { DataForm } from '../../statemachines/definition.js';
import { validateFormSubmission } from '../journey/forms.js';
import { renderDataForm } from '../journey/screens/data-form.js';
import { journeyUrl } from '../journey/screen-context.js';
import type { Screens, StepView, Submission } from './contract.js';
import { key, stepTimeout, type ActivitySpec } from './spec.js';

export const spec = {
  type: 'DATA_FORM',
  displayName: 'Data Form',
  kind: 'user',
  description: 'Shows a data form (carried inline in the Form input) and keeps the submitted data.',
  inputs: [
    { name: 'Form', type: 'F', required: true, description: 'The data form JSON itself (inline).' },
    key('Form data Key', 'form1', 'Where the submitted form data is kept.'),
    stepTimeout,
  ],
  rules: [],
  outputs: [{ name: 'Form data', variable: 'vars.{Form data Key}' }],
  errorEvents: [],
} as const satisfies ActivitySpec;

export const aliases = ['customDataFormV1'] as const;

/** A form's starting values: its defaults, with `${...}` references read from the session. */
export function formDefaults(form: DataForm, state: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of form.components) {
    if (c.default === undefined) continue;
    const path = typeof c.default === 'string' ? referencePath(c.default) : undefined;
    const value = path !== undefined ? lookup(state, path) : c.default;
    if (value !== undefined && value !== null) out[c.id] = c.type === 'checkbox' ? (value === true ? 'on' : '') : String(value);
  }
  return out;
}

const formPage = (view: StepView<typeof spec>, values: Record<string, string | undefined>, errors?: Record<string, string>) =>
  renderDataForm({
    form: view.inputs.Form,
    lang: view.lang,
    action: journeyUrl(view.record, view.capability, view.lang, view.step.activityId),
    values,
    ...(errors ? { errors } : {}),
  });

export const screens: Screens<typeof spec> = {
  component: 'data-form',
  render: { 'data-form': (view) => formPage(view, formDefaults(view.inputs.Form, view.step.state)) },
};

/**
 * Checked on the server against the step's form. Refused, the page comes back with the
 * messages and what was typed; accepted, the values go to the session under `Form data Key`.
 */
export const submission: Submission<typeof spec> = {
  part: 'form',
  async submit(view, { body }, now) {
    const outcome = validateFormSubmission(view.inputs.Form, body ?? {}, view.lang, now);
    if (!outcome.ok) return { page: formPage(view, outcome.values, outcome.errors) };
    const dataKey = view.inputs['Form data Key'];
    return { complete: { result: { vars: { [dataKey]: outcome.values } }, values: outcome.values, dataKey } };
  },
};
