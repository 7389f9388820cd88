import type * as z4 from 'zod/v4/core';
import * as z from './zod.js';

/**
 * Reading the family's clients leniently (the spec's versioning rule, and DESIGN.md's list of
 * what they send): a request body is brought to the form its schema takes where the difference
 * is only one of form, before the schema judges it. What a Spring service (Jackson) accepts:
 *
 * - a number or boolean sent as its string (`"maxCount": "1"`, `"version": "2"`, `"true"`);
 * - a number or boolean where a string is taken (`"parameters": {"age": 42}`), kept as its
 *   string form (`"42"`);
 * - `null` for a field that may be absent, read as absent.
 *
 * Unknown fields need nothing here: request objects are `z.object`s, which drop them. Nothing
 * else is coerced: an object or array where a scalar belongs, a string that is not a plain
 * decimal number, a value out of its limits or format, all still get their 400.
 */
export function lenient(schema: z4.$ZodType, value: unknown): unknown {
  const def = schema._zod.def as unknown as Def;
  switch (def.type) {
    case 'optional':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return lenient(def.innerType!, value);
    case 'nullable':
      return value === null ? null : lenient(def.innerType!, value);
    case 'lazy':
      return lenient(def.getter!(), value);
    case 'pipe':
      return lenient(def.in!, value);
    case 'object':
      return isRecord(value) ? leniently(value, (key) => (Object.hasOwn(def.shape!, key) ? def.shape![key] : undefined)) : value;
    case 'record':
      return isRecord(value) ? leniently(value, () => def.valueType) : value;
    case 'array':
      return Array.isArray(value) ? value.map((item) => lenient(def.element!, item)) : value;
    case 'number':
      return typeof value === 'string' && DECIMAL.test(value) ? Number(value) : value;
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    case 'string':
      return (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean' ? String(value) : value;
    case 'union':
      return union(def.options!, value);
    default:
      return value;
  }
}

interface Def {
  type: string;
  innerType?: z4.$ZodType;
  getter?: () => z4.$ZodType;
  in?: z4.$ZodType;
  shape?: Record<string, z4.$ZodType>;
  valueType?: z4.$ZodType;
  element?: z4.$ZodType;
  options?: readonly z4.$ZodType[];
}

/** A plain decimal number as Jackson reads one from a string: no spaces, hex, exponent or `Infinity`. */
const DECIMAL = /^-?(?:0|[1-9]\d{0,15})(?:\.\d{1,15})?$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Each member brought to its schema's form; a `null` member whose schema may be absent but does
 * not take null is left out. Members no schema names are kept as they are (the object schema
 * drops them). Built with `fromEntries`, so every key stays data.
 */
function leniently(value: Record<string, unknown>, schemaOf: (key: string) => z4.$ZodType | undefined): Record<string, unknown> {
  const entries: [string, unknown][] = [];
  for (const [key, member] of Object.entries(value)) {
    const schema = schemaOf(key);
    if (!schema) entries.push([key, member]);
    else if (member === null && schema._zod.optin !== undefined && !takesNull(schema)) continue;
    else entries.push([key, lenient(schema, member)]);
  }
  return Object.fromEntries(entries);
}

/** Whether a schema takes `null` as a value of its own (so `null` is not read as absent). */
function takesNull(schema: z4.$ZodType): boolean {
  return z.safeParse(schema, null).success;
}

/**
 * A union takes the value as it is when one of its options does; otherwise the first option
 * that takes the value brought to its form.
 */
function union(options: readonly z4.$ZodType[], value: unknown): unknown {
  if (options.some((option) => z.safeParse(option, value).success)) return value;
  for (const option of options) {
    const brought = lenient(option, value);
    if (brought !== value && z.safeParse(option, brought).success) return brought;
  }
  return value;
}
