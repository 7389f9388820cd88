/**
 * JSON from outside the service (a request body, a form or definition sent as a JSON string,
 * what a browser posts), read with three rules before anything walks it:
 *
 * - at most MAX_JSON_DEPTH levels of nesting. JSON.parse itself copes with any depth, but every
 *   later step that walks a value (validation, the prototype-key check, the DynamoDB marshaller,
 *   structuredClone, the ASL validator) recurses, and a 10 KB body nested 5,000 deep exhausts
 *   the stack: a 500 that anyone could make without a credential. The depth is counted on the
 *   text, in one pass without recursion, before it is parsed;
 * - no key named `__proto__` (shared/own.ts says why);
 * - it parses.
 *
 * 64 is far above what any document of the interface needs (a data form is about 6 deep, a
 * definition about 8) and below every recursion that follows. DynamoDB allows 32 levels inside
 * an item; values stored whole are bounded by their own schemas.
 */
export const MAX_JSON_DEPTH = 64;

export type JsonProblem =
  | { kind: 'syntax'; message: string }
  | { kind: 'depth'; message: string }
  | { kind: 'proto'; message: string; path: string[] };

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether the text nests objects and arrays deeper than `max` (brackets inside strings do not
 * count). Linear in the text, constant memory; it does not check the syntax (JSON.parse does).
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/** The problem with a JSON text from outside, or its value. Never throws for any text. */
export function readJson(text: string, maxDepth = MAX_JSON_DEPTH): { ok: true; value: unknown } | { ok: false; problem: JsonProblem } {
  if (nestsDeeperThan(text, maxDepth)) {
    return { ok: false, problem: { kind: 'depth', message: `nests objects and arrays more than ${maxDepth} levels deep` } };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, problem: { kind: 'syntax', message: (err as Error).message.split('\n')[0]!.slice(0, 200) } };
  }
  const path = protoKeyPath(value);
  if (path !== undefined) return { ok: false, problem: { kind: 'proto', message: 'a key named __proto__ cannot be stored', path } };
  return { ok: true, value };
}

/**
 * The path of the first key named `__proto__` in a parsed JSON value, if any. JSON.parse keeps
 * such a key as data, but every later step (validation, the DynamoDB marshaller and
 * unmarshaller) would assign it, which sets an object's prototype instead of a member: the value
 * would be lost without a word. It is refused instead (the only key that is).
 *
 * Walked with a stack of its own, not by recursion, and each entry links to its parent instead
 * of copying the path: linear in the value whatever its depth.
 */
export function protoKeyPath(value: unknown): string[] | undefined {
  interface At {
    value: unknown;
    key: string;
    parent: At | undefined;
  }
  const pathOf = (at: At | undefined, last: string): string[] => {
    const out = [last];
    for (let a = at; a !== undefined && a.parent !== undefined; a = a.parent) out.push(a.key);
    return out.reverse();
  };
  const stack: At[] = [{ value, key: '', parent: undefined }];
  while (stack.length > 0) {
    const at = stack.pop()!;
    const v = at.value;
    if (v === null || typeof v !== 'object') continue;
    // Pushed in reverse, so the first key in document order is reported first.
    const entries: [string, unknown][] = Array.isArray(v) ? v.map((item, i) => [String(i), item]) : Object.entries(v);
    for (const [key] of entries) if (key === '__proto__' && !Array.isArray(v)) return pathOf(at, key);
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], key: entries[i]![0], parent: at });
  }
  return undefined;
}
