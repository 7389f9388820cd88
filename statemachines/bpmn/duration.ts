/**
 * ISO 8601 durations of timer boundary events (`PT4M30S`, `PT30M`, `P5D`), in seconds: a timer
 * becomes the user step's `TimeoutSeconds`, which is fixed when the definition is published.
 */

// Weeks, days, hours, minutes, seconds: the parts of fixed length. Years and months are not
// (a month is 28 to 31 days), so they are refused rather than guessed.
const DURATION = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/;
const CALENDAR = /^P(?:\d+Y|[^T]*\d+M)/;

export type DurationSeconds = { readonly seconds: number } | { readonly problem: string };

export function isoDurationSeconds(text: string): DurationSeconds {
  const duration = text.trim();
  if (CALENDAR.test(duration)) return { problem: `${duration} counts years or months, which have no fixed length: write days (P30D)` };
  const m = DURATION.exec(duration);
  if (!m || duration === 'P' || duration.endsWith('T')) return { problem: `${JSON.stringify(duration.slice(0, 50))} is not an ISO 8601 duration (such as PT30M or P5D)` };
  const [, w, d, h, min, s] = m;
  const n = (part: string | undefined) => (part === undefined ? 0 : Number(part.replace(',', '.')));
  // Whole seconds, rounded up: a step never times out before the designer's duration.
  return { seconds: Math.ceil(n(w) * 604_800 + n(d) * 86_400 + n(h) * 3_600 + n(min) * 60 + n(s)) };
}
