/**
 * References to session data in activity inputs, written as the process designer writes them:
 * an input whose whole value is `${name}` or `${a.b.c}` takes its value from the session data
 * when the activity runs. `${60}` and `${true}` are literals (the designer's way to write a
 * number or boolean); validation turns them into plain values.
 *
 * Lookup: the path is tried against `vars`, then `parameters` (the process token's parameters),
 * then the session root, and the first defined value wins. So `${externalId}` reads
 * `parameters.externalId` unless an activity stored `vars.externalId`, `${user1.id}` reads
 * `vars.user1.id`, and `${_checks.face.result}` reads the root. A reference to nothing resolves
 * to `undefined`: the input counts as not given, and a required one fails the activity.
 *
 * A path may index a list: `${idv.configSecrets[0]}` is the first item of `idv.configSecrets`.
 *
 * Only whole values are references ("Hello ${firstName}" is plain text), which keeps resolution
 * free of escaping rules.
 */

const REFERENCE = /^\$\{\s*([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+|\[\d{1,6}\])*)\s*\}$/;
const LITERAL = /^\$\{\s*(-?\d{1,15}(?:\.\d{1,15})?|true|false)\s*\}$/;
/** Anything shaped like `${...}`: a reference, a literal, or a mistake to report. */
const EXPRESSION = /^\$\{.*\}$/s;

export function isExpression(value: string): boolean {
  return EXPRESSION.test(value);
}

/** The path of a reference, or undefined when `value` is not one. */
export function referencePath(value: string): string | undefined {
  if (LITERAL.test(value)) return undefined;
  return REFERENCE.exec(value)?.[1];
}

/**
 * The family's form templates: a data form's `default` written `{{processvar.a.b.c}}` (spaces
 * inside the braces allowed, `{{processvar._checks.face.result }}`) stands for the process
 * variable at that path, read as the reference `${a.b.c}` is (`lookup` below). Nothing else is a
 * template: only `processvar.` then a dot path of names (a letter or `_`, then letters, digits,
 * `_` or `-`) and `[n]` indexes, never `__proto__`, and the template is the whole value (spaces
 * around it aside). A value with `{{` that is not one is a mistake to report (`isTemplateLike`).
 */
const TEMPLATE = /^\s*\{\{\s*processvar\.([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*|\[\d{1,6}\])*)\s*\}\}\s*$/;

/** Anything with `{{`: a template, or a mistake to report. */
export function isTemplateLike(value: string): boolean {
  return value.includes('{{');
}

/** The path a `{{processvar.<path>}}` template names, in the reference grammar; undefined when `value` is not one. */
export function templatePath(value: string): string | undefined {
  const path = TEMPLATE.exec(value)?.[1];
  if (path === undefined || path.split(/[.[\]]/).includes('__proto__')) return undefined;
  return path;
}

export function isReference(value: unknown): value is string {
  return typeof value === 'string' && referencePath(value) !== undefined;
}

/** The value of a `${60}` / `${true}` literal, or undefined when `value` is not one. */
export function literalValue(value: string): number | boolean | undefined {
  const m = LITERAL.exec(value)?.[1];
  if (m === undefined) return undefined;
  return m === 'true' ? true : m === 'false' ? false : Number(m);
}

function get(root: unknown, path: string[]): unknown {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** The value a reference path stands for in the session state (see the lookup order above). */
export function lookup(state: unknown, path: string): unknown {
  // `a.b[0].c` → a, b, 0, c: an array's items are its own properties "0", "1", ...
  const parts = path.replace(/\[(\d+)\]/g, '.$1').split('.');
  for (const scope of [['vars'], ['parameters'], []]) {
    const v = get(state, [...scope, ...parts]);
    if (v !== undefined) return v;
  }
  return undefined;
}

