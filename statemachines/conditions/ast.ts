/**
 * The typed AST of a condition in the family's JUEL subset (see README.md in this folder).
 * Parentheses leave no node; `execution.getVariable("x")` is the variable `x`.
 */

export type LiteralValue = string | number | boolean | null;

/** A step into a value: a property name (`a.b`, `a["b"]`) or a list index (`a[0]`). */
export type Segment = string | number;

export type CompareOp = '==' | '!=' | '<' | '>' | '<=' | '>=';
export type ArithmeticOp = '+' | '-' | '*' | '/' | '%';

export type Expr =
  | { kind: 'literal'; value: LiteralValue }
  | { kind: 'variable'; segments: [string, ...Segment[]] }
  | { kind: 'hasVariable'; name: string }
  | { kind: 'compare'; op: CompareOp; left: Expr; right: Expr }
  | { kind: 'and' | 'or'; left: Expr; right: Expr }
  | { kind: 'not'; operand: Expr }
  | { kind: 'empty'; operand: Expr }
  | { kind: 'conditional'; test: Expr; consequent: Expr; alternate: Expr }
  /** Java's `x.equals(literal)` (`${_decision.equals("REVIEW")}`): same type and value, no coercion. */
  | { kind: 'equals'; receiver: ExprOf<'variable'>; argument: string | number | boolean }
  // Parsed so a refusal can name it; Choice rules cannot compute.
  | { kind: 'arithmetic'; op: ArithmeticOp; left: Expr; right: Expr }
  | { kind: 'negate'; operand: Expr };

export type ExprOf<K extends Expr['kind']> = Extract<Expr, { kind: K }>;

/**
 * Thrown for text that is not a condition (`parse`, with the position) and for a condition the
 * translation cannot express (`unsupported`, naming the sub-expression). The caller adds the
 * element id.
 */
export class ConditionError extends Error {
  override readonly name = 'ConditionError';
  constructor(
    readonly reason: 'parse' | 'unsupported',
    message: string,
    /** 0-based offset into the whole text (with `${`), for parse errors. */
    readonly position?: number,
  ) {
    super(message);
  }
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The expression as JUEL text, for messages: `a.b[0] == "x"`. */
export function print(e: Expr): string {
  switch (e.kind) {
    case 'literal':
      return typeof e.value === 'string' ? JSON.stringify(e.value) : String(e.value);
    case 'variable': {
      const [root, ...rest] = e.segments;
      return root + rest.map((s) => (typeof s === 'number' ? `[${s}]` : IDENTIFIER.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`)).join('');
    }
    case 'hasVariable':
      return `execution.hasVariable(${JSON.stringify(e.name)})`;
    case 'compare':
    case 'arithmetic':
      return `${group(e.left)} ${e.op} ${group(e.right)}`;
    case 'and':
      return `${group(e.left)} && ${group(e.right)}`;
    case 'or':
      return `${group(e.left)} || ${group(e.right)}`;
    case 'not':
      return `!${group(e.operand)}`;
    case 'negate':
      return `-${group(e.operand)}`;
    case 'empty':
      return `empty ${group(e.operand)}`;
    case 'conditional':
      return `${group(e.test)} ? ${group(e.consequent)} : ${group(e.alternate)}`;
    case 'equals':
      return `${print(e.receiver)}.equals(${print({ kind: 'literal', value: e.argument })})`;
  }
}

function group(e: Expr): string {
  const atomic = e.kind === 'literal' || e.kind === 'variable' || e.kind === 'hasVariable' || e.kind === 'equals';
  return atomic ? print(e) : `(${print(e)})`;
}
