/**
 * Parses a condition in the family's JUEL subset into the typed AST of ./ast.ts.
 *
 * The tokenizer and precedence climbing are jsep's (a small, maintained expression parser with a
 * plugin for `?:`), configured here for JUEL: the word operators (`and or not eq ne lt gt le ge
 * empty`) are added, JavaScript's own (`===`, `??`, bitwise, `**`, unary `+`/`~`) removed. jsep's
 * tree is then checked and converted node by node, so anything JUEL-shaped that we do not take
 * (other method calls, `this`, list literals, two expressions side by side) is refused here with
 * its position or its text.
 *
 * jsep's configuration is module-global; this module is its only user in the service.
 */
import jsep from 'jsep';
import ternary from '@jsep-plugin/ternary';
import { ConditionError, print, type CompareOp, type Expr, type Segment } from './ast.js';

jsep.plugins.register(ternary);
for (const op of ['??', '|', '^', '&', '===', '!==', '<<', '>>', '>>>', '**']) jsep.removeBinaryOp(op);
for (const op of ['~', '+']) jsep.removeUnaryOp(op);
// JUEL's precedence: or < and < equality < relational < additive < multiplicative (as jsep's).
jsep.addBinaryOp('or', 1);
jsep.addBinaryOp('and', 2);
jsep.addBinaryOp('eq', 6);
jsep.addBinaryOp('ne', 6);
for (const op of ['lt', 'gt', 'le', 'ge']) jsep.addBinaryOp(op, 7);
jsep.addBinaryOp('div', 10);
jsep.addBinaryOp('mod', 10);
jsep.addUnaryOp('not');
jsep.addUnaryOp('empty');

// Where each expression ended, to point at the second of two expressions side by side.
const ends = new WeakMap<object, number>();
jsep.hooks.add('after-expression', function (this: { index: number }, env: { node?: jsep.Expression }) {
  if (env.node) ends.set(env.node, this.index);
});

const COMPARE: Record<string, CompareOp> = {
  '==': '==', eq: '==', '!=': '!=', ne: '!=', '<': '<', lt: '<', '>': '>', gt: '>', '<=': '<=', le: '<=', '>=': '>=', ge: '>=',
};
const ARITHMETIC = { '+': '+', '-': '-', '*': '*', '/': '/', div: '/', '%': '%', mod: '%' } as const;
const EXECUTION = 'execution';

/**
 * `${expr}`, with optional white space around it, to its AST. Throws a ConditionError with the
 * text and the 0-based position on malformed input.
 */
export function parseCondition(text: string): Expr {
  const m = /^(\s*)\$\{([\s\S]*)\}\s*$/.exec(text);
  if (m === null) {
    throw new ConditionError('parse', `Condition ${JSON.stringify(text)} is not of the form \${...} (at character 0).`, 0);
  }
  const offset = m[1]!.length + 2;
  const body = m[2]!;
  if (body.trim() === '') throw fail(text, 'the expression is empty', offset);
  let tree: jsep.Expression;
  try {
    tree = jsep(body);
  } catch (e) {
    const index = (e as { index?: number }).index ?? 0;
    const description = (e as { description?: string }).description ?? (e as Error).message;
    throw fail(text, description, offset + index);
  }
  if (tree.type === 'Compound') {
    const first = (tree as jsep.Compound).body[0];
    let at = first ? (ends.get(first) ?? 0) : 0;
    while (/\s|[;,]/.test(body[at] ?? '')) at++;
    throw fail(text, first ? 'expected an operator between two expressions' : 'the expression is empty', offset + at);
  }
  return convert(tree, text);
}

function fail(text: string, what: string, position: number): ConditionError {
  return new ConditionError('parse', `Condition ${JSON.stringify(text)}: ${what} (at character ${position}).`, position);
}

function unsupported(text: string, what: string): ConditionError {
  return new ConditionError('unsupported', `Condition ${JSON.stringify(text)}: ${what}.`);
}

function convert(node: jsep.Expression, text: string): Expr {
  switch (node.type) {
    case 'Literal': {
      const value = (node as jsep.Literal).value;
      if (typeof value === 'number' && !Number.isFinite(value)) throw unsupported(text, `the number ${(node as jsep.Literal).raw} is out of range`);
      if (value instanceof RegExp) throw unsupported(text, `${(node as jsep.Literal).raw} is not a JUEL literal`);
      return { kind: 'literal', value: value as string | number | boolean | null };
    }
    case 'Identifier':
    case 'MemberExpression':
      return { kind: 'variable', segments: path(node, text) };
    case 'CallExpression':
      return call(node as jsep.CallExpression, text);
    case 'UnaryExpression': {
      const u = node as jsep.UnaryExpression;
      const operand = convert(u.argument, text);
      if (u.operator === '!' || u.operator === 'not') return { kind: 'not', operand };
      if (u.operator === 'empty') return { kind: 'empty', operand };
      // `-5` is the literal -5, as JUEL reads it.
      if (operand.kind === 'literal' && typeof operand.value === 'number') return { kind: 'literal', value: -operand.value };
      return { kind: 'negate', operand };
    }
    case 'BinaryExpression': {
      const b = node as jsep.BinaryExpression;
      const left = convert(b.left, text);
      const right = convert(b.right, text);
      if (b.operator === '&&' || b.operator === 'and') return { kind: 'and', left, right };
      if (b.operator === '||' || b.operator === 'or') return { kind: 'or', left, right };
      const cmp = COMPARE[b.operator];
      if (cmp) return { kind: 'compare', op: cmp, left, right };
      const arith = ARITHMETIC[b.operator as keyof typeof ARITHMETIC];
      if (arith) return { kind: 'arithmetic', op: arith, left, right };
      throw unsupported(text, `the operator ${b.operator} is not JUEL`);
    }
    case 'ConditionalExpression': {
      const c = node as jsep.ConditionalExpression;
      return { kind: 'conditional', test: convert(c.test, text), consequent: convert(c.consequent, text), alternate: convert(c.alternate, text) };
    }
    case 'ThisExpression':
      throw unsupported(text, '`this` is not a variable');
    case 'ArrayExpression':
      throw unsupported(text, 'list literals are not supported');
    default:
      throw unsupported(text, `a ${node.type} is not supported`);
  }
}

/** `a.b[0]["k"]` to its segments; the root is a name, every index a literal. */
function path(node: jsep.Expression, text: string): [string, ...Segment[]] {
  if (node.type === 'Identifier') {
    const name = (node as jsep.Identifier).name;
    if (name === EXECUTION) throw unsupported(text, '`execution` is the process instance, usable only as execution.hasVariable("x") or execution.getVariable("x")');
    return [name];
  }
  if (node.type !== 'MemberExpression') throw unsupported(text, `a property of ${describe(node, text)} is not supported; properties are read from variables`);
  const m = node as jsep.MemberExpression;
  const base = m.object.type === 'CallExpression' ? getVariable(m.object as jsep.CallExpression, text) : path(m.object, text);
  if (!m.computed) return [...base, (m.property as jsep.Identifier).name];
  const p = m.property;
  if (p.type === 'UnaryExpression' && (p as jsep.UnaryExpression).operator === '-') {
    throw unsupported(text, `the index [${describe(p, text)}] is not a whole number of at least 0`);
  }
  if (p.type !== 'Literal') throw unsupported(text, `the index [${describe(p, text)}] is not a literal; only a[0] and a["key"] are supported`);
  const v = (p as jsep.Literal).value;
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 0) throw unsupported(text, `the index [${(p as jsep.Literal).raw}] is not a whole number of at least 0`);
    return [...base, v];
  }
  if (typeof v !== 'string') throw unsupported(text, `the index [${(p as jsep.Literal).raw}] is neither a number nor a string`);
  // JUEL reads list["0"] as list[0].
  return [...base, /^(0|[1-9]\d{0,14})$/.test(v) ? Number(v) : v];
}

function getVariable(c: jsep.CallExpression, text: string): [string] {
  const e = call(c, text);
  if (e.kind !== 'variable') throw unsupported(text, `a property of ${print(e)} is not supported`);
  return e.segments as [string];
}

function call(c: jsep.CallExpression, text: string): Expr {
  const callee = c.callee;
  // `x.equals("REVIEW")`: Java's equals on a variable, with one literal.
  if (callee.type === 'MemberExpression' && !(callee as jsep.MemberExpression).computed && ((callee as jsep.MemberExpression).property as jsep.Identifier).name === 'equals') {
    const object = (callee as jsep.MemberExpression).object;
    const isExecution = object.type === 'Identifier' && (object as jsep.Identifier).name === EXECUTION;
    if (!isExecution) {
      const receiver = object.type === 'CallExpression' ? getVariable(object as jsep.CallExpression, text) : path(object, text);
      const [arg, ...more] = c.arguments;
      const negative = arg?.type === 'UnaryExpression' && (arg as jsep.UnaryExpression).operator === '-' ? (arg as jsep.UnaryExpression).argument : undefined;
      const literal = negative?.type === 'Literal' && typeof (negative as jsep.Literal).value === 'number' ? -((negative as jsep.Literal).value as number) : undefined;
      const value = literal ?? (arg?.type === 'Literal' ? (arg as jsep.Literal).value : undefined);
      if (more.length > 0 || (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')) {
        throw unsupported(text, `${describe(c, text)}: equals takes one literal (a quoted string, a number, true or false)`);
      }
      return { kind: 'equals', receiver: { kind: 'variable', segments: receiver }, argument: value };
    }
  }
  const method =
    callee.type === 'MemberExpression' &&
    !(callee as jsep.MemberExpression).computed &&
    (callee as jsep.MemberExpression).object.type === 'Identifier' &&
    ((callee as jsep.MemberExpression).object as jsep.Identifier).name === EXECUTION
      ? ((callee as jsep.MemberExpression).property as jsep.Identifier).name
      : undefined;
  if (method !== 'hasVariable' && method !== 'getVariable' && method !== 'hasVariableLocal' && method !== 'getVariableLocal') {
    throw unsupported(text, `the method call ${describe(c, text)} is not supported; only execution.hasVariable("x") and execution.getVariable("x") (and their ...Local forms) are`);
  }
  const [arg, ...more] = c.arguments;
  if (!arg || more.length > 0 || arg.type !== 'Literal' || typeof (arg as jsep.Literal).value !== 'string') {
    throw unsupported(text, `execution.${method} takes one quoted variable name`);
  }
  const name = (arg as jsep.Literal).value as string;
  // The ...Local forms read the step's own variables in Camunda. Here a step's result is merged
  // into the journey's variables before its output parameters are evaluated, so they read the
  // same value (one difference: a variable the step did not set, left by an earlier step, is seen).
  return method === 'hasVariable' || method === 'hasVariableLocal' ? { kind: 'hasVariable', name } : { kind: 'variable', segments: [name] };
}

/** A jsep node as text for a message, through our printer when it converts. */
function describe(node: jsep.Expression, text: string): string {
  if (node.type === 'CallExpression') {
    const c = node as jsep.CallExpression;
    return `${describe(c.callee, text)}(${c.arguments.map((a) => describe(a, text)).join(', ')})`;
  }
  if (node.type === 'MemberExpression') {
    const m = node as jsep.MemberExpression;
    return m.computed ? `${describe(m.object, text)}[${describe(m.property, text)}]` : `${describe(m.object, text)}.${(m.property as jsep.Identifier).name}`;
  }
  if (node.type === 'Identifier') return (node as jsep.Identifier).name;
  if (node.type === 'Literal') return String((node as jsep.Literal).raw);
  if (node.type === 'ThisExpression') return 'this';
  if (node.type === 'UnaryExpression') return `${(node as jsep.UnaryExpression).operator}${describe((node as jsep.UnaryExpression).argument, text)}`;
  try {
    return print(convert(node, text));
  } catch {
    return node.type;
  }
}
