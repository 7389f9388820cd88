import type { ProcessInstanceRecord } from '../process-manager/instances.js';
import { isFinal } from '../process-manager/status.js';
import { lookup, referencePath } from '../../statemachines/references.js';
import type { DataForm } from '../../statemachines/definition.js';
import { type Language, renderDataForm, renderDone, renderGone, renderTrouble, renderUnsupported, renderWaiting } from './render.js';

export function journeyUrl(record: ProcessInstanceRecord, capability: string, lang: Language, activityId?: string): string {
  const q = `?c=${encodeURIComponent(capability)}&lang=${lang}`;
  return activityId ? `/journey/${record.id}/steps/${encodeURIComponent(activityId)}${q}` : `/journey/${record.id}${q}`;
}

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

/** The page for where the journey is: its waiting step, its end, or a moment in between. */
export function journeyPage(record: ProcessInstanceRecord, capability: string, lang: Language): string {
  // A journey that has ended shows its end, even if a step it waited at (one that timed out) is still recorded.
  const step = isFinal(record.status) ? undefined : record.currentStep;
  if (step) {
    if (step.activityType === 'DATA_FORM') {
      const form = step.inputs.Form as DataForm;
      return renderDataForm({
        form,
        lang,
        action: journeyUrl(record, capability, lang, step.activityId),
        values: formDefaults(form, step.state),
      });
    }
    return renderUnsupported(lang);
  }
  switch (record.status) {
    case 'COMPLETED_ENDED_SUCCESS':
    case 'COMPLETED_ENDED_ERROR':
    case 'REVIEW':
      return renderDone({ lang, redirectUrl: record.parameters._redirectUrl });
    case 'COMPLETED_TERMINATED':
      return renderGone(lang);
    case 'COMPLETED_PROCESS_ERROR':
      return renderTrouble(lang);
    default:
      return renderWaiting(lang);
  }
}
