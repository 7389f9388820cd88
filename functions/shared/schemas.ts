import * as z from './zod.js';

/** An RFC 3339 date-time with an offset (`Z` or `+02:00`); stored and returned in UTC. */
export const DateTime = z.withMeta(z.iso.datetime({ offset: true }), { format: 'date-time' });

/** A length rule counted in characters (code points), not UTF-16 units. */
export function text(min: number, max: number) {
  return z.withMeta(
    z.string().check(
      z.refine((s) => [...s].length >= min, { message: `must be at least ${min} character${min === 1 ? '' : 's'}` }),
      z.refine((s) => [...s].length <= max, { message: `must be at most ${max} characters` }),
    ),
    { minLength: min, maxLength: max },
  );
}

/** Query integers arrive as strings; anything but a plain decimal integer is a 400. */
export function queryInt(opts: { min: number; max: number; default: number }) {
  return z.withMeta(z.pipe(optionalQueryInt(opts), z.transform((v) => v ?? opts.default)), {
    type: 'integer',
    minimum: opts.min,
    maximum: opts.max,
    default: opts.default,
  });
}

/** A query integer that may be absent (undefined then). */
export function optionalQueryInt(opts: { min: number; max: number }) {
  const digits = z.string().check(z.regex(/^-?\d{1,10}$/, 'must be an integer'));
  const int = z.number().check(z.int(), z.gte(opts.min), z.lte(opts.max));
  return z.withMeta(z.optional(z.pipe(z.pipe(digits, z.transform(Number)), int)), { type: 'integer', minimum: opts.min, maximum: opts.max });
}

/** A query parameter that may repeat (`sort=a&sort=b`) arrives as a string or an array. */
export function queryList<T extends z.ZodMiniType<string>>(item: T) {
  return z.pipe(
    z.optional(z.union([item, z.array(item)])),
    z.transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v])),
  );
}

export const ErrorBodySchema = z.withMeta(
  z.object({
    code: z.withMeta(z.string(), { description: 'Stable machine-readable error code.' }),
    message: z.withMeta(z.string(), { description: 'Human-readable explanation; do not parse.' }),
    details: z.withMeta(z.optional(z.array(z.object({ location: z.string(), message: z.string() }))), {
      description: 'Per-field problems, for validation errors.',
    }),
    error_description: z.withMeta(z.optional(z.string()), {
      description: "OAuth-style reason (RFC 6750's error_description, also in WWW-Authenticate), where the client can act on it: `INVALID_TOKEN` for a bearer token that expired (get a new one).",
    }),
  }),
  { id: 'Error' },
);

/** An empty JSON object body, as the spec shows for token issue and passcode starts. */
export const EmptyBody = z.withMeta(z.object({}), { id: 'EmptyObject' });
