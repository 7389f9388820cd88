/**
 * The reference semantics of a condition: what the compiled Choice rule must decide, and what
 * the property tests check it against. It follows JUEL (EL 2.2) as Camunda 7 applies it, except
 * where Choice rules cannot follow and Camunda would fail the step instead (README.md in this
 * folder lists each choice):
 * - A missing variable, or a missing property or index on the way, reads as null (Camunda
 *   throws "Cannot resolve identifier" for an unknown top-level variable).
 * - Coercion to boolean (`&&`, `||`, `!`, `?:`, the condition's result): true, or a string equal
 *   to "true" ignoring case (Boolean.valueOf), is true; everything else is false, where Camunda
 *   would throw for a number, list or map.
 * - `==`: null equals only null. Same types compare by value. Against a literal, JUEL's
 *   coercions apply: a string equals a number when it is the number's canonical decimal text
 *   ("5" == 5, "5.0" != 5), and a boolean when Boolean.valueOf(string) is that boolean. Between
 *   two non-literals, values of different types are unequal. Lists and maps equal nothing.
 *   `!=` is the negation of `==`.
 * - `< > <= >=`: two numbers numerically, two strings by UTF-16 code units (Java's compareTo);
 *   `null <= null` and `null >= null` hold (EL's A==B rule); anything else is false.
 * - `empty x`: x is null (or missing) or "". Lists and maps are never empty here: a Choice rule
 *   cannot tell an empty list from a map.
 * - A comparison of a ternary compares the branch the test selects.
 * - `x.equals(literal)`: x has the literal's type and value (Java's equals: no coercion); false
 *   for null or missing, where Camunda would throw.
 */
import { ConditionError, print, type Expr, type LiteralValue, type Segment } from './ast.js';

export type Json = LiteralValue | Json[] | { [key: string]: Json };
export type Variables = Record<string, Json>;

/** Whether the condition holds for these variables. */
export function evaluateCondition(e: Expr, vars: Variables): boolean {
  return truthy(evaluate(e, vars));
}

/** The value of an expression; null for missing. */
export function evaluate(e: Expr, vars: Variables): Json {
  switch (e.kind) {
    case 'literal':
      return e.value;
    case 'variable':
      return lookup(vars, e.segments) ?? null;
    case 'hasVariable':
      // Camunda's hasVariable is true for a variable set to null too.
      return Object.prototype.hasOwnProperty.call(vars, e.name);
    case 'compare':
      return compare(e.op, e.left, e.right, vars);
    case 'and':
      return truthy(evaluate(e.left, vars)) && truthy(evaluate(e.right, vars));
    case 'or':
      return truthy(evaluate(e.left, vars)) || truthy(evaluate(e.right, vars));
    case 'not':
      return !truthy(evaluate(e.operand, vars));
    case 'empty': {
      const v = evaluate(e.operand, vars);
      return v === null || v === '';
    }
    case 'conditional':
      return evaluate(truthy(evaluate(e.test, vars)) ? e.consequent : e.alternate, vars);
    case 'equals': {
      // Java's equals: the same type and value; on null Camunda throws, here it is false.
      const v = evaluate(e.receiver, vars);
      return typeof v === typeof e.argument && v === e.argument;
    }
    case 'negate':
      return -toNumber(evaluate(e.operand, vars), e);
    case 'arithmetic': {
      // EL: null is 0, a numeric string its number; only the evaluator computes (Choice rules refuse).
      const a = toNumber(evaluate(e.left, vars), e);
      const b = toNumber(evaluate(e.right, vars), e);
      return e.op === '+' ? a + b : e.op === '-' ? a - b : e.op === '*' ? a * b : e.op === '/' ? a / b : a % b;
    }
  }
}

function toNumber(v: Json, e: Expr): number {
  if (v === null) return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  throw new ConditionError('unsupported', `${print(e)}: ${JSON.stringify(v)} is not a number.`);
}

/** The value at a path, or undefined when any step is missing. Own properties only. */
export function lookup(vars: Variables, segments: readonly Segment[]): Json | undefined {
  let cur: Json | undefined = vars;
  for (const s of segments) {
    if (Array.isArray(cur)) {
      cur = typeof s === 'number' && s < cur.length ? cur[s] : undefined;
    } else if (cur !== null && typeof cur === 'object' && typeof s === 'string' && Object.prototype.hasOwnProperty.call(cur, s)) {
      cur = cur[s];
    } else {
      return undefined;
    }
  }
  return cur;
}

const TRUE_TEXT = /^true$/i;

/** EL's coercion to boolean as we apply it: see above. */
export function truthy(v: Json): boolean {
  return v === true || (typeof v === 'string' && TRUE_TEXT.test(v));
}

/** The canonical decimal text of a number, as a numeric string must read to equal it. */
export function numberText(n: number): string {
  return String(n);
}

/** The branch a ternary selects, repeatedly, so comparisons see the operand it stands for. */
function select(e: Expr, vars: Variables): Expr {
  while (e.kind === 'conditional') e = truthy(evaluate(e.test, vars)) ? e.consequent : e.alternate;
  return e;
}

function compare(op: Extract<Expr, { kind: 'compare' }>['op'], l: Expr, r: Expr, vars: Variables): boolean {
  const left = select(l, vars);
  const right = select(r, vars);
  const a = evaluate(left, vars);
  const b = evaluate(right, vars);
  if (op === '==' || op === '!=') {
    const eq = equals(a, b, left.kind === 'literal' || right.kind === 'literal');
    return op === '==' ? eq : !eq;
  }
  if (a === null || b === null) return a === null && b === null && (op === '<=' || op === '>=');
  if ((typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string')) {
    return op === '<' ? a < b : op === '>' ? a > b : op === '<=' ? a <= b : a >= b;
  }
  return false;
}

export function equals(a: Json, b: Json, coerce: boolean): boolean {
  if (a === null || b === null) return a === b;
  if (typeof a !== 'object' && typeof a === typeof b) return a === b;
  if (!coerce) return false;
  if (typeof a === 'string' && typeof b === 'number') return a === numberText(b);
  if (typeof a === 'number' && typeof b === 'string') return b === numberText(a);
  if (typeof a === 'string' && typeof b === 'boolean') return TRUE_TEXT.test(a) === b;
  if (typeof a === 'boolean' && typeof b === 'string') return TRUE_TEXT.test(b) === a;
  return false;
}
