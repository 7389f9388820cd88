import { apiError, ConcurrentUpdateError, InvalidCursorError, ValidationError } from '../errors.js';
import { orderedPage } from '../shared/keyed-list.js';
import { cursorPage, parseSort, sortBy, toPage, type CursorPage, type SortOrder } from '../shared/page.js';
import type { CloudSecretRecord, CloudSecretSealer, CloudSecretStore, CloudSecretSummary } from './model.js';

export class CloudSecretExistsError extends apiError('CLOUD_SECRET_EXISTS') {
  constructor(name: string) {
    super(`A cloud secret named "${name}" exists; rotate it with POST /api/process-manager/cloudSecrets/{name}, or delete it first.`);
  }
}

export class CloudSecretNotFoundError extends apiError('CLOUD_SECRET_NOT_FOUND') {
  constructor(name: string) {
    super(`No cloud secret named "${name}".`);
  }
}

/** KMS encrypts at most 4,096 bytes of plaintext; a secret is at most that (a key, a token, a certificate). */
export const MAX_SECRET_BYTES = 4096;
/** The shortest value: what the logs mask (a shorter one would mask ordinary text, so it could not be masked). */
export const MIN_SECRET_CHARS = 8;

export const CLOUD_SECRET_SORTABLE = ['name', 'version', 'createdDtm', 'lastUpdatedDtm'] as const;

/** A secret as every read shows it: its name and history, never its value. */
export function cloudSecretView(r: CloudSecretSummary) {
  return {
    name: r.name,
    description: r.description,
    version: r.version,
    createdDtm: r.createdDtm,
    createdBy: r.createdBy,
    lastUpdatedDtm: r.lastUpdatedDtm,
    lastUpdatedBy: r.lastUpdatedBy,
  };
}

interface Deps {
  secrets: CloudSecretStore;
  sealer: CloudSecretSealer;
}

/** Stores a new secret, sealed (its value never stored in clear, never returned, never logged). */
export async function createCloudSecret(
  d: Deps,
  input: { name: string; description?: string | null | undefined; value: string },
  ctx: { tenantId: string; actor: string; now: Date },
): Promise<CloudSecretRecord> {
  const at = ctx.now.toISOString();
  const ref = { tenantId: ctx.tenantId, name: input.name, version: 1 };
  const record: CloudSecretRecord = {
    tenantId: ctx.tenantId,
    name: input.name,
    description: input.description ?? '',
    version: 1,
    sealed: await d.sealer.seal(input.value, ref),
    createdDtm: at,
    createdBy: ctx.actor,
    lastUpdatedDtm: at,
    lastUpdatedBy: ctx.actor,
  };
  const out = await d.secrets.create(record);
  if (out.outcome === 'exists') throw new CloudSecretExistsError(input.name);
  return record;
}

/** A new value (and description, when given) under the next version; the old value is gone. */
export async function rotateCloudSecret(
  d: Deps,
  input: { name: string; description?: string | null | undefined; value: string },
  ctx: { tenantId: string; actor: string; now: Date },
): Promise<CloudSecretRecord> {
  const current = await d.secrets.get(ctx.tenantId, input.name);
  if (!current) throw new CloudSecretNotFoundError(input.name);
  const version = current.version + 1;
  const record: CloudSecretRecord = {
    ...current,
    description: input.description ?? current.description,
    version,
    sealed: await d.sealer.seal(input.value, { tenantId: ctx.tenantId, name: input.name, version }),
    lastUpdatedDtm: ctx.now.toISOString(),
    lastUpdatedBy: ctx.actor,
  };
  const out = await d.secrets.replace(record, current.version);
  if (out.outcome === 'gone') throw new CloudSecretNotFoundError(input.name);
  if (out.outcome === 'changed') throw new ConcurrentUpdateError();
  return record;
}

export async function deleteCloudSecret(d: Pick<Deps, 'secrets'>, tenantId: string, name: string): Promise<void> {
  if (!(await d.secrets.delete(tenantId, name))) throw new CloudSecretNotFoundError(name);
}

export async function getCloudSecret(d: Pick<Deps, 'secrets'>, tenantId: string, name: string): Promise<CloudSecretRecord> {
  const record = await d.secrets.get(tenantId, name);
  if (!record) throw new CloudSecretNotFoundError(name);
  return record;
}

/**
 * The tenant's secrets, a page at a time (docs/lists.md); `name` filters by prefix. Unsorted
 * pages come in name order (the byte order of names: `A`-`Z` before `a`-`z`), in which a page is
 * one Query of the secrets' list views, by `cursor` or by number, and a prefix is a key range.
 * Other sorts sort the (matching) secrets in memory, at most LIST_SORT_CAP. A tenant whose secrets
 * have no views yet is read whole, as before.
 */
export async function cloudSecretsPage(
  d: Pick<Deps, 'secrets'>,
  tenantId: string,
  query: { page: number; size: number; sort: string[]; name?: string | undefined; cursor?: string | undefined },
): Promise<CursorPage<ReturnType<typeof cloudSecretView>>> {
  const { orders, errors } = parseSort(query.sort, CLOUD_SECRET_SORTABLE);
  if (errors.length) throw new ValidationError('Invalid sort.', errors.map((message) => ({ location: 'query.sort', message })));
  const view = (records: CloudSecretSummary[]) => records.map(cloudSecretView);
  if (!(await d.secrets.viewed(tenantId))) {
    if (query.cursor) throw new InvalidCursorError(undefined, [{ location: 'query.cursor', message: "this tenant's secrets page by number until `operator backfill-lists` has run" }]);
    const all = (await d.secrets.list(tenantId)).filter((s) => !query.name || s.name.startsWith(query.name));
    const ordered = sortBy(all, [...orders, { property: 'name', direction: 'asc' }], (r, k) => r[k]);
    return { ...toPage(view(ordered), query.page, query.size, orders.length > 0), nextCursor: null, totalElementsCapped: false };
  }
  // Names hold only letters, digits and `_ . -`: a prefix with anything else matches none.
  const prefix = query.name ?? '';
  if (!/^[A-Za-z0-9_.-]*$/.test(prefix)) return cursorPage([], { page: query.page, size: query.size, sorted: orders.length > 0, total: 0, capped: false, more: false, nextCursor: null });
  const source = d.secrets.byName(tenantId, prefix);
  return orderedPage(source, {
    key: 'name',
    binding: { tenantId, list: 'cloudSecrets', query: [prefix, orders] },
    query,
    orders,
    tieBreak: [{ property: 'name', direction: 'asc' }] as SortOrder<(typeof CLOUD_SECRET_SORTABLE)[number]>[],
    value: (r, k) => r[k],
    view,
    instead: 'sort by name (either way), whose pages read only themselves, or give a longer name prefix',
  });
}

/**
 * The values of the secrets a step may read, by name, unsealed for this run only. A name the
 * tenant has no secret of is an error the step reports by name (never by value).
 */
export async function secretsForRun(d: Deps, tenantId: string, names: string[]): Promise<{ values: Record<string, string>; missing: string[] }> {
  const found = await d.secrets.getMany(tenantId, names);
  const byName = new Map(found.map((r) => [r.name, r]));
  const missing = [...new Set(names)].filter((n) => !byName.has(n));
  const entries = await Promise.all(
    found.map(async (r) => [r.name, await d.sealer.unseal(r.sealed, { tenantId, name: r.name, version: r.version })] as const),
  );
  return { values: Object.fromEntries(entries), missing };
}
