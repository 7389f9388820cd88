/**
 * Worst cases of user-supplied patterns: the `name` filter's LIKE (`%a%a%a%a%a%b`, which took
 * 1.6 s on a 60-character name as a backtracking regex) and a tenant's form pattern `(a+)+b` on
 * RE2, each against inputs ten times longer at each step. Linear time shows as ×10 per row; the
 * backtracking engine is timed at the sizes it can still finish, for comparison.
 */
import { likePattern } from '../../functions/shared/page.js';
import { tenantPatternMatcher } from '../../functions/shared/tenant-regex.js';
import { round } from './stats.js';

export interface PatternFigure {
  case: string;
  inputChars: number;
  ms: number;
}

function time(run: () => unknown, repeat: number): number {
  const started = performance.now();
  for (let i = 0; i < repeat; i++) run();
  return (performance.now() - started) / repeat;
}

export async function measurePatterns(): Promise<PatternFigure[]> {
  const out: PatternFigure[] = [];
  const like = likePattern('%a%a%a%a%a%b');
  const matches = await tenantPatternMatcher();
  for (const n of [60, 600, 6_000, 60_000]) {
    const name = 'a'.repeat(n);
    out.push({ case: "LIKE '%a%a%a%a%a%b' (no match)", inputChars: n, ms: round(time(() => like.test(name), 20), 3) });
  }
  for (const n of [100, 1_000, 10_000, 100_000]) {
    const input = `${'a'.repeat(n)}c`;
    out.push({ case: 'RE2 (a+)+b (no match)', inputChars: n + 1, ms: round(time(() => matches('(a+)+b', input), 20), 3) });
  }
  // JavaScript's engine on the same pattern: doubling per character, so only short inputs.
  const backtracking = /^(?:(a+)+b)$/u;
  for (const n of [16, 18, 20, 22]) {
    const input = `${'a'.repeat(n)}c`;
    out.push({ case: 'JavaScript RegExp (a+)+b, for comparison', inputChars: n + 1, ms: round(time(() => backtracking.test(input), 1), 3) });
  }
  return out;
}
