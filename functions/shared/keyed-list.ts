import { InvalidCursorError, ValidationError } from '../errors.js';
import { decodeCursor, encodeCursor, type CursorBinding } from './cursor.js';
import { cursorPage, sortBy, type CursorPage, type SortOrder } from './page.js';

/**
 * Paging a list in its key order (docs/lists.md). A list's items sit in one key range of one
 * partition of the tenant, in an order the list offers as its default sort (and the reverse):
 * a page is read from there, never the whole range.
 *
 * - By cursor (the previous page's `nextCursor`): one read of `size + 1` items after the last
 *   item that page returned, however deep; nothing twice, nothing skipped, whatever was added
 *   or removed meanwhile.
 * - By `page` number: the positions before the page are walked with a projection (keys and what
 *   a filter needs), at most LIST_COUNT_CAP deep (400 beyond: follow the cursor), then the page.
 * - `totalElements`: a counter kept with every write where the list has one (read with each
 *   page, exact); else counted by the first page (COUNT queries, at most LIST_COUNT_CAP, then
 *   `totalElementsCapped`) and carried in its cursor, so later pages count nothing.
 * - A filter the key cannot express (a LIKE pattern on a name) is applied while reading: a page
 *   reads on until it has its items, at most PAGE_READ_BUDGET items; when matches are that sparse
 *   the page comes back shorter than `size`, with a `nextCursor` from where it stopped.
 *
 * Sorts in another order are `sortedPage`: every item of the range, at most LIST_SORT_CAP, sorted
 * in memory (400 beyond); they page by number only.
 */

/** `totalElements` counts this many at most; pages by number reach this deep. */
export const LIST_COUNT_CAP = 10_000;
/** A sort in another order than the key's sorts at most this many items in memory. */
export const LIST_SORT_CAP = 2_000;
/** A filtered page reads at most this many items (more for pages over 250) before it answers short. */
export const PAGE_READ_BUDGET = 1_000;
/** A keys-only walk reads at most this many items per Query. */
const WALK_CHUNK = 1_000;

export interface Row<R> {
  record: R;
  /** The item's position: its sort key, what a cursor carries. */
  at: string;
}

/** One list's key range, as its store reads it (functions/store/ranges.ts). */
export interface KeyedSource<R> {
  /**
   * Up to `limit` records after position `after` (exclusive), in key order or, `descending`, its
   * reverse; `done` when nothing follows. With `projection`, records carry only those attributes.
   */
  read(o: { after?: string | undefined; limit: number; descending: boolean; projection?: readonly string[] | undefined }): Promise<{ rows: Row<R>[]; done: boolean }>;
  /**
   * For a list that reads small views and then its items: the full records of rows read with a
   * projection (those whose item is gone are left out). A filtered page then reads views only and
   * loads just its matches.
   */
  load?(rows: Row<R>[]): Promise<Row<R>[]>;
  /** Whether `at` is a position of this list (a cursor's, checked before anything is read). */
  isPosition(at: string): boolean;
  /** How many items: `kept` when a counter written with every create and delete says it (exact); else counted up to `cap`. */
  count(cap: number): Promise<{ count: number; capped: boolean; kept?: boolean }>;
}

/** A filter applied while reading; `attributes` are what it reads (the projection of a walk). */
export interface ListFilter<R> {
  test(record: Partial<R>): boolean;
  attributes: readonly string[];
}

export interface KeyedPageOptions<R, V> {
  binding: CursorBinding;
  page: number;
  size: number;
  cursor?: string | undefined;
  descending: boolean;
  /** Whether a sort was asked (Spring's `sort.sorted`). */
  sorted: boolean;
  filter?: ListFilter<R> | undefined;
  /** The page's items as answered (a store may read more for them: the definitions of version refs). */
  view: (records: R[]) => V[] | Promise<V[]>;
  /** Where query problems are reported: `query`. */
  where?: string;
}

interface Walked {
  /** The position of the last item walked past (the `skip`-th match, or the last item read). */
  at: string | undefined;
  matched: number;
  done: boolean;
}

/** Walks positions (projection only) until `stopAt` matches, the range's end, or `budget` items read. */
async function walk<R>(source: KeyedSource<R>, o: { descending: boolean; filter?: ListFilter<R> | undefined; stopAt: number; budget: number }): Promise<Walked> {
  let at: string | undefined;
  let matched = 0;
  let read = 0;
  for (;;) {
    const limit = Math.min(WALK_CHUNK, o.budget - read, o.filter ? WALK_CHUNK : o.stopAt - matched);
    if (limit <= 0) return { at, matched, done: false };
    const chunk = await source.read({ after: at, limit, descending: o.descending, projection: o.filter?.attributes ?? [] });
    read += chunk.rows.length;
    for (const row of chunk.rows) {
      at = row.at;
      if (!o.filter || o.filter.test(row.record)) matched++;
      if (matched === o.stopAt) return { at, matched, done: chunk.done && row === chunk.rows.at(-1) };
    }
    if (chunk.done) return { at, matched, done: true };
  }
}

/** One page of a list in its key order (see above). */
export async function keyedPage<R, V>(source: KeyedSource<R>, o: KeyedPageOptions<R, V>): Promise<CursorPage<V>> {
  const where = o.where ?? 'query';
  const { size, descending, filter } = o;
  const state = o.cursor ? decodeCursor(o.binding, o.cursor, (at) => source.isPosition(at), `${where}.cursor`) : undefined;
  let after = state?.after;
  let known: { count: number; capped: boolean; kept?: boolean } | undefined =
    state?.total !== undefined ? { count: state.total, capped: !!state.capped } : undefined;

  if (!state && o.page > 0) {
    const skip = o.page * size;
    const tooDeep = () =>
      new ValidationError('Page too deep.', [
        {
          location: `${where}.page`,
          message: `pages by number reach ${LIST_COUNT_CAP} items deep${filter ? ' (items read, matching the filter or not)' : ''}; further on, follow nextCursor (the cursor parameter)`,
        },
      ]);
    if (skip > LIST_COUNT_CAP) throw tooDeep();
    const walked = await walk(source, { descending, filter, stopAt: skip, budget: LIST_COUNT_CAP });
    if (walked.matched < skip && !walked.done) throw tooDeep();
    if (walked.matched < skip || walked.done) {
      // Past the end: nothing to read, and the walk counted everything.
      known ??= { count: walked.matched, capped: false };
      return cursorPage<V>([], { page: o.page, size, sorted: o.sorted, total: known.count, capped: known.capped, more: false, nextCursor: null });
    }
    after = walked.at;
  }

  const rows: Row<R>[] = [];
  let examined: string | undefined = after;
  let done = false;
  let read = 0;
  const budget = Math.max(PAGE_READ_BUDGET, 4 * (size + 1));
  while (rows.length <= size) {
    const limit = filter ? Math.min(WALK_CHUNK, Math.max(2 * (size + 1 - rows.length), 100), budget - read) : size + 1 - rows.length;
    if (limit <= 0) break;
    const chunk = await source.read({ after: examined, limit, descending, projection: filter && source.load ? filter.attributes : undefined });
    read += chunk.rows.length;
    let stopped = false;
    for (const [i, row] of chunk.rows.entries()) {
      examined = row.at;
      if (!filter || filter.test(row.record)) rows.push(row);
      if (rows.length > size) {
        stopped = true;
        done = chunk.done && i === chunk.rows.length - 1;
        break;
      }
    }
    if (!stopped && chunk.done) {
      done = true;
      break;
    }
  }
  const kept = rows.slice(0, size);
  const content = filter && source.load ? await source.load(kept) : kept;
  const more = rows.length > size || !done;
  // The next page starts after the last item returned; after a short page (the read budget),
  // after the last item examined, so nothing between is skipped.
  const resumeAt = rows.length > size ? kept.at(-1)?.at : examined;

  if (!known) {
    if (!state && o.page === 0 && !more) known = { count: content.length, capped: false };
    else if (filter) {
      const counted = await walk(source, { descending, filter, stopAt: Number.POSITIVE_INFINITY, budget: LIST_COUNT_CAP });
      known = { count: counted.matched, capped: !counted.done };
    } else known = await source.count(LIST_COUNT_CAP);
  }
  const carry = !known.kept;
  return cursorPage(await o.view(content.map((r) => r.record)), {
    page: o.page,
    size,
    sorted: o.sorted,
    total: known.count,
    capped: known.capped,
    more,
    nextCursor:
      more && resumeAt !== undefined ? encodeCursor(o.binding, { after: resumeAt, ...(carry ? { total: known.count, capped: known.capped } : {}) }) : null,
  });
}

/**
 * One page of a list sorted in memory (a sort the key order does not give): every item of the
 * range, at most LIST_SORT_CAP (400 beyond), filtered and sorted, then the page by number.
 */
export async function sortedPage<R, V, K extends string>(
  source: KeyedSource<R>,
  o: {
    page: number;
    size: number;
    cursor?: string | undefined;
    orders: SortOrder<K>[];
    filter?: ListFilter<R> | undefined;
    value: (record: R, key: K) => unknown;
    view: (records: R[]) => V[] | Promise<V[]>;
    /** What a caller can do instead, for the 400 past LIST_SORT_CAP. */
    instead: string;
    where?: string;
  },
): Promise<CursorPage<V>> {
  const where = o.where ?? 'query';
  if (o.cursor) {
    throw new InvalidCursorError(undefined, [{ location: `${where}.cursor`, message: 'this sort pages by number only (its pages have no nextCursor)' }]);
  }
  const tooMany = (n: number, what: string) =>
    new ValidationError('Too many to sort.', [{ location: `${where}.sort`, message: `more than ${n} ${what} in memory: ${o.instead}` }]);
  const all: Row<R>[] = [];
  // A filter on a list of views: the views are walked (at most LIST_COUNT_CAP) and only the matches loaded.
  const viewsFirst = !!(o.filter && source.load);
  const cap = viewsFirst ? LIST_COUNT_CAP : LIST_SORT_CAP;
  let after: string | undefined;
  for (;;) {
    const chunk = await source.read({ after, limit: Math.min(WALK_CHUNK, cap + 1 - all.length), descending: false, projection: viewsFirst ? o.filter!.attributes : undefined });
    for (const row of chunk.rows) {
      after = row.at;
      all.push(row);
    }
    if (chunk.done) break;
    if (all.length > cap) throw tooMany(cap, viewsFirst ? 'items to filter' : 'items to sort');
  }
  let matching = o.filter ? all.filter((r) => o.filter!.test(r.record)) : all;
  if (viewsFirst) {
    if (matching.length > LIST_SORT_CAP) throw tooMany(LIST_SORT_CAP, 'matches to sort');
    matching = await source.load!(matching);
  }
  const ordered = sortBy(
    matching.map((r) => r.record),
    o.orders,
    o.value,
  );
  const start = o.page * o.size;
  const content = ordered.slice(start, start + o.size);
  return cursorPage(await o.view(content), {
    page: o.page,
    size: o.size,
    sorted: true,
    total: ordered.length,
    capped: false,
    more: ordered.length > start + o.size,
    nextCursor: null,
  });
}

/**
 * A list's page as its sort asks: in the key order (`key`, either way; cursor paging, each page
 * reading only itself) when the sort names nothing else, else sorted in memory by the orders and
 * then `tieBreak` (page by number only, bounded by LIST_SORT_CAP).
 */
export function orderedPage<R, V, K extends string>(
  source: KeyedSource<R>,
  o: {
    key: K;
    binding: CursorBinding;
    query: { page: number; size: number; cursor?: string | undefined };
    orders: SortOrder<K>[];
    tieBreak: SortOrder<K>[];
    filter?: ListFilter<R> | undefined;
    value: (record: R, key: K) => unknown;
    view: (records: R[]) => V[] | Promise<V[]>;
    instead: string;
  },
): Promise<CursorPage<V>> {
  const { orders, query } = o;
  if (orders.length === 0 || (orders.length === 1 && orders[0]!.property === o.key)) {
    return keyedPage(source, {
      binding: o.binding,
      page: query.page,
      size: query.size,
      cursor: query.cursor,
      descending: orders[0]?.direction === 'desc',
      sorted: orders.length > 0,
      filter: o.filter,
      view: o.view,
    });
  }
  return sortedPage(source, { page: query.page, size: query.size, cursor: query.cursor, orders: [...orders, ...o.tieBreak], filter: o.filter, value: o.value, view: o.view, instead: o.instead });
}
