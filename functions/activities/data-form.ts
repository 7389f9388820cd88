import { lookup, referencePath, templatePath } from '../../statemachines/references.js';
import { keyedComponents, type DataForm } from '../../statemachines/forms.js';
import { formValueOf, validateFormSubmission } from '../journey/forms.js';
import { ACTION_FIELD, renderDataForm } from '../journey/screens/data-form.js';
import { journeyUrl } from '../journey/screen-context.js';
import { countRefusedSubmission, StepNotWaitingError } from '../journey/steps.js';
import { findFormVersion } from '../process-manager/forms/form-references.js';
import { ActivityError, type ActivityAccess, type ActivityDeps, type Screens, type StepBegin, type StepView, type Submission , activityError } from './contract.js';
import { key, s } from './spec.js';
import { own } from '../shared/own.js';
import { spec } from './specs/data-form.js';

/** Reads a form stored by name and version when the step starts. */
export const aws = { table: ['GetItem', 'Query'] } as const satisfies ActivityAccess;

const MAX_ATTEMPTS_EXCEEDED = spec.errorEvents[0].aslError;
const RETAKE = spec.errorEvents[1].aslError;

/**
 * The form a step shows, read once when it starts: the inline one, or the stored version it
 * names (any status but ARCHIVED; see process-manager/forms/form-references.ts). The step records it
 * with its inputs, so its page and its submission judge against that very form.
 */
export async function stepForm(
  { customDataForms }: Pick<ActivityDeps, 'customDataForms'>,
  tenantId: string,
  inputs: { readonly Form?: DataForm | undefined; readonly 'Data form name'?: string | undefined; readonly 'Data form version'?: number | undefined }): Promise<DataForm> {
  if (inputs.Form) return inputs.Form;
  const name = inputs['Data form name'];
  const version = inputs['Data form version'];
  if (name === undefined) throw activityError(spec, 'MissingInput', 'Data form name is needed when there is no inline Form.');
  // No version: the latest DEPLOYED_ACTIVE one (the family's empty Data form version).
  const found = await findFormVersion(customDataForms, tenantId, name, version);
  const which = version === undefined ? 'has no DEPLOYED_ACTIVE version' : `version ${version}`;
  switch (found.outcome) {
    case 'found':
      return found.form;
    case 'missing':
      throw activityError(spec, 'DataFormNotFound', version === undefined ? `Data form "${name}" ${which}.` : `Data form "${name}" ${which} does not exist.`);
    case 'archived':
      throw activityError(spec, 'DataFormArchived', `Data form "${name}" version ${version} is ARCHIVED.`);
    case 'unreadable':
      throw activityError(spec, 'DataFormUnreadable', `Data form "${name}" version ${found.record.version} cannot be read: ${found.problems.slice(0, 3).join('; ')}.`);
  }
}

export const begin: StepBegin<typeof spec> = async ({ inputs, tenantId, deps }) => ({ ...inputs, Form: await stepForm(deps, tenantId, inputs) });

/** The form the step recorded when it began. */
export function recordedForm(view: { step: { inputs: Record<string, unknown> } }): DataForm {
  const form = view.step.inputs.Form as DataForm | undefined;
  if (!form) throw new StepNotWaitingError('This step has no data form.');
  return form;
}

/** A value of the journey's data a field can show: a string, number or boolean; an object or a list shows nothing. */
const isShowable = (value: unknown) => value === null || typeof value !== 'object';

/**
 * A form's starting values, by answer key (statemachines/forms.ts `answerKeys`), as the page
 * shows them: its defaults, with a whole `${a.b}` reference or `{{processvar.a.b}}` template
 * read from the journey's data (references.ts `lookup`; nothing there, or an object or a list,
 * shows an empty field), and a default given per language in the page's.
 */
export function formDefaults(form: DataForm, state: unknown, lang = 'en'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { c, key } of keyedComponents(form)) {
    if (c.default == null) continue;
    const path = typeof c.default === 'string' ? (referencePath(c.default) ?? templatePath(c.default)) : undefined;
    const value = path !== undefined ? lookup(state, path) : c.default;
    if (path !== undefined && !isShowable(value)) continue;
    const shown = formValueOf(c, value, lang);
    if (shown !== undefined) out[key] = shown;
  }
  return out;
}

/**
 * What the journey already holds under the step's `Form data Key` (an earlier visit of this
 * step, or an earlier step keeping its data there), by answer key, shown over the defaults: a retake comes back
 * to what was entered, and a read-only confirmation under the same key shows it.
 */
export function keptValues(form: DataForm, state: unknown, dataKey: string, lang = 'en'): Record<string, string> {
  const kept = own((state as { vars?: Record<string, unknown> } | undefined)?.vars, dataKey);
  if (kept === null || typeof kept !== 'object' || Array.isArray(kept)) return {};
  const out: Record<string, string> = {};
  for (const { c, key } of keyedComponents(form)) {
    const value = own(kept as Record<string, unknown>, key);
    const shown = value == null || !isShowable(value) ? undefined : formValueOf(c, value, lang);
    if (shown !== undefined) out[key] = shown;
  }
  return out;
}

type View = StepView<typeof spec>;

/** The values a step's page starts with: the form's defaults, then what the journey keeps under its key. */
function shownValues(view: View): Record<string, string> {
  const form = recordedForm(view);
  return { ...formDefaults(form, view.step.state, view.lang), ...keptValues(form, view.step.state, view.inputs['Form data Key'], view.lang) };
}

function formPage(view: View, values: Record<string, string | undefined>, errors?: Record<string, string>, attemptsLeft?: number) {
  const { inputs } = view;
  return renderDataForm({
    form: recordedForm(view),
    lang: view.lang,
    action: journeyUrl(view.record, view.capability, view.lang, view.step.activityId),
    values,
    ...(errors ? { errors } : {}),
    readOnly: inputs['Read Only'] === true,
    hideButtons: inputs['Hide Buttons'] === true,
    retake: inputs['Show Retake Button'] === true,
    ...(attemptsLeft !== undefined ? { attemptsLeft } : {}),
    chrome: view.chrome,
  });
}

export const screens: Screens<typeof spec> = {
  component: 'data-form',
  render: {
    // After a refused submission (kept on the step), its messages and what was entered.
    'data-form': (view) =>
      view.refusal
        ? formPage(view, { ...shownValues(view), ...view.refusal.values }, view.refusal.errors, view.refusal.attemptsLeft)
        : formPage(view, shownValues(view)),
  },
};

/**
 * Checked on the server against the step's form. Refused, the step's page shows the
 * messages and what was typed (and, under Max Attempts, the attempts left; the last refusal
 * raises Max Attempts Exceeded instead). Accepted, the values go to the session under
 * `Form data Key`. Read-only fields keep the values shown, whatever is posted. Retake (only
 * when the page offers it) raises the Retake error event.
 */
export const submission: Submission<typeof spec> = {
  part: 'form',
  async submit(view, { body = {} }, now) {
    const { inputs } = view;
    const form = recordedForm(view);
    const offersRetake = inputs['Show Retake Button'] === true && inputs['Hide Buttons'] !== true;
    if (own(body, ACTION_FIELD) === 'retake' && offersRetake) {
      return { fail: { error: RETAKE, cause: `The end user chose Retake at ${view.step.activityId}.` } };
    }
    const defaults = shownValues(view);
    const outcome = await validateFormSubmission(form, body, view.lang, now, { defaults, readOnly: inputs['Read Only'] === true });
    if (!outcome.ok) {
      const max = inputs['Max Attempts'];
      const refused = { code: 'FORM_INVALID', errors: outcome.errors, values: outcome.values };
      if (max === undefined) return { refused };
      const count = await countRefusedSubmission(view.record, view.step.activityId);
      if (count >= max) {
        return { fail: { error: MAX_ATTEMPTS_EXCEEDED, cause: `${count} submissions of ${view.step.activityId} were refused (Max Attempts ${max}).` } };
      }
      return { refused: { ...refused, attemptsLeft: max - count } };
    }
    const dataKey = inputs['Form data Key'];
    return { complete: { result: { vars: { [dataKey]: outcome.values } }, values: outcome.values, dataKey } };
  },
};
