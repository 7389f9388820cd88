import aslValidator from 'asl-validator';
import { describe, expect, it } from 'vitest';
import {
  ConditionError,
  compileCondition,
  evaluateCondition,
  jsonPath,
  parseCondition,
  type ChoiceRule,
  type Segment,
  type Variables,
} from '../../../statemachines/conditions/index.js';

const opts = { path: (s: readonly Segment[]) => jsonPath('$.vars', s) };

/** A Choice state machine around one rule, as the integrator will emit it. */
export function choiceMachine(rule: ChoiceRule): unknown {
  return {
    StartAt: 'Gateway',
    States: {
      Gateway: { Type: 'Choice', Choices: [{ ...rule, Next: 'Yes' }], Default: 'No' },
      Yes: { Type: 'Pass', Result: true, End: true },
      No: { Type: 'Pass', Result: false, End: true },
    },
  };
}

function expectValidAsl(rule: ChoiceRule): void {
  const result = aslValidator(structuredClone(choiceMachine(rule)), { checkPaths: true, checkArn: true });
  expect(result.errorsText('\n')).toBe('');
  expect(result.isValid).toBe(true);
}

function holds(text: string, vars: Variables): boolean {
  return evaluateCondition(parseCondition(text), vars);
}

const PHOTO = '${_photoConfirmed!=true}';
const MOBILE = '${execution.hasVariable("isMobile") ? isMobile : false}';
const DOCUMENT =
  '${(_documentType != null ? _documentType == "PASSPORT" : false) || _customUis.documentSelection.currentCapture.customPageParameters.selectedDocumentType.value == "passport"}';

describe('conditions: the parser', () => {
  it('parses the examples from real definitions to a typed AST', () => {
    expect(parseCondition(PHOTO)).toEqual({
      kind: 'compare',
      op: '!=',
      left: { kind: 'variable', segments: ['_photoConfirmed'] },
      right: { kind: 'literal', value: true },
    });
    expect(parseCondition(MOBILE)).toEqual({
      kind: 'conditional',
      test: { kind: 'hasVariable', name: 'isMobile' },
      consequent: { kind: 'variable', segments: ['isMobile'] },
      alternate: { kind: 'literal', value: false },
    });
    const doc = parseCondition(DOCUMENT);
    expect(doc.kind).toBe('or');
    expect(doc.kind === 'or' && doc.right).toEqual({
      kind: 'compare',
      op: '==',
      left: {
        kind: 'variable',
        segments: ['_customUis', 'documentSelection', 'currentCapture', 'customPageParameters', 'selectedDocumentType', 'value'],
      },
      right: { kind: 'literal', value: 'passport' },
    });
  });

  it('reads the word operators, empty, literals, indexes and getVariable', () => {
    expect(parseCondition('${a eq 1 and not empty b.c[0] or d["k"] ge 2.5}')).toEqual({
      kind: 'or',
      left: {
        kind: 'and',
        left: { kind: 'compare', op: '==', left: { kind: 'variable', segments: ['a'] }, right: { kind: 'literal', value: 1 } },
        right: { kind: 'not', operand: { kind: 'empty', operand: { kind: 'variable', segments: ['b', 'c', 0] } } },
      },
      right: { kind: 'compare', op: '>=', left: { kind: 'variable', segments: ['d', 'k'] }, right: { kind: 'literal', value: 2.5 } },
    });
    expect(parseCondition("${x ne 'it\\'s' && y lt -3 && z gt null && w le false}").kind).toBe('and');
    expect(parseCondition('${execution.getVariable("a-b").c}')).toEqual({ kind: 'variable', segments: ['a-b', 'c'] });
    expect(parseCondition('  ${ list["0"] }\n')).toEqual({ kind: 'variable', segments: ['list', 0] });
    expect(parseCondition("${'single' == \"double\"}")).toEqual({
      kind: 'compare',
      op: '==',
      left: { kind: 'literal', value: 'single' },
      right: { kind: 'literal', value: 'double' },
    });
  });

  it('gives JUEL precedence: ! before comparison before && before || before ?:', () => {
    expect(parseCondition('${a || b && !c == d ? e : f}')).toEqual({
      kind: 'conditional',
      test: {
        kind: 'or',
        left: { kind: 'variable', segments: ['a'] },
        right: {
          kind: 'and',
          left: { kind: 'variable', segments: ['b'] },
          right: { kind: 'compare', op: '==', left: { kind: 'not', operand: { kind: 'variable', segments: ['c'] } }, right: { kind: 'variable', segments: ['d'] } },
        },
      },
      consequent: { kind: 'variable', segments: ['e'] },
      alternate: { kind: 'variable', segments: ['f'] },
    });
  });

  it.each([
    ['x == 1', 0, 'is not of the form'],
    ['${}', 2, 'empty'],
    ['${a ==}', 6, 'Expected expression after =='],
    ['${a b}', 4, 'expected an operator'],
    ['${(a == 1}', 9, ''],
    ['${a == "open}', 12, 'Unclosed quote'],
    ['${a ? b}', 7, ''],
    ['  ${a @ b}', 6, ''],
  ])('refuses %j with the position (%i)', (text, position, words) => {
    let error: unknown;
    try {
      parseCondition(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConditionError);
    const e = error as ConditionError;
    expect(e.reason).toBe('parse');
    expect(e.position).toBe(position);
    expect(e.message).toContain(JSON.stringify(text));
    expect(e.message).toContain(`at character ${position}`);
    expect(e.message).toContain(words);
  });

  it.each([
    ['${foo.bar(1)}', 'the method call foo.bar(1) is not supported'],
    ['${execution.getVariables()}', 'execution.getVariables() is not supported'],
    ['${execution.hasVariable(x)}', 'execution.hasVariable takes one quoted variable name'],
    ['${execution.processInstanceId == "x"}', '`execution` is the process instance'],
    ['${a[b] == 1}', 'the index [b] is not a literal'],
    ['${a[-1] == 1}', 'is not a whole number'],
    ['${a === 1}', 'Expected expression after =='],
    ['${[1, 2]}', 'list literals'],
  ])('refuses what is not the subset: %s', (text, words) => {
    expect(() => parseCondition(text)).toThrow(ConditionError);
    expect(() => parseCondition(text)).toThrow(words);
  });
});

describe('conditions: the reference evaluator', () => {
  it('decides the examples as the family means them', () => {
    expect(holds(PHOTO, {})).toBe(true); // not confirmed: missing is null
    expect(holds(PHOTO, { _photoConfirmed: true })).toBe(false);
    expect(holds(PHOTO, { _photoConfirmed: 'TRUE' })).toBe(false); // Boolean.valueOf ignores case
    expect(holds(PHOTO, { _photoConfirmed: false })).toBe(true);
    expect(holds(MOBILE, {})).toBe(false);
    expect(holds(MOBILE, { isMobile: true })).toBe(true);
    expect(holds(MOBILE, { isMobile: 'true' })).toBe(true);
    expect(holds(MOBILE, { isMobile: null })).toBe(false);
    expect(holds(DOCUMENT, {})).toBe(false);
    expect(holds(DOCUMENT, { _documentType: 'PASSPORT' })).toBe(true);
    expect(holds(DOCUMENT, { _documentType: 'ID_CARD' })).toBe(false);
    const selected = (value: unknown) => ({
      _customUis: { documentSelection: { currentCapture: { customPageParameters: { selectedDocumentType: { value } } } } },
    });
    expect(holds(DOCUMENT, selected('passport') as Variables)).toBe(true);
    expect(holds(DOCUMENT, selected('PASSPORT') as Variables)).toBe(false);
    expect(holds(DOCUMENT, { _customUis: 'text' })).toBe(false);
  });

  it("reads Java's equals as the family writes it: same type and value, no coercion", () => {
    const review = '${_decision.equals("REVIEW")}';
    expect(holds(review, { _decision: 'REVIEW' })).toBe(true);
    expect(holds(review, { _decision: 'PASS' })).toBe(false);
    expect(holds(review, {})).toBe(false); // Camunda would throw on null; here it does not hold
    // JUEL's == coerces (false == "REVIEW" holds, Boolean.valueOf); equals does not.
    expect(holds('${_decision == "REVIEW"}', { _decision: false })).toBe(true);
    expect(holds(review, { _decision: false })).toBe(false);
    expect(holds("${n.equals('5')}", { n: 5 })).toBe(false);
    expect(holds('${n.equals(5)}', { n: 5 })).toBe(true);
    expect(holds('${!flags.done.equals(true)}', { flags: { done: true } })).toBe(false);
    expectValidAsl(compileCondition(review, opts));
    expect(() => parseCondition('${a.equals(b)}')).toThrow(ConditionError);
  });

  it('applies the coercions and null rules it documents', () => {
    expect(holds('${n == 5}', { n: '5' })).toBe(true);
    expect(holds('${n == "5"}', { n: 5 })).toBe(true);
    expect(holds('${n == 5}', { n: '5.0' })).toBe(false);
    expect(holds('${n == 2.5}', { n: '2.5' })).toBe(true);
    expect(holds('${n == m}', { n: '5', m: 5 })).toBe(false); // no coercion between two variables
    expect(holds('${n == m}', {})).toBe(true); // null == null
    expect(holds('${n <= null}', {})).toBe(true);
    expect(holds('${n < null}', {})).toBe(false);
    expect(holds('${n > 3}', { n: '5' })).toBe(false);
    expect(holds('${s < "b"}', { s: 'a' })).toBe(true);
    expect(holds('${empty s}', {})).toBe(true);
    expect(holds('${empty s}', { s: '' })).toBe(true);
    expect(holds('${empty s}', { s: [] })).toBe(false);
    expect(holds('${not empty s}', { s: 'x' })).toBe(true);
    expect(holds('${a.b == null}', { a: 7 })).toBe(true);
    expect(holds('${a.constructor == null && a.__proto__ == null}', { a: {} })).toBe(true);
    expect(holds('${execution.hasVariable("x")}', { x: null })).toBe(true);
    expect(holds('${(c ? a : b) == 1}', { c: true, a: 1, b: 2 })).toBe(true);
    expect(holds('${(c ? a : b) == 1}', { c: false, a: 1, b: 2 })).toBe(false);
    expect(holds('${x && y}', { x: 1, y: true })).toBe(false); // a number is not true
    expect(holds('${a + 1 == 3}', { a: 2 })).toBe(true); // the evaluator computes; the compiler refuses
  });
});

describe('conditions: the translation to Choice rules', () => {
  it('compiles the examples to valid ASL, every comparison guarded', () => {
    for (const text of [PHOTO, MOBILE, DOCUMENT]) {
      const rule = compileCondition(text, opts);
      expectValidAsl(rule);
      expect(JSON.stringify(rule)).toContain('"IsPresent":true');
      // Negative tests are Not, never IsX: false (the local engine reads those as never true).
      expect(JSON.stringify(rule)).not.toMatch(/"Is[A-Za-z]+":false/);
    }
    // hasVariable ? isMobile : false folds to: present, and then true.
    expect(compileCondition(MOBILE, opts)).toEqual({
      And: [{ Variable: '$.vars.isMobile', IsPresent: true }, { Or: expect.any(Array) }],
    });
  });

  it('uses the ...Path variants between two variables and a tautology for a constant', () => {
    const rule = JSON.stringify(compileCondition('${a.b[0] == c}', opts));
    for (const op of ['StringEqualsPath', 'NumericEqualsPath', 'BooleanEqualsPath']) expect(rule).toContain(`"${op}":"$.vars.c"`);
    expect(rule).toContain('"Variable":"$.vars.a.b[0]"');
    expect(compileCondition('${true || x}', opts)).toEqual({ Variable: '$', IsPresent: true });
    expect(compileCondition('${"a" == "b"}', opts)).toEqual({ Not: { Variable: '$', IsPresent: true } });
    expectValidAsl(compileCondition('${a.b[0] == c}', opts));
    expectValidAsl(compileCondition('${true}', opts));
    expectValidAsl(compileCondition('${a["x y"] >= 3 && empty b}', opts));
  });

  it.each([
    ['${a + 1 > 2}', 'a + 1 cannot be compiled: arithmetic'],
    ['${-a == 1}', '-a cannot be compiled: arithmetic'],
    ['${a < b}', 'a < b cannot be compiled: ordering two variables'],
    ['${(x ? a : b) > c}', 'ordering two variables'],
    ['${(a == 1) < true}', 'booleans have no order'],
    ['${a > true}', 'booleans have no order'],
    ['${1 < 2}', 'compare a variable, not two literals'],
    ['${a.length > 2}', 'the property name "length"'],
    ["${a[\"it's\"] == 1}", 'cannot be written as a JSONPath'],
  ])('refuses %s, naming the sub-expression', (text, words) => {
    let error: unknown;
    try {
      compileCondition(text, opts);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConditionError);
    expect((error as ConditionError).reason).toBe('unsupported');
    expect((error as ConditionError).message).toContain(JSON.stringify(text));
    expect((error as ConditionError).message).toContain(words);
  });
});
