/**
 * The execution's state when the session lives in the table (statemachines/compile.ts): a
 * reference to the stored session version, plus a projection of the session that holds only the
 * paths the state machine itself reads (its Choice rules) or writes (its Pass states and Catch
 * routes). Everything else the session holds, above all what end users typed, stays in the table
 * and never enters Step Functions' execution history, which keeps an execution's data for 90
 * days whatever the instance's retention.
 *
 * Pure functions only: the storage is the caller's (functions/store/sessions.ts).
 */

import { own, setOwn } from './own.js';

/** Names one stored version of an instance's session (`PI#{id}` / `SESSION#{v}` in the table). */
export interface SessionRef {
  tenantId: string;
  processInstanceId: string;
  v: number;
}

/** The execution's state under the reference contract: `{_ref, ...projection}`. */
export type ExecutionState = Record<string, unknown> & { _ref: SessionRef };

export type PathSegment = string | number;

/** True when a state is under the reference contract (older executions carry the whole session). */
export function isRefState(state: unknown): state is ExecutionState {
  const ref = (state as { _ref?: Partial<SessionRef> } | null | undefined)?._ref;
  return typeof ref?.tenantId === 'string' && typeof ref.processInstanceId === 'string' && Number.isInteger(ref.v) && ref.v! >= 0;
}

/**
 * The segments of a JSONPath as the compiler writes them (`$.vars.a`, `$.vars['odd key']`,
 * `$.vars.list[0]`); throws on anything else, so a path the compiler did not write is never
 * read loosely.
 */
export function pathSegments(path: string): PathSegment[] {
  if (!path.startsWith('$')) throw new Error(`not a JSONPath: ${path}`);
  const out: PathSegment[] = [];
  const re = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['([^'\\]*)'\]/y;
  let i = 1;
  while (i < path.length) {
    re.lastIndex = i;
    const m = re.exec(path);
    if (!m) throw new Error(`not a JSONPath the compiler writes: ${path}`);
    out.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : m[3]!));
    i = re.lastIndex;
  }
  return out;
}

/**
 * What a projection keeps for one path: the path up to its first array index (an array is kept
 * whole, so an index read in the session finds the same element), at least one segment deep.
 */
function keptSegments(path: string): string[] {
  const segments = pathSegments(path);
  const cut = segments.findIndex((s) => typeof s === 'number');
  return (cut === -1 ? segments : segments.slice(0, cut)) as string[];
}

/**
 * The paths a state machine keeps in its state, in a stable order and without a path that
 * another one already covers (`$.vars` covers `$.vars.x`): the same list for the same paths,
 * however they were found, so the compiled ASL is deterministic.
 */
export function normaliseKeep(paths: Iterable<string>): string[] {
  const all = [...new Set([...paths].map((p) => keptSegments(p)).filter((s) => s.length > 0).map((s) => JSON.stringify(s)))]
    .map((s) => JSON.parse(s) as string[])
    .sort((a, b) => a.length - b.length || (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  const kept: string[][] = [];
  for (const s of all) if (!kept.some((k) => k.every((x, i) => s[i] === x))) kept.push(s);
  return kept.map(toPath).sort();
}

function toPath(segments: readonly string[]): string {
  return `$${segments.map((s) => (/^[A-Za-z_$][\w$-]*$/.test(s) ? `.${s}` : `['${s}']`)).join('')}`;
}

/** The session's values at the kept paths (absent ones stay absent), nested as in the session. */
export function project(session: Record<string, unknown>, keep: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of keep) {
    const segments = keptSegments(path);
    let from: unknown = session;
    // Own properties only: a condition may read `constructor` or `toString`, which the session does not have.
    for (const s of segments) from = isObject(from) ? own(from, s) : undefined;
    if (from === undefined) continue;
    let to = out;
    for (const s of segments.slice(0, -1)) {
      const inner = own(to, s);
      to = isObject(inner) ? inner : setOwn(to, s, {});
    }
    setOwn(to, segments[segments.length - 1]!, structuredClone(from));
  }
  return out;
}

/** The execution's state for a stored session version: its reference and its projection. */
export function stateFor(ref: SessionRef, session: Record<string, unknown>, keep: readonly string[]): ExecutionState {
  // `_ref` is set last: no session key can stand in for it.
  return { ...project(session, keep), _ref: { tenantId: ref.tenantId, processInstanceId: ref.processInstanceId, v: ref.v } };
}

/**
 * The session an activity works on: the stored version with the state's own values over it.
 * The state is a projection of that version, so what it carries beyond the table is exactly
 * what the state machine wrote since (a Pass state's `_decision`, `_end` or error-route
 * variable, a Catch's `_lastError`); objects merge, anything else replaces.
 */
export function overlay(stored: Record<string, unknown>, state: Record<string, unknown>): Record<string, unknown> {
  const { _ref: _r, ...carried } = state;
  return merge(stored, carried);
}

function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const prev = own(out, k);
    setOwn(out, k, isObject(v) && isObject(prev) ? merge(prev, v) : v);
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
