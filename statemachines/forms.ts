/**
 * The one data form format: the service family's, as its data form designer writes it and its
 * clients upload it (the `resource` of `/api/process-manager/customDataForms`), and as a Data
 * Form activity carries it inline (input `Form`):
 *
 *   {title: {values: {en: ...}}, subtitle, components: [{type, id, index, label, default,
 *    readOnly, values, validate: {required, minLength, maxLength, missingMessage, invalidMessage,
 *    invalidLengthMessage}, defaultCountry, subtype | subType, closeButton, setTimer, src,
 *    fileType, alt, width, ...}], submitButton, version: "1"}
 *
 * Read as a Spring service would read it: every object is loose (members the service does not
 * use are kept, so a form round-trips: the visual builder's `type` and `isValid` on titles and
 * components, a component's `index`, an image's `fileType`), `null` is absent, and numbers and
 * booleans sent as strings ("5", "true") are taken. What the journey relies on is checked: known
 * component types, values of a usable type, bounded lengths, at least one component. A
 * component's `values` is its list of choices (select, radio), or, on a paragraph, notification
 * or image, its text as a language map (`{"en": ..., "de": ...}`). Ids may repeat: each
 * component's values are kept under its answer key (`answerKeys`).
 *
 * The service adds a few members of its own, checked when present: `validate.pattern` (a regular
 * expression a text must match), `validate.min` / `validate.max` (numbers), `validate.minDate` /
 * `validate.maxDate` (dates, absolute or relative to the day: `today-18y`); and `options`, the
 * earlier name of a select's `values`, still read.
 *
 * Zod and the references module only, so the definition (statemachines/), the form API
 * (process-manager) and the journey pages all parse a form with this one schema.
 */
import * as z from '../functions/shared/zod.js';
import { isExpression, isTemplateLike, referencePath, templatePath } from './references.js';
import { readJson } from '../functions/shared/json.js';

/**
 * The component types of the family's designer: an upload or an inline form using any of them
 * can be shown. A type outside the list is refused, since no journey could render it.
 */
export const CUSTOM_DATA_FORM_COMPONENT_TYPES = [
  // Inputs.
  'text',
  'email',
  'phone',
  'textfield',
  'textarea',
  'phoneNumber',
  'number',
  'date',
  'checkbox',
  'select',
  'radio',
  // Shown, not filled in.
  'paragraph',
  'image',
  'notification',
] as const;
export type CustomDataFormComponentType = (typeof CUSTOM_DATA_FORM_COMPONENT_TYPES)[number];
export const FORM_COMPONENT_TYPES = CUSTOM_DATA_FORM_COMPONENT_TYPES;
export type FormComponentType = CustomDataFormComponentType;

/** Components that only show something: they take no value and are never submitted. */
export const DISPLAY_COMPONENT_TYPES: readonly FormComponentType[] = ['paragraph', 'image', 'notification'];

/** Limits that keep a form renderable and its item well under DynamoDB's 400 KB. */
export const FORM_LIMITS = { text: 5000, languages: 50, components: 200, values: 500, src: 200_000 } as const;

/** Absent, or `null` as the family's clients send for absent members. */
function optional<T extends z.ZodMiniType>(schema: T) {
  return z.optional(z.nullable(schema));
}

/** An integer, also as a decimal string (`"2"`), as Spring's binding takes it. */
export function lenientInt(min: number, max: number) {
  return z.pipe(
    z.transform((v: unknown) => (typeof v === 'string' && /^\s*-?\d{1,10}\s*$/.test(v) ? Number(v) : v)),
    z.number().check(z.int(), z.gte(min), z.lte(max)),
  );
}

/** A number, also as a decimal string (`"2.5"`). */
function lenientNumber() {
  return z.pipe(
    z.transform((v: unknown) => (typeof v === 'string' && /^\s*-?\d{1,15}(\.\d{1,15})?\s*$/.test(v) ? Number(v) : v)),
    z.number().check(z.refine(Number.isFinite, 'must be a finite number')),
  );
}

/** A boolean, also as `"true"` / `"false"`. */
function lenientBoolean() {
  return z.pipe(
    z.transform((v: unknown) => (v === 'true' ? true : v === 'false' ? false : v)),
    z.boolean(),
  );
}

function bounded(max: number) {
  return z.string().check(z.maxLength(max));
}

/** Every text a user reads: a map of language to string. */
export const LocalizedTextSchema = z
  .looseObject({ values: z.record(z.string().check(z.minLength(1), z.maxLength(35)), bounded(FORM_LIMITS.text)) })
  .check(
    z.refine((t) => Object.keys(t.values).length <= FORM_LIMITS.languages, {
      message: `must have at most ${FORM_LIMITS.languages} languages`,
      path: ['values'],
    }),
  );
export type LocalizedText = z.infer<typeof LocalizedTextSchema>;
export const FamilyLocalizedTextSchema = LocalizedTextSchema;

/**
 * A text as a bare map of language to string (`{"en": "...", "de": "..."}`): how the family's
 * builder writes a paragraph's or notification's text, in its `values`.
 */
export const LanguageMapSchema = z
  .record(z.string().check(z.minLength(1), z.maxLength(35)), bounded(FORM_LIMITS.text))
  .check(z.refine((t) => Object.keys(t).length <= FORM_LIMITS.languages, { message: `must have at most ${FORM_LIMITS.languages} languages` }));
export type LanguageMap = z.infer<typeof LanguageMapSchema>;

/**
 * A date bound: an ISO date (`2000-01-31`) or a date relative to the day the form is filled in
 * (`today`, `today-18y`, `today+30d`; units d, m, y). A date of birth of an adult is
 * `maxDate: "today-18y"`.
 */
export const DateBoundSchema = z
  .string()
  .check(
    z.regex(/^(\d{4}-\d{2}-\d{2}|today([+-]\d{1,4}[dmy])?)$/, 'must be an ISO date (YYYY-MM-DD), today, or today±N(d|m|y)'),
    z.refine((s) => s.startsWith('today') || isCalendarDate(s), { message: 'must be a real calendar date' }),
  );

export function isCalendarDate(s: string): boolean {
  const d = new Date(`${s}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/** The date a bound stands for on `today` (UTC, date only). */
export function resolveDateBound(bound: string, today: Date): string {
  const m = /^today(?:([+-])(\d{1,4})([dmy]))?$/.exec(bound);
  if (!m) return bound;
  let [y, mo, d] = [today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()];
  if (m[1] && m[2] && m[3]) {
    const n = Number(m[2]) * (m[1] === '-' ? -1 : 1);
    if (m[3] === 'd') d += n;
    if (m[3] === 'm') mo += n;
    if (m[3] === 'y') y += n;
    if (m[3] !== 'd') {
      // Years and months keep the day, clamped to the month's end: 29 Feb - 1y is 28 Feb, so an
      // 18-year limit never lets in someone a day short of 18.
      const last = new Date(Date.UTC(y, mo + 1, 0)).getUTCDate();
      d = Math.min(d, last);
    }
  }
  return new Date(Date.UTC(y, mo, d)).toISOString().slice(0, 10);
}

export const FormValidateSchema = z
  .looseObject({
    required: optional(lenientBoolean()),
    /** Typed inputs, counted in characters. */
    minLength: optional(lenientInt(0, 100_000)),
    maxLength: optional(lenientInt(0, 100_000)),
    /** Text inputs: a JavaScript regular expression (unicode mode) the whole value must match. */
    pattern: optional(z.string().check(z.minLength(1), z.maxLength(500))),
    /** Number components. */
    min: optional(lenientNumber()),
    max: optional(lenientNumber()),
    /** Date components. */
    minDate: optional(DateBoundSchema),
    maxDate: optional(DateBoundSchema),
    missingMessage: optional(LocalizedTextSchema),
    invalidMessage: optional(LocalizedTextSchema),
    invalidLengthMessage: optional(LocalizedTextSchema),
  })
  .check(
    z.superRefine((v, ctx) => {
      if (v.minLength != null && v.maxLength != null && v.minLength > v.maxLength) {
        ctx.addIssue({ code: 'custom', path: ['minLength'], message: 'must not be greater than maxLength', input: v.minLength });
      }
      if (v.min != null && v.max != null && v.min > v.max) ctx.addIssue({ code: 'custom', path: ['min'], message: 'must not be greater than max', input: v.min });
      if (v.minDate != null && v.maxDate != null && v.minDate.startsWith('today') === v.maxDate.startsWith('today')) {
        // Compare on a fixed day: both bounds move together when both are relative.
        const day = new Date(Date.UTC(2000, 0, 1));
        if (resolveDateBound(v.minDate, day) > resolveDateBound(v.maxDate, day)) {
          ctx.addIssue({ code: 'custom', path: ['minDate'], message: 'must not be after maxDate', input: v.minDate });
        }
      }
      if (v.pattern != null) {
        try {
          new RegExp(v.pattern, 'u');
        } catch {
          ctx.addIssue({ code: 'custom', path: ['pattern'], message: 'must be a valid regular expression', input: v.pattern });
        }
      }
    }),
  );
export const FamilyFormValidateSchema = FormValidateSchema;

/** A choice of a select or radio component. */
const ChoiceSchema = z.looseObject({
  value: optional(z.union([bounded(1000), z.number(), z.boolean()])),
  label: optional(LocalizedTextSchema),
});
export type Choice = z.infer<typeof ChoiceSchema>;

const ChoicesSchema = z.array(ChoiceSchema).check(z.maxLength(FORM_LIMITS.values));

/**
 * A component's `values`: a list of choices, or a language map (the text of a shown component).
 * Which of the two a type takes is checked with the component (FormComponentSchema).
 */
const ValuesSchema = z.transform((v: unknown, ctx): Choice[] | LanguageMap => {
  if (v === null || typeof v !== 'object') {
    ctx.issues.push({ code: 'custom', message: 'must be a list of choices ({value, label}) or, on a paragraph, notification or image, a text per language ({"en": "..."})', input: v });
    return z.NEVER;
  }
  // Judged by its shape, so a refusal names the member inside it (values.0.value, values.en).
  const parsed = Array.isArray(v) ? z.safeParse(ChoicesSchema, v) : z.safeParse(LanguageMapSchema, v);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.issues.push({ code: 'custom', path: issue.path, message: issue.message, input: v });
  return z.NEVER;
});

/**
 * An image's source: an https URL or an inline image (`data:image/png;base64,...`). Nothing else:
 * no `javascript:`, no http (mixed content), no SVG (which can carry script).
 */
export const IMAGE_SOURCE = /^(https:\/\/[^\s"'<>\\]+|data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]+)$/;
const ImageSourceSchema = z
  .string()
  .check(z.maxLength(FORM_LIMITS.src), z.regex(IMAGE_SOURCE, 'must be an https URL or a data:image/(png|jpeg|gif|webp);base64 URL'));

/** A number of pixels, or a CSS length such as `50%`: the widths an image is drawn at (other strings are kept and ignored). */
export const WIDTH = /^\d{1,5}(\.\d{1,3})?(px|%|em|rem|vw)?$/;

/** How long a notification with `setTimer: true` stays, in seconds, when the form gives no number. */
export const NOTE_TIMER_DEFAULT_SECONDS = 10;
/** The longest a timed notification is kept for before it hides itself. */
export const NOTE_TIMER_MAX_SECONDS = 3600;

export const FormComponentSchema = z
  .looseObject({
    type: z.enum(CUSTOM_DATA_FORM_COMPONENT_TYPES),
    /** The key of the entered value in the form's data; a repeated id gets its own key (answerKeys). */
    // An id becomes a key of the values the end user gives (shared/own.ts: __proto__ cannot be one).
    id: z.string().check(
      z.regex(/^[A-Za-z0-9_-]{1,100}$/, 'must be 1 to 100 letters, digits, _ or -'),
      z.refine((id) => id !== '__proto__', 'must not be __proto__'),
    ),
    label: optional(LocalizedTextSchema),
    /**
     * A value; a text that is a whole reference (`${firstName}`) or a whole template
     * (`{{processvar.a.b}}`) is read from the journey when the form is shown.
     */
    default: optional(z.union([bounded(FORM_LIMITS.text), z.number(), z.boolean(), LocalizedTextSchema])),
    readOnly: optional(lenientBoolean()),
    /** A select's or radio's choices; a paragraph's, notification's or image's text per language. */
    values: optional(ValuesSchema),
    /** The earlier name of `values` (the service's first inline forms). */
    options: optional(ChoicesSchema),
    validate: optional(FormValidateSchema),
    /** Phone components: ISO 3166-1 alpha-2 (`GB`), any case. */
    defaultCountry: optional(z.string().check(z.regex(/^[A-Za-z]{2}$/, 'must be a two-letter country code such as GB'))),
    /** A variant of the type (a notification's level: info, success, warning, error). */
    subtype: optional(bounded(100)),
    /** The visual builder's spelling of `subtype`. */
    subType: optional(bounded(100)),
    /** A notification the end user may close. */
    closeButton: optional(lenientBoolean()),
    /** A notification that hides itself: `true`, or after a number of seconds; anything else is kept and means no timer. */
    setTimer: optional(z.union([z.boolean(), z.number(), bounded(100)])),
    src: optional(ImageSourceSchema),
    alt: optional(z.union([bounded(1000), LocalizedTextSchema])),
    /** Pixels, or a length such as `50%` or `200px`; a string the page cannot use (WIDTH) is kept and ignored. */
    width: optional(z.union([z.number().check(z.gte(0), z.lte(10_000)), bounded(100)])),
  })
  .check(
    z.superRefine((c, ctx) => {
      if (typeof c.default === 'string' && isExpression(c.default) && referencePath(c.default) === undefined) {
        ctx.addIssue({ code: 'custom', path: ['default'], message: 'is not a valid reference: write ${name} or ${a.b.c}', input: c.default });
      }
      if (typeof c.default === 'string' && isTemplateLike(c.default) && templatePath(c.default) === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['default'],
          message:
            'is not a template this service reads: the whole default must be {{processvar.a.b.c}}, a process variable by a path of names and [n] indexes (no other source, no text around it, no __proto__)',
          input: c.default,
        });
      }
      if (c.values != null && !Array.isArray(c.values) && !DISPLAY_COMPONENT_TYPES.includes(c.type)) {
        ctx.addIssue({
          code: 'custom',
          path: ['values'],
          message: `must be a list of choices ({value, label}) on a ${c.type}; a text per language is the text of a paragraph, notification or image`,
          input: c.values,
        });
      }
    }),
  );
export type FormComponent = z.infer<typeof FormComponentSchema>;
export const FamilyFormComponentSchema = FormComponentSchema;
export type FamilyFormComponent = FormComponent;

const SubmitButtonSchema = z.looseObject({
  values: optional(z.record(z.string().check(z.minLength(1), z.maxLength(35)), bounded(FORM_LIMITS.text))),
  label: optional(LocalizedTextSchema),
});

/** A data form, inline in a definition or stored by name and version. */
export const DataFormSchema = z
  .looseObject({
    title: optional(LocalizedTextSchema),
    subtitle: optional(LocalizedTextSchema),
    components: z.array(FormComponentSchema).check(
      z.minLength(1, 'a form needs at least one component'),
      z.maxLength(FORM_LIMITS.components),
    ),
    submitButton: optional(SubmitButtonSchema),
    /** The family writes it as a string (`"1"`). */
    version: optional(lenientInt(1, 1_000_000)),
  });
export type DataForm = z.infer<typeof DataFormSchema>;
export const CustomDataFormResourceSchema = DataFormSchema;
export type CustomDataFormResource = DataForm;

export type FormIssue = { path: (string | number)[]; message: string };

/** Parses a form object: the form, or every problem with its path inside it (`components.2.validate.minLength`). */
export function parseDataForm(json: unknown): { ok: true; form: DataForm } | { ok: false; issues: FormIssue[] } {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { ok: false, issues: [{ path: [], message: 'must be a JSON object (a data form with its components)' }] };
  }
  const parsed = z.safeParse(DataFormSchema, json);
  if (parsed.success) return { ok: true, form: parsed.data };
  return { ok: false, issues: parsed.error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'number' ? p : String(p))), message: i.message })) };
}

/** Parses a form sent as a JSON string (the form API's `resource`). */
export function parseCustomDataFormResource(resource: string): { ok: true; form: DataForm } | { ok: false; issues: FormIssue[] } {
  const read = readJson(resource);
  if (read.ok) return parseDataForm(read.value);
  const { problem } = read;
  if (problem.kind === 'proto') return { ok: false, issues: [{ path: problem.path, message: problem.message }] };
  return { ok: false, issues: [{ path: [], message: `must be a data form as a JSON string: ${problem.message}` }] };
}

/**
 * The key each component's value is kept under, in the form's order: its id, and for a repeated
 * id (two fields `password`) `<id>_2`, `<id>_3`... for the second, third..., skipping any key that
 * is another component's id. The one rule for the page's field names and HTML ids, the check of
 * a submission, the values kept under `Form data Key` and what is read back from them.
 */
export function answerKeys(form: Pick<DataForm, 'components'>): string[] {
  const ids = new Set(form.components.map((c) => c.id));
  const used = new Set<string>();
  return form.components.map(({ id }) => {
    let key = id;
    for (let n = 2; used.has(key); n++) {
      key = `${id}_${n}`;
      if (ids.has(key)) key = id;
    }
    used.add(key);
    return key;
  });
}

/** Each component with its answer key (answerKeys), in the form's order. */
export function keyedComponents(form: Pick<DataForm, 'components'>): { c: FormComponent; key: string }[] {
  const keys = answerKeys(form);
  return form.components.map((c, i) => ({ c, key: keys[i]! }));
}

/** A component's list of choices: `values` when it is a list, else the earlier `options`. */
export function choiceList(c: FormComponent): Choice[] {
  return Array.isArray(c.values) ? c.values : (c.options ?? []);
}

/** A component's choices: `values`, or the earlier `options`. */
export function choicesOf(c: FormComponent): { value: string; label?: LocalizedText | null | undefined }[] {
  return choiceList(c)
    .filter((o) => o.value != null)
    .map((o) => ({ value: String(o.value), label: o.label }));
}

/** The text a shown component carries in `values` as a language map, as a localized text; undefined when it has none. */
export function valuesText(c: FormComponent): LocalizedText | undefined {
  return c.values != null && !Array.isArray(c.values) && Object.keys(c.values).length ? { values: c.values } : undefined;
}

/** A notification's level: the first of `subtype` and `subType` that names one (any case), else info. */
export function notificationLevel(c: FormComponent): 'info' | 'success' | 'warning' | 'error' {
  for (const v of [c.subtype, c.subType]) {
    const level = typeof v === 'string' ? v.trim().toLowerCase() : '';
    if (level === 'info' || level === 'success' || level === 'warning' || level === 'error') return level;
  }
  return 'info';
}

/**
 * After how many seconds a notification hides itself, from its `setTimer`: a positive number
 * (also as a string) of seconds, at most NOTE_TIMER_MAX_SECONDS; `true` the default; else never.
 */
export function noteTimerSeconds(c: FormComponent): number | undefined {
  const t = c.setTimer;
  if (t === true || (typeof t === 'string' && t.trim().toLowerCase() === 'true')) return NOTE_TIMER_DEFAULT_SECONDS;
  const n = typeof t === 'number' ? t : typeof t === 'string' && /^\s*\d{1,7}(\.\d{1,3})?\s*$/.test(t) ? Number(t) : NaN;
  return Number.isFinite(n) && n > 0 ? Math.min(n, NOTE_TIMER_MAX_SECONDS) : undefined;
}

/**
 * The languages a form is written in, in the order it first uses them (its title's first):
 * the first is the one a page falls back to when the form lacks the page's language.
 */
export function formLanguages(form: DataForm): string[] {
  const seen = new Set<string>();
  const add = (t: LocalizedText | null | undefined) => {
    for (const lang of Object.keys(t?.values ?? {})) seen.add(lang);
  };
  add(form.title);
  add(form.subtitle);
  for (const c of form.components) {
    add(c.label);
    add(valuesText(c));
    if (c.default && typeof c.default === 'object') add(c.default);
    for (const choice of choiceList(c)) add(choice.label);
  }
  return [...seen];
}
