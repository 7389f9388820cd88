/**
 * Text with embedded expressions, as the family's designer writes a value built from the
 * journey's data (Redirect User V2's `Redirect URL`):
 * `${idv.config._redirectUrl > "" ? idv.config._redirectUrl : "www.example.com"}&otpRefId=${idv.otp.otpRef}`.
 * Each `${...}` is an expression in the family's JUEL subset (conditions/), evaluated by the
 * reference evaluator (conditions/evaluate.ts) with the semantics output parameters use: a
 * missing variable is null. As in JUEL's composite expressions, each value becomes text and the
 * parts are concatenated: null is the empty text, a string itself, a number its decimal text, a
 * boolean `true` or `false` (a list or map: its JSON). Nothing is escaped or encoded.
 *
 * `\${` is the text `${`. A `}` inside a quoted string does not end an expression.
 */
import { ConditionError, evaluate, parseCondition, print, type Expr, type Json, type Variables } from './conditions/index.js';

export type TemplatePart = { readonly text: string } | { readonly expression: Expr; readonly source: string };

/**
 * The parts of a template, in order; text without `${` is one text part. Throws a
 * ConditionError (`parse`, with the position of the `${` in the whole text) when an expression
 * is not closed or does not parse, or (`unsupported`) names what the subset does not take.
 */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = '';
  let i = 0;
  while (i < template.length) {
    if (template.startsWith('\\${', i)) {
      text += '${';
      i += 3;
      continue;
    }
    if (!template.startsWith('${', i)) {
      text += template[i];
      i++;
      continue;
    }
    const end = closingBrace(template, i + 2);
    if (end === undefined) {
      throw new ConditionError('parse', `Template ${JSON.stringify(template)}: the expression at character ${i} is not closed with }.`, i);
    }
    const source = template.slice(i, end + 1);
    let expression: Expr;
    try {
      expression = parseCondition(source);
    } catch (e) {
      if (!(e instanceof ConditionError)) throw e;
      throw new ConditionError(e.reason, `Template, expression at character ${i}: ${e.message}`, e.position === undefined ? i : i + e.position);
    }
    if (text) parts.push({ text });
    text = '';
    parts.push({ expression, source });
    i = end + 1;
  }
  if (text) parts.push({ text });
  return parts;
}

/** Where the `}` that closes an expression starting at `from` is (quotes and nested braces skipped). */
function closingBrace(s: string, from: number): number | undefined {
  let quote: string | undefined;
  let depth = 0;
  for (let j = from; j < s.length; j++) {
    const c = s[j];
    if (quote) {
      if (c === '\\') j++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '{') {
      depth++;
    } else if (c === '}') {
      if (depth === 0) return j;
      depth--;
    }
  }
  return undefined;
}

/** A value as the text a composite expression makes of it. */
export function templateText(value: Json): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * The template's text with each expression's value in its place. An expression that cannot be
 * evaluated (arithmetic on a value that is not a number) throws a ConditionError naming the
 * expression, never the value it met (which may be what an end user typed).
 */
export function evaluateTemplate(parts: readonly TemplatePart[], vars: Variables): string {
  return parts
    .map((p) => {
      if ('text' in p) return p.text;
      try {
        return templateText(evaluate(p.expression, vars));
      } catch (e) {
        if (!(e instanceof ConditionError)) throw e;
        throw new ConditionError('unsupported', `Template, expression \${${print(p.expression)}}: a value it reads is not a number.`);
      }
    })
    .join('');
}
