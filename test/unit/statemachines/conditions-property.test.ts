/**
 * The compiled Choice rule decides what the reference evaluator decides, for random conditions
 * and random variables (missing and null values, wrong types, keys such as __proto__). Many runs
 * go through a small Choice-rule interpreter below, stricter than Step Functions (it fails on any
 * unguarded read or comparison of another type); a bounded sample runs in the real local engine
 * (aws-local-stepfunctions), which also cross-checks the interpreter.
 */
import '../../../lib/local/engine-polyfill.js';
import aslValidator from 'asl-validator';
import { StateMachine } from 'aws-local-stepfunctions';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ConditionError,
  evaluateCondition,
  jsonPath,
  parseCondition,
  print,
  toChoiceRule,
  type ChoiceRule,
  type CompareOp,
  type Expr,
  type Json,
  type Segment,
  type Variables,
} from '../../../statemachines/conditions/index.js';

const opts = { path: (s: readonly Segment[]) => jsonPath('$.vars', s) };

// ---- generators -------------------------------------------------------------------------

const KEYS = ['a', 'b', 'c', '__proto__', 'constructor', 'toString'] as const;
const STRINGS = ['', 'a', 'b', 'true', 'TRUE', 'tRuE', 'false', '5', '5.0', '2.5', '-1', '0', 'PASSPORT'];
const NUMBERS = [0, 1, -1, 2.5, 5, 10];

const key = fc.constantFrom(...KEYS);
const primitive: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(...NUMBERS),
  fc.constantFrom(...STRINGS),
);
// Object.fromEntries makes own properties, so "__proto__" is a key, not the prototype.
const { json } = fc.letrec<{ json: Json }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    primitive,
    fc.array(tie('json'), { maxLength: 2 }),
    fc.array(fc.tuple(key, tie('json')), { maxLength: 3 }).map((e) => Object.fromEntries(e) as Json),
  ),
}));
const variables: fc.Arbitrary<Variables> = fc
  .array(fc.tuple(key, json), { maxLength: 4 })
  .map((e) => Object.fromEntries(e) as Variables);

// Mostly top-level variables, so a literal often meets a value of its own or a coercible type.
const variable: fc.Arbitrary<Expr> = fc
  .tuple(
    key,
    fc.oneof(
      { arbitrary: fc.constant([]), weight: 3 },
      { arbitrary: fc.array(fc.oneof(key, fc.constantFrom(0, 1)), { minLength: 1, maxLength: 2 }), weight: 2 },
    ),
  )
  .map(([root, rest]) => ({ kind: 'variable', segments: [root, ...(rest as Segment[])] }));
const literal: fc.Arbitrary<Expr> = primitive.map((value) => ({ kind: 'literal', value: value as string | number | boolean | null }));
const hasVariable: fc.Arbitrary<Expr> = key.map((name) => ({ kind: 'hasVariable', name }));
const compareOp = fc.constantFrom<CompareOp>('==', '!=', '<', '>', '<=', '>=');

const { condition } = fc.letrec<{ condition: Expr; operand: Expr }>((tie) => ({
  condition: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    variable,
    hasVariable,
    literal,
    fc.record({ kind: fc.constant('compare' as const), op: compareOp, left: tie('operand'), right: tie('operand') }),
    fc.record({ kind: fc.constantFrom('and' as const, 'or' as const), left: tie('condition'), right: tie('condition') }),
    fc.record({ kind: fc.constant('not' as const), operand: tie('condition') }),
    fc.record({ kind: fc.constant('empty' as const), operand: tie('operand') }),
    fc.record({ kind: fc.constant('conditional' as const), test: tie('condition'), consequent: tie('condition'), alternate: tie('condition') }),
    // The family's `${_decision.equals("REVIEW")}`.
    fc.record({
      kind: fc.constant('equals' as const),
      receiver: variable as fc.Arbitrary<Extract<Expr, { kind: 'variable' }>>,
      argument: fc.oneof(fc.boolean(), fc.constantFrom(...NUMBERS), fc.constantFrom(...STRINGS)),
    }),
  ),
  operand: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    variable,
    variable,
    literal,
    fc.record({ kind: fc.constant('conditional' as const), test: tie('condition'), consequent: tie('operand'), alternate: tie('operand') }),
    tie('condition'),
  ),
}));

/** The rule, or undefined when the translation refuses (which is allowed; a wrong rule is not). */
function compile(e: Expr): ChoiceRule | undefined {
  try {
    return toChoiceRule(e, opts);
  } catch (err) {
    if (err instanceof ConditionError && err.reason === 'unsupported') return undefined;
    throw err;
  }
}

const compiled = fc
  .tuple(condition, variables)
  .map(([ast, vars]) => ({ ast, vars, rule: compile(ast) }))
  .filter((x): x is { ast: Expr; vars: Variables; rule: ChoiceRule } => x.rule !== undefined);

// ---- a Choice-rule interpreter, stricter than Step Functions -----------------------------------

const STEP = /^(?:\.([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\['([^'\\]*)'\])/;

/** A reference path as the local engine's JSONPath reads it: own properties, strings included. */
function query(path: string, input: unknown): unknown {
  if (!path.startsWith('$')) throw new Error(`not a path: ${path}`);
  let rest = path.slice(1);
  let cur: unknown = input;
  while (rest !== '') {
    const m = STEP.exec(rest);
    if (!m) throw new Error(`unsupported path ${path}`);
    rest = rest.slice(m[0].length);
    const k = m[1] ?? (m[2] !== undefined ? Number(m[2]) : m[3]!);
    if (cur === null || cur === undefined || !Object.prototype.hasOwnProperty.call(cur, k)) return undefined;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}

const TYPE: Record<string, string> = { String: 'string', Numeric: 'number', Boolean: 'boolean' };

export function interpret(rule: ChoiceRule, input: unknown): boolean {
  if ('And' in rule) return (rule.And as ChoiceRule[]).every((r) => interpret(r, input));
  if ('Or' in rule) return (rule.Or as ChoiceRule[]).some((r) => interpret(r, input));
  if ('Not' in rule) return !interpret(rule.Not as ChoiceRule, input);
  const path = rule.Variable as string;
  const [op, ...more] = Object.entries(rule).filter(([k]) => k !== 'Variable' && k !== 'Next');
  if (!op || more.length > 0) throw new Error(`malformed rule ${JSON.stringify(rule)}`);
  const [name, expected] = op;
  const v = query(path, input);
  if (/^Is/.test(name) && expected !== true) throw new Error(`${name}: false reads as never true in the local engine`);
  if (name === 'IsPresent') return v !== undefined;
  if (v === undefined) throw new Error(`States.Runtime: ${path} is missing (${name})`);
  if (name === 'IsNull') return v === null;
  if (name === 'IsString') return typeof v === 'string';
  if (name === 'IsNumeric') return typeof v === 'number';
  if (name === 'IsBoolean') return typeof v === 'boolean';
  const m = /^(String|Numeric|Boolean)(Equals|LessThan|GreaterThan|LessThanEquals|GreaterThanEquals)(Path)?$/.exec(name);
  if (!m) throw new Error(`unknown rule ${name}`);
  const other = m[3] ? query(expected as string, input) : expected;
  for (const x of [v, other]) {
    if (typeof x !== TYPE[m[1]!]) throw new Error(`States.Runtime: ${name} on ${JSON.stringify(x)} at ${path}`);
  }
  const a = v as string | number | boolean;
  const b = other as string | number | boolean;
  return { Equals: a === b, LessThan: a < b, GreaterThan: a > b, LessThanEquals: a <= b, GreaterThanEquals: a >= b }[m[2] as 'Equals'];
}


// ---- the real engine ---------------------------------------------------------------------

/** One Choice state; the Pass states answer with an object (the engine drops a falsy Result). */
function machine(...rules: ChoiceRule[]) {
  return {
    StartAt: 'Gateway',
    States: {
      Gateway: { Type: 'Choice', Choices: rules.map((rule) => ({ ...rule, Next: 'Yes' })), Default: 'No' },
      Yes: { Type: 'Pass', Result: { holds: true }, End: true },
      No: { Type: 'Pass', Result: { holds: false }, End: true },
    },
  };
}

async function runInEngine(rule: ChoiceRule, vars: Variables): Promise<boolean> {
  const sm = new StateMachine(machine(rule) as never, { validationOptions: { noValidate: true } });
  return ((await sm.run({ vars } as never).result) as { holds: boolean }).holds;
}

// ---- properties --------------------------------------------------------------------------

describe('conditions: the compiled Choice rule agrees with the reference evaluator', () => {
  it('prints every generated condition as text that parses back to it', () => {
    fc.assert(
      fc.property(condition, (ast) => {
        expect(parseCondition('${' + print(ast) + '}')).toEqual(ast);
      }),
      { numRuns: 1000 },
    );
  });

  it('decides as the evaluator does, never failing on a missing path or another type (interpreter)', () => {
    let refused = 0;
    let runs = 0;
    fc.assert(
      fc.property(condition, variables, (ast, vars) => {
        runs++;
        const rule = compile(ast);
        if (rule === undefined) {
          refused++;
          return;
        }
        expect(interpret(rule, { vars }), `${print(ast)} on ${JSON.stringify(vars)}`).toBe(evaluateCondition(ast, vars));
      }),
      { numRuns: 10_000 },
    );
    // Most generated conditions compile: the property is about rules, not refusals.
    expect(refused / runs).toBeLessThan(0.5);
  });

  it('decides every comparison of a variable with a literal or a variable as the evaluator does, in the interpreter and the engine (the coercion table, exhaustively)', async () => {
    // Random trees meet a coercible pair (5 and "5") rarely; this covers every pair and operator.
    const values: Json[] = [null, true, false, ...NUMBERS, ...STRINGS];
    const a: Expr = { kind: 'variable', segments: ['a'] };
    const b: Expr = { kind: 'variable', segments: ['b'] };
    const ops: CompareOp[] = ['==', '!=', '<', '>', '<=', '>='];
    const cases: { ast: Expr; vars: Variables }[] = [];
    for (const op of ops) {
      for (const x of [...values, undefined]) {
        const vars: Variables = x === undefined ? {} : { a: x };
        for (const v of values) {
          const lit: Expr = { kind: 'literal', value: v as string | number | boolean | null };
          cases.push({ ast: { kind: 'compare', op, left: a, right: lit }, vars }, { ast: { kind: 'compare', op, left: lit, right: a }, vars });
        }
        for (const y of [...values, undefined]) {
          cases.push({ ast: { kind: 'compare', op, left: a, right: b }, vars: y === undefined ? vars : { ...vars, b: y } });
        }
      }
    }
    let compiledCases = 0;
    for (const { ast, vars } of cases) {
      const rule = compile(ast);
      if (rule === undefined) continue;
      compiledCases++;
      const where = `${print(ast)} on ${JSON.stringify(vars)}`;
      const expected = evaluateCondition(ast, vars);
      expect(interpret(rule, { vars }), where).toBe(expected);
      expect(await runInEngine(rule, vars), where).toBe(expected);
    }
    expect(compiledCases).toBeGreaterThan(6000);
  });

  it('decides the same in the real local engine, and the interpreter agrees with it (sample)', async () => {
    const sample = fc.sample(compiled, { numRuns: 1000, seed: 10 });
    for (const { ast, vars, rule } of sample) {
      const expected = evaluateCondition(ast, vars);
      const where = `${print(ast)} on ${JSON.stringify(vars)}`;
      expect(await runInEngine(rule, vars), where).toBe(expected);
      expect(interpret(rule, { vars }), where).toBe(expected);
    }
  });

  it('reads keys named like Object.prototype members as plain keys, in the engine too', async () => {
    const vars = JSON.parse('{"__proto__": 1, "o": {"constructor": "x"}, "e": {}}') as Variables;
    const cases: [string, boolean][] = [
      ['${__proto__ == 1}', true],
      ['${o.constructor == "x"}', true],
      ['${e.constructor == null && e.__proto__ == null && e.toString == null}', true],
      ['${execution.hasVariable("constructor") || execution.hasVariable("toString")}', false],
      ['${empty e.hasOwnProperty}', true],
    ];
    for (const [text, expected] of cases) {
      const ast = parseCondition(text);
      expect(evaluateCondition(ast, vars), text).toBe(expected);
      const rule = toChoiceRule(ast, opts);
      expect(interpret(rule, { vars }), text).toBe(expected);
      expect(await runInEngine(rule, vars), text).toBe(expected);
    }
  });

  it('generates rules that asl-validator accepts in a state machine (sample)', () => {
    // One machine with many choices: asl-validator costs about 0.4 s a call.
    const rules = fc.sample(compiled, { numRuns: 60, seed: 7 }).map((x) => x.rule);
    const result = aslValidator(structuredClone(machine(...rules)), { checkPaths: true, checkArn: true });
    expect(result.errorsText('\n')).toBe('');
    expect(result.isValid).toBe(true);
  });
});
