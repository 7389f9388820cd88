/**
 * Regular expressions that tenants write (a data form field's `validate.pattern`, a passcode
 * policy's rules) run on RE2 (`re2-wasm`), whose time is linear in the input: on JavaScript's
 * backtracking engine a pattern such as `(a+)+b` takes exponential time on an end user's input
 * and stalls every request the function serves. A pattern must also compile as JavaScript
 * (`u` flag), because the journey pages check it in the end user's browser too: what both
 * engines accept means the same in both, for the syntax RE2 has (no lookaround, no
 * backreferences: those are refused when the pattern is saved).
 *
 * re2-wasm is loaded at first use from a Lambda layer (lib/bundling.ts LAYER_PACKAGES), so only
 * the functions that check or run a tenant's pattern pay for its 860 KB of WebAssembly.
 */
type Re2Class = new (pattern: string, flags: string) => { test(input: string): boolean };

let loading: Promise<Re2Class> | undefined;

function re2(): Promise<Re2Class> {
  loading ??= import('re2-wasm').then((m) => (m as unknown as { RE2: Re2Class }).RE2);
  return loading;
}

/** Why a tenant's pattern cannot be used, or undefined when both engines take it. */
export async function tenantPatternProblem(pattern: string): Promise<string | undefined> {
  try {
    new RegExp(pattern, 'u');
  } catch (err) {
    return `not a valid regular expression: ${(err as Error).message}`;
  }
  const RE2 = await re2();
  try {
    new RE2(pattern, 'u');
  } catch (err) {
    // RE2 refuses what it cannot run in linear time: lookahead, lookbehind, backreferences.
    return `not a regular expression this service runs (RE2 syntax: no lookaround or backreferences): ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`;
  }
  return undefined;
}

/** Whether the whole of an input matches a pattern (as an HTML `pattern` attribute does). */
export type WholeMatch = (pattern: string, input: string) => boolean;

/** A whole-input matcher on RE2, in time linear in the input; each pattern compiled once. */
export async function tenantPatternMatcher(): Promise<WholeMatch> {
  const RE2 = await re2();
  const compiled = new Map<string, { test(input: string): boolean }>();
  return (pattern, input) => {
    let re = compiled.get(pattern);
    if (!re) {
      re = new RE2(`^(?:${pattern})$`, 'u');
      compiled.set(pattern, re);
    }
    return re.test(input);
  };
}
