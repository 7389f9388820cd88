import fc from 'fast-check';
import type * as z4 from 'zod/v4/core';
import { globalRegistry } from 'zod/mini';
import { PROTOTYPE_NAMES } from './names.js';

/**
 * fast-check arbitraries from the route table's zod schemas (zod/mini and classic zod share the
 * core definitions read here). `valid` draws values of the schema's shape, within its lengths,
 * bounds, patterns and formats: most pass the schema, some fail a refinement the shape cannot
 * see (the service must then refuse them cleanly too). `invalid` draws a valid value with one
 * part broken: a wrong type, a value past a limit, a member removed or added, or any JSON at all.
 */

interface Def {
  type: string;
  checks?: { _zod: { def: CheckDef } }[];
  innerType?: z4.$ZodType;
  in?: z4.$ZodType;
  getter?: () => z4.$ZodType;
  shape?: Record<string, z4.$ZodType>;
  element?: z4.$ZodType;
  keyType?: z4.$ZodType;
  valueType?: z4.$ZodType;
  options?: readonly z4.$ZodType[];
  entries?: Record<string, string | number>;
  values?: readonly unknown[];
  format?: string;
  pattern?: RegExp;
  defaultValue?: unknown;
}

interface CheckDef {
  check: string;
  format?: string;
  pattern?: RegExp;
  minimum?: number;
  maximum?: number;
  length?: number;
  value?: number;
  inclusive?: boolean;
}

const defOf = (schema: z4.$ZodType) => schema._zod.def as unknown as Def;
const checksOf = (schema: z4.$ZodType) => (defOf(schema).checks ?? []).map((c) => c._zod.def);

/** Strings that have broken services before: prototype names, SQL LIKE characters, controls, long runs. */
const NASTY = [...PROTOTYPE_NAMES, '__proto__', '%', '_', '%a%a%a%a%b', '\\', "'", '"', '<script>', '\u0000', '\r\n=1+1', '\u202e', '😀', 'null', 'true', '0', '-1', '1e309'];

function stringBounds(schema: z4.$ZodType): { min: number; max: number } {
  let min = 0;
  let max = 64;
  const meta = globalRegistry.get(schema) as { minLength?: number; maxLength?: number } | undefined;
  if (meta?.minLength !== undefined) min = meta.minLength;
  if (meta?.maxLength !== undefined) max = Math.min(max, meta.maxLength);
  for (const c of checksOf(schema)) {
    if (c.check === 'min_length') min = Math.max(min, c.minimum!);
    if (c.check === 'max_length') max = Math.min(max, c.maximum!);
    if (c.check === 'length_equals') min = max = c.length!;
  }
  return { min, max: Math.max(min, max) };
}

function formatOf(schema: z4.$ZodType): { format?: string; pattern?: RegExp } {
  const def = defOf(schema);
  if (def.format) return { format: def.format, pattern: def.pattern };
  const c = checksOf(schema).find((c) => c.check === 'string_format');
  return c ? { format: c.format, pattern: c.pattern } : {};
}

function stringArb(schema: z4.$ZodType): fc.Arbitrary<string> {
  const { min, max } = stringBounds(schema);
  const { format, pattern } = formatOf(schema);
  const fits = (s: string) => [...s].length >= min && [...s].length <= max;
  switch (format) {
    case 'uuid':
    case 'guid':
      return fc.uuid({ version: 4 });
    case 'datetime':
      return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'url':
      return fc.webUrl();
    case 'email':
      return fc.emailAddress();
    case 'base64':
      return fc.uint8Array({ maxLength: 48 }).map((b) => Buffer.from(b).toString('base64'));
  }
  // Mapped to the bounds rather than filtered: a filter that rarely passes spins forever.
  const bound = (s: string) => {
    const chars = [...s].slice(0, max);
    while (chars.length < min) chars.push('a');
    return chars.join('');
  };
  if (pattern) {
    const nasty = NASTY.filter((s) => fits(s) && pattern.test(s));
    return fc.oneof(
      { weight: 5, arbitrary: matching(pattern).map(bound) },
      ...(nasty.length ? [{ weight: 1, arbitrary: fc.constantFrom(...nasty) }] : []),
    );
  }
  const nasty = NASTY.filter(fits);
  return fc.oneof(
    { weight: 6, arbitrary: fc.string({ minLength: min, maxLength: max, unit: 'grapheme' }).map(bound) },
    ...(nasty.length ? [{ weight: 2, arbitrary: fc.constantFrom(...nasty) }] : []),
    { weight: 1, arbitrary: fc.constant('x'.repeat(max)).map(bound) },
  );
}

/**
 * Strings matching a pattern. fast-check's stringMatching has no Unicode property classes
 * (`\p{L}`): those become a letter or digit class, so the drawn strings still match.
 */
function matching(pattern: RegExp): fc.Arbitrary<string> {
  try {
    return fc.stringMatching(pattern);
  } catch {
    const source = pattern.source.replace(/\\[pP]\{[^}]+\}/g, 'a-zA-Z0-9');
    try {
      return fc.stringMatching(new RegExp(source, pattern.flags.replace(/[uv]/g, '')));
    } catch {
      return fc.constant('a');
    }
  }
}

function numberArb(schema: z4.$ZodType): fc.Arbitrary<number> {
  let min = -1e9;
  let max = 1e9;
  let int = false;
  for (const c of checksOf(schema)) {
    if (c.check === 'number_format') int = true;
    if (c.check === 'greater_than') min = c.inclusive ? c.value! : c.value! + (int ? 1 : 1e-9);
    if (c.check === 'less_than') max = c.inclusive ? c.value! : c.value! - (int ? 1 : 1e-9);
  }
  const edges = fc.constantFrom(min, max);
  const any = int ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  return fc.oneof({ weight: 3, arbitrary: any }, { weight: 1, arbitrary: edges });
}

const cache = new WeakMap<z4.$ZodType, fc.Arbitrary<unknown>>();

/** Values of the schema's shape (its input side: what a client sends). */
export function valid(schema: z4.$ZodType, depth = 0): fc.Arbitrary<unknown> {
  const hit = cache.get(schema);
  if (hit) return hit;
  const arb = build(schema, depth);
  cache.set(schema, arb);
  return arb;
}

function build(schema: z4.$ZodType, depth: number): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return stringArb(schema);
    case 'number':
      return numberArb(schema);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'undefined':
      return fc.constant(undefined);
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries!));
    case 'literal':
      return fc.constantFrom(...def.values!);
    case 'optional':
      return fc.option(valid(def.innerType!, depth), { nil: undefined, freq: 3 });
    case 'default':
    case 'prefault':
      return fc.option(valid(def.innerType!, depth), { nil: undefined, freq: 3 });
    case 'nullable':
      return fc.option(valid(def.innerType!, depth), { nil: null, freq: 5 });
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return valid(def.innerType!, depth);
    case 'pipe':
      return valid(def.in!, depth);
    case 'lazy':
      return depth > 3 ? fc.constant(undefined) : valid(def.getter!(), depth + 1);
    case 'union':
      return fc.oneof(...def.options!.map((o) => valid(o, depth)));
    case 'array': {
      let max = 4;
      let min = 0;
      for (const c of checksOf(schema)) {
        if (c.check === 'max_length') max = Math.min(max, c.maximum!);
        if (c.check === 'min_length') min = c.minimum!;
      }
      return fc.array(valid(def.element!, depth + 1), { minLength: min, maxLength: Math.max(min, max) });
    }
    case 'record': {
      // A map's keys are the user's to choose: the names Object.prototype answers to among them.
      const keys = fc.oneof({ weight: 3, arbitrary: valid(def.keyType!, depth + 1) as fc.Arbitrary<string> }, { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) });
      return fc.array(fc.tuple(keys, valid(def.valueType!, depth + 1)), { maxLength: 4 }).map((pairs) => Object.fromEntries(pairs));
    }
    case 'object': {
      const shape = def.shape!;
      const members = Object.fromEntries(Object.entries(shape).map(([k, s]) => [k, valid(s, depth + 1)]));
      return fc.record(members).map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)));
    }
    default:
      // unknown, any, custom, transform: any small JSON value.
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A value of the schema broken in one place (or not of the schema at all). */
export function invalid(schema: z4.$ZodType): fc.Arbitrary<unknown> {
  const junk = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom(null, '', [], {}, 0, -1, 1e308, true, 'x'.repeat(70_000), JSON.parse('{"__proto__":1}')),
  );
  return fc.oneof(
    { weight: 1, arbitrary: junk },
    {
      weight: 4,
      arbitrary: fc.tuple(valid(schema), fc.nat(), junk, fc.constantFrom('replace', 'drop', 'add', 'deep')).map(([value, pick, with_, how]) =>
        breakAt(value, pick, with_, how, DEEP[pick % DEEP.length]!),
      ),
    },
  );
}

/**
 * How deep a 'deep' break nests: within the service's limit of 64 and just past it. The attack
 * run's 5,050 levels are sent as text by fuzz-routes.test.ts (fast-check and JSON.stringify
 * recurse too, so a value that deep cannot be drawn here).
 */
const DEEP = [40, 65];

function breakAt(value: unknown, pick: number, junk: unknown, how: string, depth: number): unknown {
  if (value === null || typeof value !== 'object') return how === 'deep' ? deep(depth) : junk;
  const copy: Record<string, unknown> = Array.isArray(value) ? Object.fromEntries(value.entries()) : { ...(value as object) };
  const keys = Object.keys(copy);
  if (how === 'add' || keys.length === 0) {
    copy[`extra${pick % 3}`] = junk;
  } else {
    const key = keys[pick % keys.length]!;
    if (how === 'drop') delete copy[key];
    else if (how === 'deep') copy[key] = deep(depth);
    else copy[key] = typeof copy[key] === 'object' && copy[key] !== null ? breakAt(copy[key], pick >> 2, junk, how, depth) : junk;
  }
  return Array.isArray(value) ? Object.values(copy) : copy;
}

function deep(levels: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { v };
  return v;
}
