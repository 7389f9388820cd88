import { randomUUID } from 'node:crypto';
import { ConcurrentUpdateError, ValidationError, type ApiError } from '../errors.js';
import { checkTransition } from './lifecycle.js';
import { orderedPage } from '../shared/keyed-list.js';
import { parseSort, type CursorPage, type SortOrder } from '../shared/page.js';
import type { DeploymentStatus, VersionedStore, VersionedSummary } from './model.js';

/**
 * The family's name / versions / id / status pattern, once for every artifact kept that way
 * (data forms, cloud functions): versions are immutable, the server assigns the next one when
 * none is given, and a version moves along the definitions' lifecycle (lifecycle.ts).
 */
export interface VersionedKindOf<R extends S & { tenantId: string }, S extends VersionedSummary, V = Record<string, unknown>> {
  /** How the lifecycle's messages name it ("data form"). */
  noun: string;
  exists(name: string, version: number): ApiError;
  notFound(id: string): ApiError;
  /** A version as a versions page shows it. */
  summary(record: S): V;
  /** Sortable properties of a versions page; unsorted pages come in version order. */
  sortable: readonly (keyof S & string)[];
  _record?: R;
}

/** Attempts at the next version when other clients add versions of the same name meanwhile. */
const NEXT_VERSION_ATTEMPTS = 5;

/** What every version has besides its own content, as a request gives it. */
/**
 * A version as lists and reads answer it, for the artifacts uploaded with the family's
 * `creationOption` (data forms, custom pages): the summary's members in the family's order.
 */
export function uploadedVersionView(r: VersionedSummary & { creationOption: string | null }) {
  return {
    id: r.id,
    name: r.name,
    version: r.version,
    description: r.description,
    status: r.status,
    creationOption: r.creationOption,
    createdDtm: r.createdDtm,
    createdBy: r.createdBy,
    lastUpdatedDtm: r.lastUpdatedDtm,
    lastUpdatedBy: r.lastUpdatedBy,
  };
}

export interface NewVersion {
  name: string;
  description?: string | null | undefined;
  version?: number | null | undefined;
  status?: DeploymentStatus | null | undefined;
}

/**
 * Adds a version: with a version, that exact one (409 if it exists); without, the next one of
 * the name, retried if a concurrent addition takes it first. `content` gives the rest of the record.
 */
export async function addVersion<R extends S & { tenantId: string }, S extends VersionedSummary>(
  kind: VersionedKindOf<R, S, unknown>,
  store: Pick<VersionedStore<R, S>, 'create' | 'latestVersion'>,
  input: NewVersion,
  content: Omit<R, keyof VersionedSummary | 'tenantId'>,
  ctx: { tenantId: string; actor: string; now: Date },
): Promise<R> {
  for (let attempt = 0; ; attempt++) {
    const version = input.version ?? ((await store.latestVersion(ctx.tenantId, input.name)) ?? 0) + 1;
    const at = ctx.now.toISOString();
    const record = {
      ...content,
      tenantId: ctx.tenantId,
      id: randomUUID(),
      name: input.name,
      version,
      description: input.description ?? '',
      status: input.status ?? 'DRAFT',
      createdDtm: at,
      createdBy: ctx.actor,
      lastUpdatedDtm: at,
      lastUpdatedBy: ctx.actor,
    } as R;
    if (await store.create(record)) return record;
    if (input.version != null || attempt + 1 >= NEXT_VERSION_ATTEMPTS) throw kind.exists(input.name, version);
  }
}

export async function getVersioned<R extends S & { tenantId: string }, S extends VersionedSummary>(
  kind: VersionedKindOf<R, S, unknown>,
  store: Pick<VersionedStore<R, S>, 'get'>,
  tenantId: string,
  id: string,
): Promise<R> {
  const record = await store.get(tenantId, id);
  if (!record) throw kind.notFound(id);
  return record;
}

export async function setVersionedStatus<R extends S & { tenantId: string }, S extends VersionedSummary>(
  kind: VersionedKindOf<R, S, unknown>,
  store: Pick<VersionedStore<R, S>, 'get' | 'setStatus'>,
  input: { tenantId: string; id: string; status: DeploymentStatus; actor: string; now: Date },
): Promise<R> {
  const record = await getVersioned(kind, store, input.tenantId, input.id);
  if (checkTransition(kind.noun, record.status, input.status) === 'same') return record;
  const updated = await store.setStatus(record, record.status, input.status, { actor: input.actor, now: input.now });
  if (updated.outcome === 'gone') throw kind.notFound(input.id);
  if (updated.outcome === 'changed') throw new ConcurrentUpdateError();
  return { ...record, status: input.status, lastUpdatedDtm: input.now.toISOString(), lastUpdatedBy: input.actor };
}

/**
 * A page of one name's versions (docs/lists.md): in version order (the default, or
 * `sort=version[,desc]`) one Query of the page's own summary items, by `cursor` or by number;
 * other sorts sort the name's versions in memory (at most LIST_SORT_CAP), by number only.
 */
export async function versionsPage<R extends S & { tenantId: string }, S extends VersionedSummary, V>(
  kind: VersionedKindOf<R, S, V>,
  store: Pick<VersionedStore<R, S>, 'versionsOf'>,
  tenantId: string,
  name: string,
  query: { page: number; size: number; sort: string[]; cursor?: string | undefined },
): Promise<CursorPage<V>> {
  const { orders, errors } = parseSort(query.sort, kind.sortable);
  if (errors.length) throw new ValidationError('Invalid sort.', errors.map((message) => ({ location: 'query.sort', message })));
  const source = store.versionsOf(tenantId, name);
  const view = (records: S[]) => records.map((r) => kind.summary(r));
  return orderedPage(source, {
    key: 'version',
    binding: { tenantId, list: `${kind.noun} versions`, scope: [name], query: orders },
    query,
    orders,
    tieBreak: [{ property: 'version', direction: 'asc' }] as SortOrder<keyof S & string>[],
    value: (r, key) => r[key],
    view,
    instead: 'sort by version alone (either way), whose pages read only themselves',
  });
}
