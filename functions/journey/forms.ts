import { resolveDateBound, type DataForm, type FormComponent } from '../../statemachines/definition.js';
import { localized } from './layout.js';

export { localized };

const FALLBACK = {
  missing: { values: { en: 'This field is required.', de: 'Dieses Feld ist erforderlich.' } },
  invalid: { values: { en: 'This value is not valid.', de: 'Dieser Wert ist ungültig.' } },
};

export type FormValue = string | number | boolean;

export type FormOutcome =
  | { ok: true; values: Record<string, FormValue> }
  /** Per component id, the message to show next to it; `values` keeps what was typed. */
  | { ok: false; errors: Record<string, string>; values: Record<string, string> };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9 ()-]{5,20}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function checkComponent(c: FormComponent, raw: string | undefined, today: Date): { value?: FormValue; problem?: 'missing' | 'invalid' } {
  const v = c.validate ?? {};
  const text = (raw ?? '').trim();
  if (c.type === 'checkbox') {
    const checked = raw === 'on' || raw === 'true';
    if (v.required && !checked) return { problem: 'missing' };
    return { value: checked };
  }
  if (text === '') return v.required ? { problem: 'missing' } : {};
  switch (c.type) {
    case 'number': {
      if (!/^-?\d+(\.\d+)?$/.test(text)) return { problem: 'invalid' };
      const n = Number(text);
      if ((v.min !== undefined && n < v.min) || (v.max !== undefined && n > v.max)) return { problem: 'invalid' };
      return { value: n };
    }
    case 'date': {
      if (!ISO_DATE.test(text) || new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) !== text) return { problem: 'invalid' };
      if (v.minDate && text < resolveDateBound(v.minDate, today)) return { problem: 'invalid' };
      if (v.maxDate && text > resolveDateBound(v.maxDate, today)) return { problem: 'invalid' };
      return { value: text };
    }
    case 'select':
      return c.options?.some((o) => o.value === text) ? { value: text } : { problem: 'invalid' };
    default: {
      const length = [...text].length;
      if ((v.minLength !== undefined && length < v.minLength) || (v.maxLength !== undefined && length > v.maxLength)) {
        return { problem: 'invalid' };
      }
      if (c.type === 'email' && !EMAIL.test(text)) return { problem: 'invalid' };
      if (c.type === 'phoneNumber' && !PHONE.test(text)) return { problem: 'invalid' };
      if (v.pattern && !new RegExp(`^(?:${v.pattern})$`, 'u').test(text)) return { problem: 'invalid' };
      return { value: text };
    }
  }
}

/**
 * Checks a submitted data form against its definition, on the server: every component's type,
 * required flag and rules. Refusals carry the form's own messages in the end user's language,
 * and the values as typed, so a re-rendered page loses nothing. Fields not in the form are
 * ignored (a page cannot add data the relying party did not ask for).
 */
export function validateFormSubmission(form: DataForm, submitted: Record<string, string | undefined>, lang: string, today: Date): FormOutcome {
  const errors: Record<string, string> = {};
  const values: Record<string, FormValue> = {};
  const typed: Record<string, string> = {};
  for (const c of form.components) {
    const raw = submitted[c.id];
    if (raw !== undefined) typed[c.id] = raw.slice(0, 10_000);
    const { value, problem } = checkComponent(c, raw, today);
    if (problem) {
      const message = problem === 'missing' ? c.validate?.missingMessage ?? FALLBACK.missing : c.validate?.invalidMessage ?? FALLBACK.invalid;
      errors[c.id] = localized(message, lang);
    } else if (value !== undefined) {
      values[c.id] = value;
    }
  }
  return Object.keys(errors).length ? { ok: false, errors, values: typed } : { ok: true, values };
}
