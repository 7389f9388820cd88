import * as z from 'zod';

/** An RFC 3339 date-time with an offset (`Z` or `+02:00`); stored and returned in UTC. */
export const DateTime = z.iso.datetime({ offset: true }).meta({ format: 'date-time' });

/** A length rule counted in characters (code points), not UTF-16 units. */
export function text(min: number, max: number) {
  return z
    .string()
    .refine((s) => [...s].length >= min, { message: `must be at least ${min} character${min === 1 ? '' : 's'}` })
    .refine((s) => [...s].length <= max, { message: `must be at most ${max} characters` })
    .meta({ minLength: min, maxLength: max });
}

/** Query integers arrive as strings; anything but a plain decimal integer is a 400. */
export function queryInt(opts: { min: number; max: number; default: number }) {
  return z
    .string()
    .regex(/^-?\d{1,10}$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(opts.min).max(opts.max))
    .optional()
    .transform((v) => v ?? opts.default)
    .meta({ type: 'integer', minimum: opts.min, maximum: opts.max, default: opts.default });
}

/** A query parameter that may repeat (`sort=a&sort=b`) arrives as a string or an array. */
export function queryList<T extends z.ZodType<string>>(item: T) {
  return z
    .union([item, z.array(item)])
    .optional()
    .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]));
}

export const ErrorBodySchema = z
  .object({
    code: z.string().meta({ description: 'Stable machine-readable error code.' }),
    message: z.string().meta({ description: 'Human-readable explanation; do not parse.' }),
    details: z
      .array(z.object({ location: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'Per-field problems, for validation errors.' }),
  })
  .meta({ id: 'Error' });

/** An empty JSON object body, as the spec shows for token issue and passcode starts. */
export const EmptyBody = z.object({}).strict().meta({ id: 'EmptyObject' });
