/**
 * A check's figures: its `moreinfo` (a JSON document in a string, where the check has one) as
 * flat label and value pairs (`liveness.score` 0.93), for a table. Not JSON: shown as the text.
 */
export function figuresOf(moreinfo: string | undefined): [string, string][] {
  if (!moreinfo) return [];
  let value: unknown;
  try {
    value = JSON.parse(moreinfo);
  } catch {
    return [['moreinfo', moreinfo]];
  }
  const out: [string, string][] = [];
  const walk = (v: unknown, path: string) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k, inner] of Object.entries(v)) walk(inner, path ? `${path}.${k}` : k);
    } else if (Array.isArray(v) && v.some((x) => x !== null && typeof x === 'object')) {
      v.forEach((inner, i) => walk(inner, `${path}[${i}]`));
    } else {
      out.push([path || 'value', Array.isArray(v) ? v.join(', ') : typeof v === 'number' ? formatNumber(v) : String(v)]);
    }
  };
  walk(value, '');
  return out;
}

function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 10_000) / 10_000);
}

/** A form value as text: strings as they are, anything else as compact JSON. */
export function valueText(v: unknown): string {
  if (v === null || v === undefined) return '–';
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}
