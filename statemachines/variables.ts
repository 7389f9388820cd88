/**
 * Where a journey's variables live in the session data (the execution's state), one rule for
 * every reader: gateway conditions compiled to Choice rules, output parameters, and the
 * run-time evaluation of both.
 *
 * - The session keys (`instance`, `parameters`, `vars`, `_checks`, `_faces`, `_decision`,
 *   `_errors`, `_lastError`, `_end`) are read at the root: `${_checks.face.result}`.
 * - Any other name is a process variable, in `vars`: `${isMobile}` is `$.vars.isMobile`. An
 *   instance starts with `vars` holding a copy of its process token's parameters (as the family's
 *   engine starts a process with the token's parameters as variables), and activities and
 *   output parameters add to it.
 *
 * `${...}` references in activity inputs (references.ts) find the same values: they look in
 * `vars`, then `parameters`, then the root.
 */
import { jsonPath, type Json, type Segment, type Variables } from './conditions/index.js';

export const SESSION_KEYS = ['instance', 'parameters', 'vars', '_checks', '_faces', '_documents', '_decision', '_errors', '_lastError', '_end'] as const;
const ROOT = new Set<string>(SESSION_KEYS);

/** The JSONPath of a variable given its segments (`['a', 0]` → `$.vars.a[0]`). */
export function variablePath(segments: readonly Segment[]): string {
  const [first] = segments;
  return typeof first === 'string' && ROOT.has(first) ? jsonPath('$', segments) : jsonPath('$.vars', segments);
}

/** The variables an expression sees in a session state: `vars`, with the session keys on top. */
export function processVariables(state: unknown): Variables {
  const s = (state ?? {}) as Record<string, Json>;
  const vars = s.vars !== null && typeof s.vars === 'object' && !Array.isArray(s.vars) ? (s.vars as Variables) : {};
  const out: Variables = { ...vars };
  for (const key of SESSION_KEYS) if (s[key] !== undefined) out[key] = s[key];
  return out;
}
