import { MAX_CURSOR_LENGTH } from './cursor.js';
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
  return [...items].sort(comparator(orders, value));
}

/** The order `sortBy` sorts in, as a comparator (negative: `a` comes first). */
export function comparator<T, K extends string>(orders: SortOrder<K>[], value: (item: T, key: K) => unknown): (a: T, b: T) => number {
  return (a, b) => {
    for (const { property, direction } of orders) {
      const c = compare(value(a, property), value(b, property));
      if (c !== 0) return direction === 'asc' ? c : -c;
    }
    return 0;
  };
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

/** What a list that pages by cursor adds to the Spring page (docs/lists.md). */
export interface CursorPageFields {
  /** Send back as `cursor` for the next page; null on the last page (and for sorts paged in memory). */
  nextCursor: string | null;
  /** True when `totalElements` is a lower bound: the count stopped at its cap. */
  totalElementsCapped: boolean;
}

export type CursorPage<T> = Page<T> & CursorPageFields;

/**
 * A page read by cursor or by number, described in Spring's terms: `total` is what the list
 * counted (or kept), `more` whether anything follows this page.
 */
export function cursorPage<T>(
  content: T[],
  o: { page: number; size: number; sorted: boolean; total: number; capped: boolean; more: boolean; nextCursor: string | null },
): CursorPage<T> {
  const p = toPage<T>([], o.page, o.size, o.sorted);
  // Never fewer than the pages up to this one (and one more while more follow): items added
  // since the count, or a count that stopped at its cap, must not make this page look past the
  // end. An empty page (asked past the end) says only what was counted.
  const floor = content.length ? o.page * o.size + content.length + (o.more ? 1 : 0) : 0;
  const totalElements = o.capped ? o.total : Math.max(o.total, floor);
  const totalPages = Math.max(Math.ceil(totalElements / o.size), o.more ? o.page + 2 : content.length ? o.page + 1 : 0);
  return {
    ...p,
    content,
    totalElements,
    totalPages,
    last: !o.more,
    numberOfElements: content.length,
    empty: content.length === 0,
    nextCursor: o.nextCursor,
    totalElementsCapped: o.capped,
  };
}

/** The Spring page with `nextCursor` and `totalElementsCapped`, as every list that pages by cursor answers. */
export function cursorPageSchema<T extends z.ZodMiniType>(item: T, id: string) {
  const base = pageSchema(item, `${id}Base`);
  return z.withMeta(
    z.object({
      ...base.shape,
      nextCursor: z.withMeta(z.nullable(z.string()), {
        description: 'Send as `cursor` (with the same filters and sort) for the next page, which then costs one page whatever its depth; null on the last page.',
      }),
      totalElementsCapped: z.withMeta(z.boolean(), {
        description: 'True when totalElements is a lower bound: the list counts at most 10,000 (docs/lists.md).',
      }),
    }),
    { id },
  );
}

/** The `cursor` query parameter of a list that pages by cursor. */
export function cursorParam() {
  return z.withMeta(z.optional(z.string().check(z.maxLength(MAX_CURSOR_LENGTH))), {
    description:
      "The previous page's nextCursor: the next page, read from where that page ended (no item twice, none skipped, " +
      'whatever was added meanwhile), at the cost of one page. Send the same filters and sort with it; `page` then only numbers the answer.',
  });
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
