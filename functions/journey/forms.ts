/**
 * Data forms on the server: the language a form is shown in, the values a page starts from, and
 * the check of a submission against the form, for every input type of the format
 * (statemachines/forms.ts). The browser checks nothing the server relies on: pages are
 * `novalidate`, and this module judges every post.
 */
import {
  DISPLAY_COMPONENT_TYPES,
  choiceList,
  formLanguages,
  isCalendarDate,
  keyedComponents,
  resolveDateBound,
  valuesText,
  type DataForm,
  type FormComponent,
  type LocalizedText,
} from '../../statemachines/forms.js';
import { fill, messages, pickLanguage, type Messages } from './messages/index.js';
import { tenantPatternMatcher, type WholeMatch } from '../shared/tenant-regex.js';
import { own } from '../shared/own.js';
import { phoneNumberParser, type ParsePhoneNumber } from './phone-numbers.js';

export type FormValue = string | number | boolean;

export type FormOutcome =
  | { ok: true; values: Record<string, FormValue> }
  /** Per component id, the message to show next to it; `values` keeps what was typed. */
  | { ok: false; errors: Record<string, string>; values: Record<string, string> };

/**
 * A form's texts for a page: each text in the page's language when it has it (a regional tag
 * by its language), else in the form's first language, else in any it has.
 */
export interface FormTexts {
  /** The language most of the form's texts are shown in: the page's when the form uses it, else the form's first. */
  lang: string;
  text(t: LocalizedText | null | undefined): string;
}

export function formTexts(form: DataForm, pageLang: string): FormTexts {
  const languages = formLanguages(form);
  const base = pageLang.toLowerCase().split('-')[0]!;
  const lang = languages.find((l) => l === pageLang) ?? languages.find((l) => l.toLowerCase().split('-')[0] === base) ?? languages[0] ?? pageLang;
  return {
    lang,
    text(t) {
      if (!t) return '';
      const values = t.values as Record<string, string>;
      const regional = Object.keys(values).find((l) => l.toLowerCase().split('-')[0] === base);
      return own(values, pageLang) ?? own(values, base) ?? (regional ? own(values, regional) : undefined) ?? own(values, lang) ?? Object.values(values)[0] ?? '';
    },
  };
}

/**
 * What a shown component (paragraph, notification, image) says: its `values` as a language map
 * (the family's builder), else its `label`, else a text `default`; in the page's language by
 * the rules of `formTexts`.
 */
export function componentText(c: FormComponent, texts: FormTexts): string {
  const own = valuesText(c) ?? c.label;
  if (own) return texts.text(own);
  if (c.default && typeof c.default === 'object') return texts.text(c.default);
  return typeof c.default === 'string' ? c.default : '';
}

/** The types whose value is typed as text (the others are chosen, ticked or only shown). */
const TYPED = new Set(['text', 'textfield', 'textarea', 'email', 'phone', 'phoneNumber', 'number', 'date']);
const isInput = (c: FormComponent) => !DISPLAY_COMPONENT_TYPES.includes(c.type);

/** Whether a component is shown read-only: the whole form is, or the component says so. */
export const isReadOnly = (c: FormComponent, formReadOnly: boolean) => formReadOnly || c.readOnly === true;

/**
 * A value as a field shows it (a string), from a default or a value in the journey's data: a
 * ticked checkbox is `on`, a per-language default is its text in `lang`. Undefined when there is
 * nothing to show.
 */
export function formValueOf(c: FormComponent, value: unknown, lang: string): string | undefined {
  if (value === undefined || value === null || !isInput(c)) return undefined;
  if (c.type === 'checkbox') return value === true || value === 'true' || value === 'on' ? 'on' : '';
  if (typeof value === 'object') {
    const values = (value as { values?: unknown }).values;
    if (!values || typeof values !== 'object') return undefined;
    const texts = values as Record<string, string>;
    return own(texts, lang) ?? own(texts, lang.split('-')[0]!) ?? Object.values(texts)[0];
  }
  return String(value);
}

/** What is wrong with a value: the form's own message for it if it has one, else the service's. */
type Problem = { own: 'missingMessage' | 'invalidMessage' | 'invalidLengthMessage'; fallback: keyof Messages; n?: number };

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;
const NUMBER = /^-?\d{1,15}([.,]\d{1,15})?$/;

const isPhone = (c: FormComponent) => c.type === 'phone' || c.type === 'phoneNumber';

/** What judges values: the tenant's patterns on RE2, and libphonenumber when the form has a phone field. */
interface Checkers {
  matches: WholeMatch;
  parsePhone?: ParsePhoneNumber;
}

/** One component's value from what was posted: the value to keep, or what is wrong with it. */
function checkComponent(c: FormComponent, raw: string | undefined, today: Date, { matches, parsePhone }: Checkers): { value?: FormValue; problem?: Problem } {
  const v = c.validate ?? {};
  const missing = { problem: { own: 'missingMessage', fallback: 'form_missing' } } as const;
  if (c.type === 'checkbox') {
    const checked = raw === 'on' || raw === 'true';
    if (v.required && !checked) return missing;
    return { value: checked };
  }
  const text = c.type === 'textarea' ? (raw ?? '').replace(/\r\n/g, '\n').trim() : (raw ?? '').trim();
  if (text === '') return v.required ? missing : {};
  const invalid = (fallback: keyof Messages, n?: number) => ({ problem: { own: 'invalidMessage', fallback, ...(n === undefined ? {} : { n }) } as const });

  if (c.type === 'select' || c.type === 'radio') {
    const choice = choiceList(c).find((o) => o.value != null && String(o.value) === text);
    return choice ? { value: choice.value as FormValue } : invalid('form_choice');
  }

  if (TYPED.has(c.type)) {
    const length = [...text].length;
    if (v.minLength != null && length < v.minLength) return { problem: { own: 'invalidLengthMessage', fallback: 'form_tooShort', n: v.minLength } };
    if (v.maxLength != null && length > v.maxLength) return { problem: { own: 'invalidLengthMessage', fallback: 'form_tooLong', n: v.maxLength } };
  }
  switch (c.type) {
    case 'number': {
      if (!NUMBER.test(text)) return invalid('form_number');
      const n = Number(text.replace(',', '.'));
      if (v.min != null && n < v.min) return invalid('form_numberMin', v.min);
      if (v.max != null && n > v.max) return invalid('form_numberMax', v.max);
      return { value: n };
    }
    case 'date': {
      if (!isCalendarDate(text)) return invalid('form_date');
      if (v.minDate != null && text < resolveDateBound(v.minDate, today)) return invalid('form_dateRange');
      if (v.maxDate != null && text > resolveDateBound(v.maxDate, today)) return invalid('form_dateRange');
      return { value: text };
    }
    case 'email':
      return EMAIL.test(text) ? { value: text } : invalid('form_email');
    case 'phone':
    case 'phoneNumber': {
      // libphonenumber's rules (phone-numbers.ts): a national number is read in the form's
      // default country; kept in E.164 (+441234567890), one spelling whatever was typed. Loaded
      // by validateFormSubmission whenever the form has a phone field.
      const region = c.defaultCountry?.toUpperCase();
      const parsed = parsePhone!(text, region ? { regionCode: region } : {});
      return parsed.valid ? { value: parsed.number.e164 } : invalid(region ? 'form_phone' : 'form_phoneIntl');
    }
    default: {
      if (v.pattern != null && !matches(v.pattern, text)) return invalid('form_invalid');
      return { value: text };
    }
  }
}

/**
 * Checks a submitted data form against its definition, on the server: every input component's
 * type, required flag and rules. Each component is read and kept under its answer key
 * (statemachines/forms.ts `answerKeys`: a repeated id's second field is `<id>_2`). Refusals carry the form's own messages in the end user's
 * language (the service's when the form has none), and the values as typed, so a re-rendered
 * page loses nothing. Fields not in the form are ignored (a page cannot add data the relying
 * party did not ask for). Read-only components (`readOnly`, or the whole form) keep the value
 * the page showed (`defaults`), whatever is posted: the end user confirms them, so they are not
 * judged either.
 */
export async function validateFormSubmission(
  form: DataForm,
  submitted: Record<string, string | undefined>,
  lang: string,
  today: Date,
  options: { defaults?: Record<string, string>; readOnly?: boolean } = {},
): Promise<FormOutcome> {
  // The tenant's patterns run on RE2, linear in the end user's input (shared/tenant-regex.ts).
  const checkers: Checkers = {
    matches: await tenantPatternMatcher(),
    // Only a form with a phone field loads libphonenumber (a layer package: see phone-numbers.ts).
    ...(form.components.some(isPhone) ? { parsePhone: await phoneNumberParser() } : {}),
  };
  const texts = formTexts(form, lang);
  const s = messages(pickLanguage(lang));
  const errors: Record<string, string> = {};
  const values: Record<string, FormValue> = {};
  const typed: Record<string, string> = {};
  for (const { c, key } of keyedComponents(form)) {
    if (!isInput(c)) continue;
    if (isReadOnly(c, options.readOnly ?? false)) {
      const shown = own(options.defaults, key);
      if (shown === undefined) continue;
      const { value } = checkComponent({ ...c, validate: null }, shown, today, checkers);
      values[key] = value ?? shown;
      continue;
    }
    const raw = own(submitted, key);
    if (raw !== undefined) typed[key] = raw.slice(0, 10_000);
    const { value, problem } = checkComponent(c, raw, today, checkers);
    if (problem) {
      const own = c.validate?.[problem.own] ?? (problem.own === 'invalidLengthMessage' ? c.validate?.invalidMessage : undefined);
      errors[key] = own ? texts.text(own) : fill(s[problem.fallback], problem.n);
    } else if (value !== undefined) {
      values[key] = value;
    }
  }
  return Object.keys(errors).length ? { ok: false, errors, values: typed } : { ok: true, values };
}

