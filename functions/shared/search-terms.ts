/**
 * The words free-text search matches, one tokenizer for both sides: the terms an instance is
 * indexed under (written with it) and the words of a `searchString`. A word is a run of letters,
 * digits and combining marks after NFKC normalisation and lower-casing, or a whole UUID (so an
 * instance id is one word, not five); words shorter than MIN_TERM_LENGTH are left out, and a
 * word longer than MAX_TERM_LENGTH is cut to it (on both sides, so long words still match).
 */
export const MIN_TERM_LENGTH = 2;
export const MAX_TERM_LENGTH = 64;
/** An instance is indexed under at most this many terms (each is one item, written with every status change). */
export const MAX_TERMS_PER_INSTANCE = 16;
/** A search uses at most this many of its words (the rest are ignored). */
export const MAX_SEARCH_WORDS = 8;

const WORD = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[\p{L}\p{N}\p{M}]+/gu;

/** The words of a text, in order, repeats kept. */
export function wordsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.normalize('NFKC').toLowerCase().matchAll(WORD)) {
    const points = [...m[0]];
    if (points.length < MIN_TERM_LENGTH) continue;
    out.push(points.slice(0, MAX_TERM_LENGTH).join(''));
  }
  return out;
}

/** The distinct words of the values, in the order given, at most `max`. */
export function distinctWords(values: readonly string[], max: number): string[] {
  const seen = new Set<string>();
  for (const v of values) {
    for (const w of wordsOf(v)) {
      if (seen.size >= max) return [...seen];
      seen.add(w);
    }
  }
  return [...seen];
}

/**
 * The words a search must all match, longest first: the index is queried for the first (a long
 * word is usually the rarest) and the others filter that query's items.
 */
export function searchWords(searchString: string): string[] {
  return distinctWords([searchString], MAX_SEARCH_WORDS).sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
}
