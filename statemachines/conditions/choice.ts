/**
 * A condition to one Step Functions Choice rule in JSONPath (the local engine runs no JSONata),
 * deciding exactly what ./evaluate.ts decides, without ever failing the execution:
 * - every read is guarded by IsPresent, and every comparison by a type test (IsString,
 *   IsNumeric, IsBoolean), since Step Functions fails an execution that compares a missing path
 *   or a value of another type; And and Or stop at the first rule that decides them;
 * - a negative test is always `Not` of a positive one: the local engine reads `IsPresent: false`
 *   (and every `IsX: false`) as never true;
 * - `c ? a : b` is Or(And(c, a), And(Not(c), b)), and a comparison with a ternary compares each
 *   branch under its test.
 * What Choice rules cannot decide is refused, naming the sub-expression.
 */
import { ConditionError, print, type CompareOp, type Expr, type ExprOf, type Segment } from './ast.js';
import { numberText, truthy, equals } from './evaluate.js';
import { parseCondition } from './parse.js';

export type ChoiceRule = { [op: string]: unknown };

export interface ToChoiceRuleOptions {
  /** The JSONPath of a variable given its segments, e.g. `(s) => jsonPath('$.vars', s)`. */
  path: (segments: readonly Segment[]) => string;
}

/** A rule while building; constants fold away, and one left at the top becomes a tautology. */
type R = ChoiceRule | boolean;

/** Always true: the state input itself is always present. */
const TAUTOLOGY: ChoiceRule = { Variable: '$', IsPresent: true };

export function toChoiceRule(e: Expr, opts: ToChoiceRuleOptions): ChoiceRule {
  const r = new Translator(opts).bool(e);
  return r === true ? TAUTOLOGY : r === false ? { Not: TAUTOLOGY } : r;
}

/** parse + translate. Throws ConditionError; the caller adds the element id. */
export function compileCondition(text: string, opts: ToChoiceRuleOptions): ChoiceRule {
  const ast = parseCondition(text);
  try {
    return toChoiceRule(ast, opts);
  } catch (e) {
    if (e instanceof ConditionError) throw new ConditionError(e.reason, `Condition ${JSON.stringify(text)}: ${e.message}`);
    throw e;
  }
}

const SIMPLE = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * A JSONPath for segments under a prefix: `jsonPath('$.vars', ['a', 0, 'b c'])` is
 * `$.vars.a[0]['b c']`. A name with a quote or backslash is refused (JSONPath has no escape
 * that both Step Functions and the local engine read alike).
 */
export function jsonPath(prefix: string, segments: readonly Segment[]): string {
  return (
    prefix +
    segments
      .map((s) => {
        if (typeof s === 'number') return `[${s}]`;
        if (SIMPLE.test(s)) return `.${s}`;
        if (/['\\]/.test(s) || s === '') throw new ConditionError('unsupported', `the name ${JSON.stringify(s)} cannot be written as a JSONPath`);
        return `['${s}']`;
      })
      .join('')
  );
}

// Boolean.valueOf(s) is true for "true" in any case: its 16 spellings, since Choice rules match
// strings case-sensitively.
const TRUE_SPELLINGS = Array.from({ length: 16 }, (_, i) =>
  [...'true'].map((c, j) => ((i >> j) & 1 ? c.toUpperCase() : c)).join(''),
);

type Variable = ExprOf<'variable'>;
const BOOLEAN_KINDS = new Set<Expr['kind']>(['compare', 'and', 'or', 'not', 'empty', 'hasVariable', 'equals']);

class Translator {
  constructor(private readonly opts: ToChoiceRuleOptions) {}

  /** Holds when the expression's value coerces to true. */
  bool(e: Expr): R {
    switch (e.kind) {
      case 'literal':
        return truthy(e.value);
      case 'variable':
        return this.isTrue(e);
      case 'hasVariable':
        return { Variable: this.path([e.name]), IsPresent: true };
      case 'and':
        return and(this.bool(e.left), this.bool(e.right));
      case 'or':
        return or(this.bool(e.left), this.bool(e.right));
      case 'not':
        return not(this.bool(e.operand));
      case 'conditional': {
        const c = this.bool(e.test);
        return or(and(c, this.bool(e.consequent)), and(not(c), this.bool(e.alternate)));
      }
      case 'empty':
        return this.empty(e.operand, e);
      case 'compare':
        return this.compare(e.op, e.left, e.right, e);
      case 'equals': {
        const v = e.receiver;
        const a = e.argument;
        if (typeof a === 'string') return this.typed(v, 'IsString', this.test(v, { StringEquals: a }));
        if (typeof a === 'number') return this.typed(v, 'IsNumeric', this.test(v, { NumericEquals: a }));
        return this.typed(v, 'IsBoolean', this.test(v, { BooleanEquals: a }));
      }
      case 'arithmetic':
      case 'negate':
        throw refuse(e, 'arithmetic cannot be computed in a Choice rule');
    }
  }

  private path(segments: readonly Segment[]): string {
    for (const s of segments) {
      // jsonpath (the local engine's) reads an array's or a string's own `length`.
      if (s === 'length') throw new ConditionError('unsupported', `the property name "length" cannot be read in a Choice rule (JSONPath reads a list's length there)`);
    }
    return this.opts.path(segments);
  }

  /**
   * The variable is present. A string indexed by number is guarded too: the local engine's
   * JSONPath reads "abc"[0] as "a", JUEL as nothing.
   */
  private present(v: Variable): ChoiceRule {
    const rules: ChoiceRule[] = [{ Variable: this.path(v.segments), IsPresent: true }];
    v.segments.forEach((s, i) => {
      if (typeof s === 'number') rules.push({ Not: { Variable: this.path(v.segments.slice(0, i)), IsString: true } });
    });
    return rules.length === 1 ? rules[0]! : { And: rules };
  }

  private test(v: Variable, rule: Record<string, unknown>): ChoiceRule {
    return { Variable: this.path(v.segments), ...rule };
  }

  /** Missing or null. */
  private isNull(v: Variable): ChoiceRule {
    return { Or: [{ Not: this.present(v) }, this.test(v, { IsNull: true })] };
  }

  /** Present and of a type, then the comparison. */
  private typed(v: Variable, type: 'IsString' | 'IsNumeric' | 'IsBoolean', rule: R): R {
    return and(this.present(v), and(this.test(v, { [type]: true }), rule));
  }

  /** Of a type, then the comparison; only under a present() guard. */
  private is(v: Variable, type: 'IsString' | 'IsNumeric' | 'IsBoolean', rule: R): R {
    return and(this.test(v, { [type]: true }), rule);
  }

  private trueText(v: Variable): ChoiceRule {
    return { Or: TRUE_SPELLINGS.map((s) => this.test(v, { StringEquals: s })) };
  }

  private isTrue(v: Variable): R {
    return and(this.present(v), or(this.is(v, 'IsBoolean', this.test(v, { BooleanEquals: true })), this.is(v, 'IsString', this.trueText(v))));
  }

  private empty(x: Expr, whole: Expr): R {
    if (x.kind === 'literal') return x.value === null || x.value === '';
    if (x.kind === 'variable') return or(this.isNull(x), this.typed(x, 'IsString', this.test(x, { StringEquals: '' })));
    if (x.kind === 'conditional') {
      const c = this.bool(x.test);
      return or(and(c, this.empty(x.consequent, whole)), and(not(c), this.empty(x.alternate, whole)));
    }
    if (BOOLEAN_KINDS.has(x.kind)) return false;
    throw refuse(x, 'arithmetic cannot be computed in a Choice rule');
  }

  private compare(op: CompareOp, l: Expr, r: Expr, whole: Expr): R {
    // A comparison with a ternary compares each branch under its test.
    if (l.kind === 'conditional') {
      const c = this.bool(l.test);
      return or(and(c, this.compare(op, l.consequent, r, whole)), and(not(c), this.compare(op, l.alternate, r, whole)));
    }
    if (r.kind === 'conditional') {
      const c = this.bool(r.test);
      return or(and(c, this.compare(op, l, r.consequent, whole)), and(not(c), this.compare(op, l, r.alternate, whole)));
    }
    for (const x of [l, r]) {
      if (x.kind === 'arithmetic' || x.kind === 'negate') throw refuse(x, 'arithmetic cannot be computed in a Choice rule');
    }
    if (op === '!=') return not(this.compare('==', l, r, whole));
    if (l.kind === 'literal' && r.kind === 'literal') {
      if (op === '==') return equals(l.value, r.value, true);
      throw refuse(whole, 'compare a variable, not two literals');
    }
    // A boolean expression on the left, else the variable: the literal, if any, on the right.
    if (l.kind === 'literal' || (l.kind === 'variable' && r.kind !== 'variable' && r.kind !== 'literal')) {
      return this.compare(flip(op), r, l, whole);
    }

    if (l.kind !== 'variable') {
      // A boolean expression: true or false, never null.
      if (op !== '==') throw refuse(whole, 'booleans have no order');
      const b = this.bool(l);
      if (r.kind === 'literal') {
        if (typeof r.value === 'boolean') return r.value ? b : not(b);
        if (typeof r.value === 'string') return truthy(r.value) ? b : not(b);
        return false;
      }
      if (r.kind === 'variable') {
        const is = (value: boolean) => this.typed(r, 'IsBoolean', this.test(r, { BooleanEquals: value }));
        return or(and(b, is(true)), and(not(b), is(false)));
      }
      return or(and(b, this.bool(r)), and(not(b), not(this.bool(r))));
    }

    if (r.kind === 'literal') return this.compareLiteral(op, l, r.value, whole);
    if (r.kind === 'variable') {
      if (op !== '==') throw refuse(whole, 'ordering two variables is not supported (they may be strings, which a Choice rule cannot order against each other); compare with a literal');
      const b = this.path(r.segments);
      const same = (type: 'IsString' | 'IsNumeric' | 'IsBoolean', cmp: string): R =>
        and(this.present(r), and(this.test(r, { [type]: true }), this.typed(l, type, this.test(l, { [cmp]: b }))));
      return or(
        and(this.isNull(l), this.isNull(r)),
        or(same('IsString', 'StringEqualsPath'), or(same('IsNumeric', 'NumericEqualsPath'), same('IsBoolean', 'BooleanEqualsPath'))),
      );
    }
    throw refuse(whole, 'unexpected operands');
  }

  private compareLiteral(op: CompareOp, v: Variable, value: ExprOf<'literal'>['value'], whole: Expr): R {
    if (op === '==') {
      if (value === null) return this.isNull(v);
      // One presence guard, then one branch per type the literal can equal.
      if (typeof value === 'number') {
        return and(this.present(v), or(this.is(v, 'IsNumeric', this.test(v, { NumericEquals: value })), this.is(v, 'IsString', this.test(v, { StringEquals: numberText(value) }))));
      }
      if (typeof value === 'boolean') {
        return and(
          this.present(v),
          or(this.is(v, 'IsBoolean', this.test(v, { BooleanEquals: value })), this.is(v, 'IsString', value ? this.trueText(v) : not(this.trueText(v)))),
        );
      }
      const n = Number(value);
      const numeric = value.trim() !== '' && Number.isFinite(n) && numberText(n) === value;
      return and(
        this.present(v),
        or(
          this.is(v, 'IsString', this.test(v, { StringEquals: value })),
          or(numeric ? this.is(v, 'IsNumeric', this.test(v, { NumericEquals: n })) : false, this.is(v, 'IsBoolean', this.test(v, { BooleanEquals: truthy(value) }))),
        ),
      );
    }
    if (value === null) return op === '<=' || op === '>=' ? this.isNull(v) : false;
    const name = { '<': 'LessThan', '>': 'GreaterThan', '<=': 'LessThanEquals', '>=': 'GreaterThanEquals' }[op as '<' | '>' | '<=' | '>='];
    if (typeof value === 'number') return this.typed(v, 'IsNumeric', this.test(v, { [`Numeric${name}`]: value }));
    if (typeof value === 'string') return this.typed(v, 'IsString', this.test(v, { [`String${name}`]: value }));
    throw refuse(whole, 'booleans have no order');
  }
}

function flip(op: CompareOp): CompareOp {
  return op === '<' ? '>' : op === '>' ? '<' : op === '<=' ? '>=' : op === '>=' ? '<=' : op;
}

function refuse(e: Expr, why: string): ConditionError {
  return new ConditionError('unsupported', `${print(e)} cannot be compiled: ${why}.`);
}

function and(a: R, b: R): R {
  if (a === false || b === false) return false;
  if (a === true) return b;
  if (b === true) return a;
  return { And: unique([...('And' in a ? (a.And as ChoiceRule[]) : [a]), ...('And' in b ? (b.And as ChoiceRule[]) : [b])]) };
}

/** A test repeated in one And (a guard the operand already has) is dropped. */
function unique(rules: ChoiceRule[]): ChoiceRule[] {
  const seen = new Set<string>();
  return rules.filter((r) => {
    const key = JSON.stringify(r);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function or(a: R, b: R): R {
  if (a === true || b === true) return true;
  if (a === false) return b;
  if (b === false) return a;
  return { Or: [...('Or' in a ? (a.Or as ChoiceRule[]) : [a]), ...('Or' in b ? (b.Or as ChoiceRule[]) : [b])] };
}

function not(a: R): R {
  if (typeof a === 'boolean') return !a;
  if ('Not' in a) return a.Not as ChoiceRule;
  return { Not: a };
}
