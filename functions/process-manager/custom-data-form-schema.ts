/**
 * The service family's data form format, as its data form designer writes it and its clients
 * upload it (the `resource` of `/api/process-manager/customDataForms`):
 *
 *   {title: {values: {en: ...}}, subtitle, components: [{type, id, label, default, readOnly,
 *    values, validate: {required, minLength, maxLength, missingMessage, invalidMessage,
 *    invalidLengthMessage}, defaultCountry, subtype, src, alt, width, ...}], submitButton, version}
 *
 * Read as a Spring service would read it: every object is loose (members the service does not
 * use are kept, so a form round-trips), `null` is absent, and numbers and booleans sent as
 * strings ("5", "true") are taken. What the journey relies on is checked: known component
 * types, values of a usable type, bounded lengths, at least one component and unique ids.
 *
 * Its own module (zod and nothing else) so the journey can parse a stored form with it too.
 */
import * as z from '../shared/zod.js';

/**
 * The component types of the family's designer, and those of this service's own inline forms
 * (statemachines/definition.ts): an upload using any of them can be shown. A type outside the
 * list is refused, since no journey could render it.
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
export const FamilyLocalizedTextSchema = z
  .looseObject({ values: z.record(z.string().check(z.minLength(1), z.maxLength(35)), bounded(FORM_LIMITS.text)) })
  .check(
    z.refine((t) => Object.keys(t.values).length <= FORM_LIMITS.languages, {
      message: `must have at most ${FORM_LIMITS.languages} languages`,
      path: ['values'],
    }),
  );

export const FamilyFormValidateSchema = z
  .looseObject({
    required: optional(lenientBoolean()),
    minLength: optional(lenientInt(0, 100_000)),
    maxLength: optional(lenientInt(0, 100_000)),
    missingMessage: optional(FamilyLocalizedTextSchema),
    invalidMessage: optional(FamilyLocalizedTextSchema),
    invalidLengthMessage: optional(FamilyLocalizedTextSchema),
  })
  .check(
    z.refine((v) => v.minLength == null || v.maxLength == null || v.minLength <= v.maxLength, {
      message: 'must not be greater than maxLength',
      path: ['minLength'],
    }),
  );

/** A choice of a select or radio component. */
const ValueSchema = z.looseObject({
  value: optional(z.union([bounded(1000), z.number(), z.boolean()])),
  label: optional(FamilyLocalizedTextSchema),
});

/** An image's source: an https URL or an inline image (`data:image/png;base64,...`). */
const ImageSourceSchema = z
  .string()
  .check(
    z.maxLength(FORM_LIMITS.src),
    z.regex(/^(https:\/\/\S+|data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]+)$/, 'must be an https URL or a data:image/(png|jpeg|gif|webp);base64 URL'),
  );

export const FamilyFormComponentSchema = z.looseObject({
  type: z.enum(CUSTOM_DATA_FORM_COMPONENT_TYPES),
  /** The key of the entered value in the form's data; unique in the form. */
  id: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,100}$/, 'must be 1 to 100 letters, digits, _ or -')),
  label: optional(FamilyLocalizedTextSchema),
  default: optional(z.union([bounded(FORM_LIMITS.text), z.number(), z.boolean(), FamilyLocalizedTextSchema])),
  readOnly: optional(lenientBoolean()),
  values: optional(z.array(ValueSchema).check(z.maxLength(FORM_LIMITS.values))),
  validate: optional(FamilyFormValidateSchema),
  /** Phone components: ISO 3166-1 alpha-2 (`GB`), any case. */
  defaultCountry: optional(z.string().check(z.regex(/^[A-Za-z]{2}$/, 'must be a two-letter country code such as GB'))),
  /** A variant of the type (a notification's level, a text's input kind, ...). */
  subtype: optional(bounded(100)),
  src: optional(ImageSourceSchema),
  alt: optional(z.union([bounded(1000), FamilyLocalizedTextSchema])),
  /** A number of pixels, or a CSS length such as `50%`. */
  width: optional(z.union([z.number().check(z.gte(0), z.lte(10_000)), z.string().check(z.regex(/^\d{1,5}(\.\d{1,3})?(px|%|em|rem|vw)?$/, 'must be a number of pixels or a length such as 50%'))])),
});
export type FamilyFormComponent = z.infer<typeof FamilyFormComponentSchema>;

const SubmitButtonSchema = z.looseObject({
  values: optional(z.record(z.string().check(z.minLength(1), z.maxLength(35)), bounded(FORM_LIMITS.text))),
  label: optional(FamilyLocalizedTextSchema),
});

export const CustomDataFormResourceSchema = z
  .looseObject({
    title: optional(FamilyLocalizedTextSchema),
    subtitle: optional(FamilyLocalizedTextSchema),
    components: z.array(FamilyFormComponentSchema).check(
      z.minLength(1, 'a form needs at least one component'),
      z.maxLength(FORM_LIMITS.components),
    ),
    submitButton: optional(SubmitButtonSchema),
    version: optional(lenientInt(1, 1_000_000)),
  })
  .check(
    z.superRefine((form, ctx) => {
      const seen = new Set<string>();
      form.components.forEach((c, i) => {
        if (seen.has(c.id)) ctx.addIssue({ code: 'custom', path: ['components', i, 'id'], message: `duplicates component id "${c.id}"`, input: c.id });
        seen.add(c.id);
      });
    }),
  );
export type CustomDataFormResource = z.infer<typeof CustomDataFormResourceSchema>;

/**
 * Parses a resource string: the form, or the problems with their paths inside the resource
 * (`components.2.validate.minLength`) for a 400 to name.
 */
export function parseCustomDataFormResource(
  resource: string,
): { ok: true; form: CustomDataFormResource } | { ok: false; issues: { path: (string | number)[]; message: string }[] } {
  let json: unknown;
  try {
    json = JSON.parse(resource);
  } catch (err) {
    return { ok: false, issues: [{ path: [], message: `must be a data form as a JSON string: ${(err as Error).message}` }] };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { ok: false, issues: [{ path: [], message: 'must be a JSON object (a data form with its components)' }] };
  }
  const parsed = z.safeParse(CustomDataFormResourceSchema, json);
  if (parsed.success) return { ok: true, form: parsed.data };
  const issues = parsed.error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'number' ? p : String(p))), message: i.message }));
  // zod skips the form's own check when a component fails, so duplicates are told here too:
  // one 400 then names every problem.
  if (!issues.some((i) => i.message.startsWith('duplicates component id'))) issues.push(...duplicateIds(json));
  return { ok: false, issues };
}

function duplicateIds(json: object): { path: (string | number)[]; message: string }[] {
  const components = (json as { components?: unknown }).components;
  if (!Array.isArray(components)) return [];
  const seen = new Set<string>();
  const out: { path: (string | number)[]; message: string }[] = [];
  components.forEach((c: unknown, i) => {
    const id = (c as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') return;
    if (seen.has(id)) out.push({ path: ['components', i, 'id'], message: `duplicates component id "${id}"` });
    seen.add(id);
  });
  return out;
}
