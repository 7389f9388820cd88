/** Small statistics and table helpers for the benchmark; no dependencies. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length, Math.max(1, rank)) - 1]!;
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export type Verdict = 'OK' | 'OVER' | 'ERROR';

export function verdict(value: number | undefined, limit: number): Verdict {
  if (value === undefined || Number.isNaN(value)) return 'ERROR';
  return value <= limit ? 'OK' : 'OVER';
}

/** A plain text table: first row is the header; numbers right-aligned. */
export function table(rows: (string | number)[][]): string {
  const cells = rows.map((r) => r.map((c) => String(c)));
  const widths: number[] = [];
  for (const r of cells) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  const numeric = widths.map((_, i) => rows.slice(1).every((r) => r[i] === undefined || typeof r[i] === 'number'));
  const line = (r: string[]) =>
    r
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const [head, ...body] = cells;
  return [line(head!), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

export function section(title: string): string {
  return `\n== ${title} ${'='.repeat(Math.max(0, 76 - title.length))}`;
}
