import { stringify } from 'csv-stringify/sync';
import { InvalidCursorError, ValidationError } from '../../errors.js';
import { createHash } from 'node:crypto';
import { parseSort, sortBy, toPage, type Page } from '../../shared/page.js';
import { searchWords } from '../../shared/search-terms.js';
import { INSTANCE_SORTABLE } from './instance-schemas.js';
import { CONTACT_PARAMETERS, instanceView } from './instances.js';
import type { InstanceView, InstanceViewQuery, ProcessInstanceStore } from '../model.js';

export interface InstanceFilters {
  searchString?: string | undefined;
  startDateTime?: string | undefined;
  endDateTime?: string | undefined;
  processDefinitionName?: string | undefined;
  processDefinitionId?: string | undefined;
  processInstanceStatus?: string[] | undefined;
}

/**
 * `totalElements` counts matches up to this many (then says 10,000 with `totalElementsCapped`);
 * pages by number reach this deep (further on, use the cursor); a sort other than by creation
 * time sorts at most this many matches in memory.
 */
export const INSTANCE_COUNT_CAP = 10_000;
/**
 * Counting `totalElements` reads at most this many index items: when filters other than the key
 * range (more words, a definition id, a status next to free text) drop most of them, the count
 * stops there and says what it found, with `totalElementsCapped` (a lower bound).
 */
export const INSTANCE_COUNT_READ_BUDGET = 20_000;
/** A search of several words probes each word's partition with one COUNT query of at most this many items. */
const WORD_PROBE_ITEMS = 1_000;

type Direction = 'asc' | 'desc';
interface Cursor {
  createdAt: string;
  id: string;
  fingerprint: string;
  /** The count the first page made (at most INSTANCE_COUNT_CAP + 1), so later pages do not count again. */
  counted?: number | undefined;
  /** Whether that count stopped at the read budget (a lower bound). */
  atLeast?: boolean | undefined;
  /** Which word of a search drives the query (the first page chose it). */
  driver?: number | undefined;
}

/**
 * The queries that answer the filters: with free text, one on the term partition of its longest
 * word (the other words, statuses and definition are filters); else one per status asked, else
 * the definition's, else every instance's. Free text with no word the index holds (only
 * one-letter words or punctuation) plans no query: nothing matches; nor does a range that ends
 * before it starts (a key condition BETWEEN a later and an earlier bound is an error in DynamoDB).
 */
export function planQueries(f: InstanceFilters, direction: Direction, now: Date): InstanceViewQuery[] {
  if (f.startDateTime && f.endDateTime && Date.parse(f.startDateTime) > Date.parse(f.endDateTime)) return [];
  const base = {
    from: f.startDateTime,
    to: f.endDateTime,
    direction,
    processDefnId: f.processDefinitionId,
    processDefnName: f.processDefinitionName,
    now,
  };
  const statuses = [...new Set(f.processInstanceStatus ?? [])];
  if (f.searchString?.trim()) {
    const [term, ...terms] = searchWords(f.searchString);
    if (term === undefined) return [];
    return [{ ...base, partition: { kind: 'W', term }, ...(terms.length ? { terms } : {}), ...(statuses.length ? { statuses } : {}) }];
  }
  if (statuses.length) return statuses.map((status) => ({ ...base, partition: { kind: 'S', status } }));
  if (f.processDefinitionName) return [{ ...base, partition: { kind: 'D', name: f.processDefinitionName } }];
  return [{ ...base, partition: { kind: 'T' } }];
}

const sortKey = (v: InstanceView) => `${v.createdAt}#${v.id}`;

/** Up to `limit` matches across the queries, merged in creation order, and whether more match. */
async function readMerged(store: ProcessInstanceStore, tenantId: string, queries: InstanceViewQuery[], limit: number) {
  const results = await Promise.all(queries.map((q) => store.queryViews(tenantId, q, limit)));
  const desc = queries[0]?.direction === 'desc';
  const all = results.flatMap((r) => r.views).sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0) * (desc ? -1 : 1));
  return { views: all.slice(0, limit), more: all.length > limit || results.some((r) => r.more) };
}

/**
 * How many match, counting no further than INSTANCE_COUNT_CAP + 1 matches nor past
 * INSTANCE_COUNT_READ_BUDGET items read (Select COUNT queries: nothing is returned).
 */
async function countMerged(store: ProcessInstanceStore, tenantId: string, queries: InstanceViewQuery[]) {
  const budget = Math.ceil(INSTANCE_COUNT_READ_BUDGET / Math.max(queries.length, 1));
  const counts = await Promise.all(queries.map((q) => store.countViews(tenantId, { ...q, after: undefined }, INSTANCE_COUNT_CAP + 1, budget)));
  return { counted: counts.reduce((a, c) => a + c.count, 0), atLeast: counts.some((c) => c.exhausted) };
}

/**
 * A search of several words: the word whose partition holds the fewest instances in the range
 * (one bounded COUNT query each; the longest among those past the probe) drives the query, the
 * others filter it. A later page takes the first page's choice from its cursor.
 */
async function chooseDriver(store: ProcessInstanceStore, tenantId: string, queries: InstanceViewQuery[], driver?: number): Promise<{ queries: InstanceViewQuery[]; driver?: number }> {
  const q = queries[0];
  if (queries.length !== 1 || q?.partition.kind !== 'W' || !q.terms?.length) return { queries };
  const words = [q.partition.term, ...q.terms];
  let chosen = driver;
  if (chosen === undefined || chosen >= words.length) {
    const probes = await Promise.all(
      words.map((term) => store.countViews(tenantId, { ...q, partition: { kind: 'W', term }, terms: undefined, statuses: undefined, processDefnId: undefined, processDefnName: undefined }, WORD_PROBE_ITEMS, WORD_PROBE_ITEMS)),
    );
    chosen = 0;
    probes.forEach((p, i) => {
      if (p.count < probes[chosen!]!.count) chosen = i;
    });
  }
  const term = words[chosen]!;
  return { queries: [{ ...q, partition: { kind: 'W', term }, terms: words.filter((_, i) => i !== chosen) }], driver: chosen };
}

function fingerprint(f: InstanceFilters, sort: string[]): string {
  const canonical = JSON.stringify([
    f.searchString ?? null,
    f.startDateTime ?? null,
    f.endDateTime ?? null,
    f.processDefinitionName ?? null,
    f.processDefinitionId ?? null,
    [...(f.processInstanceStatus ?? [])].sort(),
    sort,
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

function encodeCursor(c: Cursor): string {
  const tail = c.counted !== undefined ? [c.counted, c.atLeast ? 1 : 0, c.driver ?? 0] : [];
  return Buffer.from(JSON.stringify([c.createdAt, c.id, c.fingerprint, ...tail]), 'utf8').toString('base64url');
}

function decodeCursor(value: string, expected: string, where: string): Cursor {
  const refuse = (message: string) => new InvalidCursorError('Invalid cursor.', [{ location: where, message }]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    throw refuse('not a cursor this service gave');
  }
  // [createdAt, id, fingerprint] and, since counts are carried, [count, atLeast, driver].
  if (!Array.isArray(parsed) || (parsed.length !== 3 && parsed.length !== 6) || !parsed.slice(0, 3).every((p) => typeof p === 'string')) {
    throw refuse('not a cursor this service gave');
  }
  const [createdAt, id, fp, counted, atLeast, driver] = parsed as [string, string, string, unknown, unknown, unknown];
  if (Number.isNaN(Date.parse(createdAt)) || !/^[0-9a-f-]{36}$/.test(id)) throw refuse('not a cursor this service gave');
  const int = (v: unknown, max: number) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= max;
  if (parsed.length === 6 && !(int(counted, INSTANCE_COUNT_CAP + 1) && int(atLeast, 1) && int(driver, 7))) throw refuse('not a cursor this service gave');
  if (fp !== expected) throw refuse('the cursor belongs to other filters or another sort; send the same ones as for the page that gave it');
  return { createdAt, id, fingerprint: fp, counted: counted as number | undefined, atLeast: atLeast === 1, driver: driver as number | undefined };
}

export interface InstancePageQuery {
  page: number;
  size: number;
  sort: string[];
  cursor?: string | undefined;
}

export type InstancePage = Page<ReturnType<typeof instanceListItem>> & { nextCursor: string | null; totalElementsCapped: boolean };

/**
 * One page of the tenant's instances that match the filters. Creation order (the default,
 * `createdAt,desc`, or `createdAt,asc`) comes from the index: a page reads its own views (after
 * the cursor) or, by page number, the views before it too (at most INSTANCE_COUNT_CAP deep). Any
 * other sort reads every match (at most INSTANCE_COUNT_CAP) and sorts them in memory.
 * `totalElements` is counted by a page asked without a cursor (Select COUNT queries over the same
 * key range, stopping past INSTANCE_COUNT_CAP) and carried in its `nextCursor`, so the pages a
 * cursor reaches count nothing: their total is as of the first page.
 */
export async function searchInstances(
  store: ProcessInstanceStore,
  tenantId: string,
  filters: InstanceFilters,
  query: InstancePageQuery,
  now: Date,
  where = 'query',
): Promise<InstancePage> {
  const { orders, errors } = parseSort(query.sort, INSTANCE_SORTABLE);
  if (errors.length) throw new ValidationError('Invalid sort.', errors.map((message) => ({ location: `${where}.sort`, message })));
  const sorted = orders.length > 0;
  const byCreation = orders.length === 0 || (orders.length === 1 && orders[0]!.property === 'createdAt');
  const direction: Direction = orders[0]?.property === 'createdAt' ? orders[0].direction : 'desc';
  const { page, size } = query;
  const fp = fingerprint(filters, query.sort);
  const after = query.cursor && byCreation ? decodeCursor(query.cursor, fp, `${where}.cursor`) : undefined;
  const { queries, driver } = await chooseDriver(store, tenantId, planQueries(filters, direction, now), after?.driver);

  if (!byCreation) {
    if (query.cursor) {
      throw new InvalidCursorError('Invalid cursor.', [{ location: `${where}.cursor`, message: 'a cursor pages only in creation order (sort=createdAt)' }]);
    }
    const { views, more } = await readMerged(store, tenantId, queries, INSTANCE_COUNT_CAP);
    if (more) {
      throw new ValidationError('Too many matches to sort.', [
        {
          location: `${where}.sort`,
          message: `more than ${INSTANCE_COUNT_CAP} instances match: sort by createdAt, or narrow the filters (creation range, status, definition)`,
        },
      ]);
    }
    const ordered = sortBy(views, [...orders, { property: 'createdAt', direction: 'desc' }], (r, k) => r[k]);
    const content = ordered.slice(page * size, page * size + size).map((r) => instanceListItem(r, now));
    return pageOf(content, { page, size, sorted, total: ordered.length, capped: false, more: ordered.length > page * size + size, nextCursor: null });
  }

  let views: InstanceView[];
  let more: boolean;
  let counted: number | undefined;
  let atLeast = false;
  if (after) {
    counted = after.counted;
    atLeast = !!after.atLeast;
    ({ views, more } = await readMerged(
      store,
      tenantId,
      queries.map((q) => ({ ...q, after })),
      size,
    ));
  } else {
    const skip = page * size;
    if (skip + size > INSTANCE_COUNT_CAP) {
      throw new ValidationError('Page too deep.', [
        {
          location: `${where}.page`,
          message: `pages by number reach ${INSTANCE_COUNT_CAP} instances deep; further on, follow nextCursor (the cursor parameter)`,
        },
      ]);
    }
    const read = await readMerged(store, tenantId, queries, skip + size);
    views = read.views.slice(skip);
    more = read.more;
  }
  // A cursor of an older version carries no count: count once more, then carry it.
  if (counted === undefined) ({ counted, atLeast } = await countMerged(store, tenantId, queries));
  const capped = counted > INSTANCE_COUNT_CAP || atLeast;
  const last = views.at(-1);
  return pageOf(views.map((r) => instanceListItem(r, now)), {
    page,
    size,
    sorted,
    total: Math.min(counted, INSTANCE_COUNT_CAP),
    capped,
    more,
    nextCursor: more && last ? encodeCursor({ createdAt: last.createdAt, id: last.id, fingerprint: fp, counted, atLeast, driver }) : null,
  });
}

function pageOf<T>(
  content: T[],
  o: { page: number; size: number; sorted: boolean; total: number; capped: boolean; more: boolean; nextCursor: string | null },
): Page<T> & { nextCursor: string | null; totalElementsCapped: boolean } {
  const p = toPage<T>([], o.page, o.size, o.sorted);
  // At least the pages up to this one (and one more while more match) when the count is capped.
  const totalPages = Math.max(Math.ceil(o.total / o.size), o.more ? o.page + 2 : content.length ? o.page + 1 : 0);
  return {
    ...p,
    content,
    totalElements: o.capped ? o.total : Math.max(o.total, o.page * o.size + content.length),
    totalPages,
    last: !o.more,
    numberOfElements: content.length,
    empty: content.length === 0,
    nextCursor: o.nextCursor,
    totalElementsCapped: o.capped,
  };
}

export function instanceListItem(r: InstanceView, now: Date) {
  return {
    ...instanceView(r, now),
    // Every instance is deleted after its retention; archiving (which would keep one) comes later.
    scheduledExpiry: true,
    extendedSearchField: null,
    extendedSearchTerms: [] as string[],
  };
}

/**
 * Every match, in the page's order, for the CSV export: at most `max` (more: `tooMany`).
 */
export async function exportRows(
  store: ProcessInstanceStore,
  tenantId: string,
  filters: InstanceFilters,
  sort: string[],
  now: Date,
  max: number,
): Promise<{ views: InstanceView[]; tooMany: boolean }> {
  const { orders, errors } = parseSort(sort, INSTANCE_SORTABLE);
  if (errors.length) throw new ValidationError('Invalid sort.', errors.map((message) => ({ location: 'body.sort', message })));
  const direction: Direction = orders[0]?.property === 'createdAt' ? orders[0].direction : 'desc';
  const { queries } = await chooseDriver(store, tenantId, planQueries(filters, direction, now));
  const { views, more } = await readMerged(store, tenantId, queries, max);
  const ordered = orders.length ? sortBy(views, [...orders, { property: 'createdAt', direction: 'desc' }], (r, k) => r[k]) : views;
  return { views: ordered, tooMany: more };
}

const CSV_COLUMNS = [
  'id',
  'processDefnId',
  'processDefnName',
  'processDefnVersion',
  'status',
  'createdAt',
  'lastUpdatedAt',
  'retentionDays',
  'expiringDtm',
  ...CONTACT_PARAMETERS,
] as const;

/**
 * A line that is a number or a phone number (`+4915123456789`, `-12.5`, `+49 (151) 234-567`): a
 * leading `+` or `-`, then only digits, spaces, dots, parentheses and hyphens, at least one
 * digit. Nothing of that can call a function or reach another cell (no letters, no `=`, `|`, `!`,
 * `:`, `+` or `@` after the sign), so it is left as it is; `-2+3` is not one.
 */
const NUMBER_LIKE = /^[+-][0-9 ().-]*[0-9][0-9 ().-]*$/;

/**
 * Spreadsheet programs run a cell that starts with = + - @ (or tab / CR) as a formula; the
 * parameters come from relying parties' own users, so such cells get a leading apostrophe, and
 * so does every line of a value after a line break (a program that splits the cell, or a reader
 * that takes a lone LF as a row end, would otherwise meet `=1+1` at a line start). A line that
 * is a number or a phone number (NUMBER_LIKE) keeps its sign as it is: `+4915123456789` stays a
 * phone number. A cell with any line break is quoted, so the break stays inside its cell
 * (csv-stringify quotes on its record delimiter, CRLF here, and not on a lone LF).
 */
export function csvCell(value: unknown): string {
  const s = value === undefined || value === null ? '' : String(value);
  return s.replace(/(^|\r\n|\n|\r)(?=[=+\-@\t\r])/g, (at: string, lineBreak: string, offset: number) => {
    const start = offset + lineBreak.length;
    const end = s.slice(start).search(/[\r\n]/);
    const line = end < 0 ? s.slice(start) : s.slice(start, start + end);
    return NUMBER_LIKE.test(line) ? at : `${lineBreak}'`;
  });
}

export function instancesCsv(records: InstanceView[], now = new Date()): string {
  const rows = records.map((r) => {
    const v = instanceView(r, now) as Record<string, unknown>;
    return CSV_COLUMNS.map((c) => csvCell(v[c]));
  });
  return stringify([[...CSV_COLUMNS], ...rows], { record_delimiter: '\r\n', quoted_match: /[\r\n]/ });
}
