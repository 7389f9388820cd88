/**
 * Input values as the designer writes them (text, `camunda:list`, `camunda:map`), typed by the
 * parameter's `type`. The designer writes number and boolean literals as `${60}` and `${true}`;
 * those become the number and the boolean (as the catalogue's defaults do). Any other `${...}` is
 * an expression evaluated at run time, so it stays a string whatever the type.
 */
import { BPMN_INPUT_TYPES, type BpmnInputType, type BpmnInputValue } from './graph.js';

/** What the XML holds for one parameter: at most one of text, list and map (none: an empty parameter). */
export interface RawInputValue {
  readonly text?: string;
  readonly list?: readonly string[];
  readonly map?: Readonly<Record<string, string>>;
}

export type ConvertedInput = { readonly value: BpmnInputValue } | { readonly problem: string };

export function isBpmnInputType(type: string): type is BpmnInputType {
  return (BPMN_INPUT_TYPES as readonly string[]).includes(type);
}

const EXPRESSION = /^\s*[$#]\{[\s\S]*\}\s*$/;
/** `60` or `${60}`; `true` or `${true}`. */
const INTEGER_TEXT = /^\s*(?:(-?\d+)|\$\{\s*(-?\d+)\s*\})\s*$/;
const BOOLEAN_TEXT = /^\s*(?:(true|false)|\$\{\s*(true|false)\s*\})\s*$/;

const literal = (pattern: RegExp, text: string) => {
  const m = pattern.exec(text);
  return m ? (m[1] ?? m[2]) : undefined;
};

/** Whether a text is a whole `${...}` (or `#{...}`) expression. */
export function isExpression(text: string): boolean {
  return EXPRESSION.test(text);
}

export function convertInputValue(type: BpmnInputType, raw: RawInputValue): ConvertedInput {
  const { text, list, map } = raw;
  if (text === undefined && list === undefined && map === undefined) return { value: null };
  if (type === 'LIST_STRING') {
    if (list !== undefined) return { value: [...list] };
    if (text !== undefined && isExpression(text)) return { value: text };
    return { problem: 'a LIST_STRING takes a camunda:list or a ${...} expression' };
  }
  if (type === 'MAP_STRING') {
    if (map !== undefined) return { value: { ...map } };
    if (text !== undefined && isExpression(text)) return { value: text };
    return { problem: 'a MAP_STRING takes a camunda:map or a ${...} expression' };
  }
  if (text === undefined) return { problem: `a ${type} takes text, not a camunda:${list ? 'list' : 'map'}` };
  switch (type) {
    case 'INTEGER': {
      // A literal in or out of `${}`; checked for exactness, since 2^53 + 1 would read as another number.
      const digits = literal(INTEGER_TEXT, text);
      if (digits !== undefined) {
        const n = Number(digits);
        if (Number.isSafeInteger(n)) return { value: n };
        return { problem: `${digits.slice(0, 30)} is too large an INTEGER` };
      }
      if (isExpression(text)) return { value: text };
      return { problem: `${JSON.stringify(text.slice(0, 50))} is not an INTEGER` };
    }
    case 'BOOLEAN': {
      const word = literal(BOOLEAN_TEXT, text);
      if (word !== undefined) return { value: word === 'true' };
      if (isExpression(text)) return { value: text };
      return { problem: `${JSON.stringify(text.slice(0, 50))} is not a BOOLEAN (true or false)` };
    }
    case 'STRING':
    case 'ENUM':
      return { value: text };
  }
}
