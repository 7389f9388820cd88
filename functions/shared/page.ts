import * as z from './zod.js';

/** Spring-style page, as the service family returns it for every paged list. */
export interface SortInfo {
  sorted: boolean;
  unsorted: boolean;
  empty: boolean;
}

export interface Page<T> {
  content: T[];
  totalElements: number;
  totalPages: number;
  first: boolean;
  last: boolean;
  number: number;
  size: number;
  numberOfElements: number;
  empty: boolean;
  sort: SortInfo;
  pageable: {
    sort: SortInfo;
    unpaged: boolean;
    paged: boolean;
    pageSize: number;
    pageNumber: number;
    offset: number;
  };
}

export interface SortOrder<K extends string> {
  property: K;
  direction: 'asc' | 'desc';
}

/** Parses `prop`, `prop,asc` or `prop,desc` items; unknown properties are reported to the caller. */
export function parseSort<K extends string>(
  items: string[],
  allowed: readonly K[],
): { orders: SortOrder<K>[]; errors: string[] } {
  const orders: SortOrder<K>[] = [];
  const errors: string[] = [];
  for (const item of items) {
    const [prop, dir, ...rest] = item.split(',').map((s) => s.trim());
    const direction = (dir ?? 'asc').toLowerCase();
    if (rest.length || !prop || !(allowed as readonly string[]).includes(prop) || !['asc', 'desc'].includes(direction)) {
      errors.push(`"${item}" is not a sort order; use one of ${allowed.join(', ')}, optionally followed by ,asc or ,desc`);
      continue;
    }
    orders.push({ property: prop as K, direction: direction as 'asc' | 'desc' });
  }
  return { orders, errors };
}

export function sortBy<T, K extends string>(items: T[], orders: SortOrder<K>[], value: (item: T, key: K) => unknown): T[] {
  return [...items].sort((a, b) => {
    for (const { property, direction } of orders) {
      const c = compare(value(a, property), value(b, property));
      if (c !== 0) return direction === 'asc' ? c : -c;
    }
    return 0;
  });
}

function compare(a: unknown, b: unknown): number {
  // Absent values sort first, as SQL NULLS FIRST in ascending order.
  if (a === b) return 0;
  if (a === undefined || a === null) return -1;
  if (b === undefined || b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), 'en', { sensitivity: 'base' }) || (String(a) < String(b) ? -1 : 1);
}

export function toPage<T>(all: T[], pageNumber: number, pageSize: number, sorted: boolean): Page<T> {
  const totalElements = all.length;
  const totalPages = Math.ceil(totalElements / pageSize);
  const offset = pageNumber * pageSize;
  const content = all.slice(offset, offset + pageSize);
  const sort: SortInfo = { sorted, unsorted: !sorted, empty: !sorted };
  return {
    content,
    totalElements,
    totalPages,
    first: pageNumber === 0,
    last: pageNumber >= totalPages - 1,
    number: pageNumber,
    size: pageSize,
    numberOfElements: content.length,
    empty: content.length === 0,
    sort,
    pageable: { sort, unpaged: false, paged: true, pageSize, pageNumber, offset },
  };
}

const SortInfoSchema = z.withMeta(z.object({ sorted: z.boolean(), unsorted: z.boolean(), empty: z.boolean() }), { id: 'SortInfo' });

export function pageSchema<T extends z.ZodMiniType>(item: T, id: string) {
  const int = () => z.number().check(z.int());
  return z.withMeta(
    z.object({
      content: z.array(item),
      totalElements: int(),
      totalPages: int(),
      first: z.boolean(),
      last: z.boolean(),
      number: int(),
      size: int(),
      numberOfElements: int(),
      empty: z.boolean(),
      sort: SortInfoSchema,
      pageable: z.object({
        sort: SortInfoSchema,
        unpaged: z.boolean(),
        paged: z.boolean(),
        pageSize: int(),
        pageNumber: int(),
        offset: int(),
      }),
    }),
    { id },
  );
}

/** One piece of a LIKE pattern between `%`s: a character to match (lower case), or `_` (any one). */
type LikePiece = string | null;

/**
 * SQL LIKE as the family's `name` filter uses it: `%` any run, `_` one character, `\` escapes;
 * case-insensitive; characters, not UTF-16 units.
 *
 * Matched without backtracking: the pattern is cut at its `%`s into segments; the first must
 * match at the start, the last at the end, and each one between at its leftmost place after
 * the one before (taking the leftmost place never loses a match, since a `%` can absorb
 * anything skipped). That is at most (name length × pattern length) steps, linear in the name:
 * translated to a backtracking regex (`^.*a.*a.*b$`), a six-piece pattern against a
 * 60-character name took 1.6 s and held the function for every tenant it serves.
 */
export function likePattern(pattern: string): { test(value: string): boolean } {
  const segments: LikePiece[][] = [[]];
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\' && i + 1 < chars.length) segments.at(-1)!.push(chars[++i]!.toLowerCase());
    else if (c === '%') segments.push([]);
    else if (c === '_') segments.at(-1)!.push(null);
    else segments.at(-1)!.push(c.toLowerCase());
  }
  return { test: (value) => likeMatches(segments, [...value].map((c) => c.toLowerCase())) };
}

function likeMatches(segments: LikePiece[][], text: string[]): boolean {
  const fitsAt = (seg: LikePiece[], at: number) => seg.every((p, k) => p === null || p === text[at + k]);
  const first = segments[0]!;
  if (segments.length === 1) return text.length === first.length && fitsAt(first, 0);
  const last = segments.at(-1)!;
  if (first.length + last.length > text.length || !fitsAt(first, 0) || !fitsAt(last, text.length - last.length)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (const seg of segments.slice(1, -1)) {
    let found = -1;
    for (let i = at; i + seg.length <= end; i++) {
      if (fitsAt(seg, i)) {
        found = i;
        break;
      }
    }
    if (found < 0) return false;
    at = found + seg.length;
  }
  return true;
}
