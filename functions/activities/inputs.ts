/**
 * An activity's inputs as its run function and its screens see them, resolved once when the
 * activity starts: `${...}` references replaced by their values from the session (see
 * statemachines/references.ts for the lookup order), defaults applied, required inputs present,
 * and each value of its declared type. A definition was checked against the catalogue when it
 * was published, so what can still go wrong here is only what the session holds at run time,
 * and each such failure is a named error that fails the step (`UnresolvedReference`,
 * `InvalidInput`), never a value such as the string "undefined" passed on as a store name.
 */
import { literalValue, lookup, referencePath } from '../../statemachines/references.js';
import { ActivityError } from './contract.js';
import type { ActivitySpec, InputSpec, InputsOf } from './spec.js';

/** A reference whose value the session does not hold. */
const UNRESOLVED = Symbol('unresolved');

function resolveString(value: string, state: unknown): unknown {
  const literal = literalValue(value);
  if (literal !== undefined) return literal;
  const path = referencePath(value);
  if (path === undefined) return value;
  const found = lookup(state, path);
  return found === undefined || found === null ? UNRESOLVED : found;
}

function resolveValue(input: InputSpec | undefined, value: unknown, state: unknown): unknown {
  // A data form is the form itself: its `${...}` defaults are read when the form is shown.
  if (input?.type === 'F') return value;
  // A template's expressions are the module's to evaluate (a whole `${x}` among them).
  if (input?.template) return value;
  if (typeof value === 'string') return resolveString(value, state);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? resolveString(v, state) : v));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? resolveString(v, state) : v]));
  }
  return value;
}

/**
 * Every reference in `inputs` replaced by its value; an input whose whole value resolves to
 * nothing is left out (list items and map values that resolve to nothing become undefined).
 * No defaults, no types: `resolveInputs` adds those.
 */
export function resolveReferences(spec: ActivitySpec, inputs: Readonly<Record<string, unknown>>, state: unknown): Record<string, unknown> {
  const visible = (v: unknown) => (v === UNRESOLVED ? undefined : v);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(inputs)) {
    const input = spec.inputs.find((i) => i.name === name);
    const resolved = resolveValue(input, value, state);
    if (resolved === UNRESOLVED) continue;
    if (Array.isArray(resolved)) out[name] = resolved.map(visible);
    else if (resolved && typeof resolved === 'object' && input?.type !== 'F') {
      out[name] = Object.fromEntries(Object.entries(resolved).map(([k, v]) => [k, visible(v)]));
    } else out[name] = resolved;
  }
  return out;
}

function invalid(spec: ActivitySpec, input: InputSpec, message: string): ActivityError {
  return new ActivityError('InvalidInput', `${spec.displayName}: input "${input.name}" ${message}.`);
}

/** A resolved value as the input's type, numbers and booleans read from their string forms too. */
function coerce(spec: ActivitySpec, input: InputSpec, value: unknown): unknown {
  switch (input.type) {
    case 'S':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      // A reference to an object (a browser response kept in the session) arrives as its JSON.
      if (value && typeof value === 'object') return JSON.stringify(value);
      throw invalid(spec, input, 'must be a string');
    case 'I': {
      const n = typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : value;
      if (typeof n !== 'number' || !Number.isInteger(n)) throw invalid(spec, input, 'must be an integer');
      if (input.min !== undefined && n < input.min) throw invalid(spec, input, `must be at least ${input.min}`);
      if (input.max !== undefined && n > input.max) throw invalid(spec, input, `must be at most ${input.max}`);
      return n;
    }
    case 'N': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) throw invalid(spec, input, 'must be a number');
      if (input.min !== undefined && n < input.min) throw invalid(spec, input, `must be at least ${input.min}`);
      if (input.max !== undefined && n > input.max) throw invalid(spec, input, `must be at most ${input.max}`);
      return n;
    }
    case 'B':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      throw invalid(spec, input, 'must be true or false');
    case 'L':
      if (!Array.isArray(value)) throw invalid(spec, input, 'must be a list of strings');
      return value.map((item) => {
        if (item === UNRESOLVED) throw new ActivityError('UnresolvedReference', `${spec.displayName}: input "${input.name}" lists a reference the journey has no value for.`);
        return typeof item === 'string' ? item : String(item);
      });
    case 'M':
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid(spec, input, 'must be a map of string to string');
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => {
          if (v === UNRESOLVED) throw new ActivityError('UnresolvedReference', `${spec.displayName}: input "${input.name}" maps ${k} to a reference the journey has no value for.`);
          return [k, typeof v === 'string' ? v : String(v)];
        }),
      );
    case 'F':
      return value;
  }
}

/**
 * The inputs a run function or a screen receives (see the top of this file). An input that is
 * not given takes its default; a reference the session has no value for fails the step when the
 * input is required, and otherwise counts as not given.
 */
export function resolveInputs<S extends ActivitySpec>(spec: S, inputs: Readonly<Record<string, unknown>>, state: unknown): InputsOf<S> {
  const out: Record<string, unknown> = {};
  for (const input of spec.inputs) {
    const given = inputs[input.name];
    let value = given === undefined ? UNRESOLVED : resolveValue(input, given, state);
    if (value === UNRESOLVED) {
      if (given !== undefined && input.required) {
        throw new ActivityError(
          'UnresolvedReference',
          `${spec.displayName}: input "${input.name}" is ${String(given)}, which the journey has no value for.`,
        );
      }
      if (input.default === undefined) {
        if (input.required) throw new ActivityError('MissingInput', `${spec.displayName}: required input "${input.name}" is missing.`);
        continue;
      }
      value = input.default;
    }
    out[input.name] = coerce(spec, input, value);
  }
  return out as InputsOf<S>;
}
