import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import {
  ApiKeyArchivedError,
  ApiKeyBlockedError,
  ApiKeyExpiredError,
  ApiKeyNotFoundError,
  ApiKeyOperationNotPermittedError,
  ConcurrentUpdateError,
  InvalidApiKeyError,
  InvalidCursorError,
  InvalidTokenError,
  InvalidTransitionError,
  PermissionEscalationError,
  ValidationError,
  type ErrorDetail,
} from '../errors.js';
import { parsePermission, type PermissionName } from '../auth/permissions.js';
import { orderedPage, type KeyedSource } from '../shared/keyed-list.js';
import { likePattern, parseSort, sortBy, toPage, type CursorPage, type Page, type SortOrder } from '../shared/page.js';
import type {
  ApiKeyCreateInput,
  ApiKeyUpdateInput,
  API_KEY_STATUSES,
  API_KEY_TYPES,
  DIRECT_OPERATIONS,
} from './schemas.js';
import { SORTABLE_FIELDS } from './schemas.js';

export type ApiKeyType = (typeof API_KEY_TYPES)[number];
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];
export type DirectOperation = (typeof DIRECT_OPERATIONS)[number];

/** What is stored. `secretHash` never leaves the store layer except to be compared. */
export interface ApiKeyRecord {
  tenantId: string;
  id: string;
  type: ApiKeyType;
  code: string;
  name: string;
  description: string;
  status: ApiKeyStatus;
  permissions: string[];
  permittedOperations: DirectOperation[];
  expiringDtm: string | null;
  lastIssuedAtDtm: string | null;
  createdDtm: string;
  lastUpdatedDtm: string;
  createdBy: string;
  lastUpdatedBy: string;
  secretHash: string;
  /** Optimistic-lock counter: an update writes only over the version it read. */
  version: number;
}

export type ApiKeyView = Omit<ApiKeyRecord, 'tenantId' | 'secretHash' | 'version'>;

/** The storage the API key domain needs; `store/api-keys.ts` implements it over DynamoDB. */
export interface ApiKeyStore {
  create(record: ApiKeyRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<ApiKeyRecord | undefined>;
  list(tenantId: string): Promise<ApiKeyRecord[]>;
  /** Writes `record` only if the stored version is still `record.version - 1`; false otherwise. */
  replace(record: ApiKeyRecord): Promise<boolean>;
  /** False when there was nothing to delete, or (with `version`) the stored version is another. */
  delete(record: Pick<ApiKeyRecord, 'tenantId' | 'id' | 'createdDtm'>, version?: number): Promise<boolean>;
  /**
   * The list's own item: undefined for a tenant whose keys have no list views yet (made before
   * views, not backfilled), else the count of keys, kept with every create and delete (exact).
   */
  listMeta(tenantId: string): Promise<{ total: number } | undefined>;
  /**
   * The keys by creation time, a page at a time: a page reads its list views (`Limit`) and then
   * its keys (BatchGetItem); walks and name filters read the small views alone.
   */
  byCreation(tenantId: string): KeyedSource<ApiKeyRecord>;
  /** Writes every key's list view, counts the keys, then marks the list viewed (`operator backfill-lists`). Idempotent. */
  backfillViews(tenantId: string): Promise<{ items: number; views: number }>;
  /**
   * One conditional write: stamps `lastIssuedAtDtm` only when the hash matches and the key is
   * ACTIVE and unexpired. On refusal returns what is stored (if anything) so the caller can say why.
   */
  recordIssue(
    tenantId: string,
    id: string,
    secretHash: string,
    now: string,
    operation: DirectOperation,
  ): Promise<{ outcome: 'issued'; record: ApiKeyRecord } | { outcome: 'refused'; current: ApiKeyRecord | undefined }>;
}

/** Who is acting: the key behind the bearer token, with the permission names it carries. */
export interface Actor {
  tenantId: string;
  /** How records and events name the actor: `apikey:{id}` for a token, `operator` for the operator CLI. */
  id: string;
  /** The key behind the token; none for the operator CLI. */
  apiKeyId?: string;
  permissions: ReadonlySet<PermissionName>;
}

// ---------------------------------------------------------------------------------------------
// Secrets

const SECRET_PATTERN = /^ak_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/;

/**
 * `ak_{key id}_{256 random bits}`. The id inside lets token issue find the key with one keyed
 * write instead of a lookup by hash, and the prefix lets secret scanners recognise a leaked key.
 */
export function generateSecret(id: string): string {
  return `ak_${id.replaceAll('-', '')}_${randomBytes(32).toString('base64url')}`;
}

/**
 * SHA-256 is enough here: the secret carries 256 random bits, so a slow password hash would
 * add latency to every token issue without making a stolen hash any easier to reverse.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function parseSecret(secret: string): { id: string; hash: string } | undefined {
  const m = SECRET_PATTERN.exec(secret);
  if (!m) return undefined;
  const h = m[1]!;
  const id = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  return { id, hash: hashSecret(secret) };
}

// ---------------------------------------------------------------------------------------------
// Create, update, view

function normaliseDate(value: string | null | undefined): string | null {
  return value ? new Date(value).toISOString() : null;
}

function checkPermissions(permissions: string[], actor: Actor, details: ErrorDetail[]): string[] {
  const escalated: string[] = [];
  const seen = new Set<string>();
  permissions.forEach((p, i) => {
    const parsed = parsePermission(p);
    if (!parsed) {
      details.push({ location: `body.permissions[${i}]`, message: `"${p}" is not a known permission (TNT#{tenantId}#<name>)` });
    } else if (parsed.tenantId !== actor.tenantId) {
      details.push({ location: `body.permissions[${i}]`, message: 'a key can only hold permissions of its own tenant' });
    } else if (!actor.permissions.has(parsed.name)) {
      escalated.push(p);
    }
    seen.add(p);
  });
  if (escalated.length) throw new PermissionEscalationError(escalated);
  return [...seen];
}

function checkTypeAndExpiry(type: ApiKeyType, expiringDtm: string | null, changedExpiry: boolean, now: Date, details: ErrorDetail[]): void {
  if (type === 'SESSION' && !expiringDtm) {
    details.push({ location: 'body.expiringDtm', message: 'a SESSION key must have an expiringDtm' });
  }
  if (changedExpiry && expiringDtm && new Date(expiringDtm) <= now) {
    details.push({ location: 'body.expiringDtm', message: 'must be in the future' });
  }
}

/**
 * A key made or changed by a key that expires (a SESSION key, or any key with `expiringDtm`)
 * expires no later than it: otherwise a short-lived key could mint itself a permanent successor.
 */
function checkOutlives(expiringDtm: string | null, actorExpiry: string | null | undefined, details: ErrorDetail[]): void {
  if (!actorExpiry) return;
  if (!expiringDtm || new Date(expiringDtm) > new Date(actorExpiry)) {
    details.push({ location: 'body.expiringDtm', message: `the calling key expires at ${actorExpiry}; a key it makes or changes must expire by then` });
  }
}

/** The grant rule for changes: a caller may change or delete only a key whose permissions it holds itself. */
function checkMayChange(target: ApiKeyRecord, actor: Actor): void {
  const stronger = target.permissions.filter((p) => {
    const parsed = parsePermission(p);
    return !parsed || !actor.permissions.has(parsed.name);
  });
  if (stronger.length) throw new PermissionEscalationError(stronger, 'The key holds permissions the caller does not hold, so the caller cannot change or delete it');
}

export function newApiKey(
  input: ApiKeyCreateInput,
  actor: Actor,
  now: Date,
  actorExpiry?: string | null,
): { record: ApiKeyRecord; secret: string } {
  const details: ErrorDetail[] = [];
  const permissions = checkPermissions(input.permissions ?? [], actor, details);
  const type = input.type ?? 'PERMANENT';
  const expiringDtm = normaliseDate(input.expiringDtm);
  checkTypeAndExpiry(type, expiringDtm, true, now, details);
  checkOutlives(expiringDtm, actorExpiry, details);
  if (details.length) throw new ValidationError('The API key is not valid.', details);

  const id = randomUUID();
  const secret = generateSecret(id);
  const stamp = now.toISOString();
  return {
    secret,
    record: {
      tenantId: actor.tenantId,
      id,
      type,
      code: secret.slice(-4),
      name: input.name,
      description: input.description ?? '',
      status: input.status ?? 'ACTIVE',
      permissions,
      permittedOperations: [...new Set(input.permittedOperations ?? [])],
      expiringDtm,
      lastIssuedAtDtm: null,
      createdDtm: stamp,
      lastUpdatedDtm: stamp,
      createdBy: actor.id,
      lastUpdatedBy: actor.id,
      secretHash: hashSecret(secret),
      version: 1,
    },
  };
}

export function applyUpdate(current: ApiKeyRecord, input: ApiKeyUpdateInput, actor: Actor, now: Date, actorExpiry?: string | null): ApiKeyRecord {
  checkMayChange(current, actor);
  if (current.status === 'ARCHIVED') {
    throw new InvalidTransitionError('An archived API key is final and cannot be changed.');
  }
  const details: ErrorDetail[] = [];
  const permissions = input.permissions ? checkPermissions(input.permissions, actor, details) : current.permissions;
  const type = input.type ?? current.type;
  const expiringDtm = input.expiringDtm !== undefined ? normaliseDate(input.expiringDtm) : current.expiringDtm;
  checkTypeAndExpiry(type, expiringDtm, input.expiringDtm !== undefined, now, details);
  if (input.expiringDtm !== undefined) checkOutlives(expiringDtm, actorExpiry, details);
  if (details.length) throw new ValidationError('The API key update is not valid.', details);

  return {
    ...current,
    name: input.name ?? current.name,
    description: input.description ?? current.description,
    type,
    status: input.status ?? current.status,
    permissions,
    permittedOperations: input.permittedOperations ? [...new Set(input.permittedOperations)] : current.permittedOperations,
    expiringDtm,
    lastUpdatedDtm: now.toISOString(),
    lastUpdatedBy: actor.id,
    version: current.version + 1,
  };
}

/** The wire view, fields in the spec's order; the hash and lock counter never leave. */
export function toView(r: ApiKeyRecord): ApiKeyView {
  return {
    id: r.id,
    type: r.type,
    code: r.code,
    name: r.name,
    description: r.description,
    status: r.status,
    permissions: r.permissions,
    permittedOperations: r.permittedOperations,
    expiringDtm: r.expiringDtm,
    lastIssuedAtDtm: r.lastIssuedAtDtm,
    createdDtm: r.createdDtm,
    lastUpdatedDtm: r.lastUpdatedDtm,
    createdBy: r.createdBy,
    lastUpdatedBy: r.lastUpdatedBy,
  };
}

export function requireFound(record: ApiKeyRecord | undefined, id: string): ApiKeyRecord {
  if (!record) throw new ApiKeyNotFoundError(id);
  return record;
}

// ---------------------------------------------------------------------------------------------
// List

export function listPage(
  records: ApiKeyRecord[],
  query: { name: string; page: number; size: number; sort: string[] },
): Page<ApiKeyView> {
  const { orders, errors } = parseSort(query.sort, SORTABLE_FIELDS);
  if (errors.length) {
    throw new ValidationError('Invalid sort.', errors.map((message) => ({ location: 'query.sort', message })));
  }
  const pattern = likePattern(query.name);
  const matching = records.filter((r) => pattern.test(r.name));
  // Unsorted pages still come in a stable order: creation time, then id.
  const ordered = sortBy(
    matching,
    [...orders, { property: 'createdDtm', direction: 'asc' }, { property: 'id', direction: 'asc' }],
    (r, k) => r[k],
  );
  return toPage(ordered.map(toView), query.page, query.size, orders.length > 0);
}

// ---------------------------------------------------------------------------------------------
// Token issue

/**
 * Why a key cannot be used directly for `operation`, or undefined when it can: the same rules
 * as the token issue's conditional write. The caller learns the status only if it holds the secret.
 */
export function keyRefusal(
  current: ApiKeyRecord | undefined,
  secretHash: string,
  now: Date,
  operation: DirectOperation,
): Error | undefined {
  if (
    !current ||
    current.secretHash.length !== secretHash.length ||
    !timingSafeEqual(Buffer.from(current.secretHash), Buffer.from(secretHash))
  ) {
    return new InvalidApiKeyError();
  }
  if (current.status === 'BLOCKED') return new ApiKeyBlockedError();
  if (current.status === 'ARCHIVED') return new ApiKeyArchivedError();
  if (current.expiringDtm && new Date(current.expiringDtm) <= now) return new ApiKeyExpiredError();
  if (!canCallDirectly(current, operation)) return new ApiKeyOperationNotPermittedError(operation);
  return undefined;
}

/** Why the token issue's conditional write refused a key (its refusal, or the generic one). */
export function issueRefusal(current: ApiKeyRecord | undefined, secretHash: string, now: Date, operation: DirectOperation): Error {
  return keyRefusal(current, secretHash, now, operation) ?? new InvalidApiKeyError();
}

export function canCallDirectly(record: ApiKeyRecord, operation: DirectOperation): boolean {
  return record.permittedOperations.length === 0 || record.permittedOperations.includes(operation);
}

/** Token lifetime: the configured TTL, cut short so no token outlives its key. */
export function tokenTtl(record: ApiKeyRecord, configuredTtl: number, now: Date): number {
  if (!record.expiringDtm) return configuredTtl;
  const left = Math.floor((new Date(record.expiringDtm).getTime() - now.getTime()) / 1000);
  return Math.max(1, Math.min(configuredTtl, left));
}

// ---------------------------------------------------------------------------------------------
// Operations over the store: the handlers call these with `deps.ts`'s store.

/**
 * The key behind the caller's token, read again: key management acts only for a key that is
 * still ACTIVE and unexpired, so blocking, archiving or deleting a key stops its tokens managing
 * keys at once (other routes accept them until they expire: at most the token TTL). The
 * operator CLI has no key.
 */
export async function actingKey(apiKeys: ApiKeyStore, actor: Actor, now: Date): Promise<ApiKeyRecord | undefined> {
  if (!actor.apiKeyId) return undefined;
  const record = await apiKeys.get(actor.tenantId, actor.apiKeyId);
  if (!record) throw new InvalidTokenError('The API key behind this token was deleted.');
  if (record.status === 'BLOCKED') throw new ApiKeyBlockedError();
  if (record.status === 'ARCHIVED') throw new ApiKeyArchivedError();
  if (record.expiringDtm && new Date(record.expiringDtm) <= now) throw new ApiKeyExpiredError();
  return record;
}

export async function createApiKey(apiKeys: ApiKeyStore, input: ApiKeyCreateInput, actor: Actor, now: Date) {
  const acting = await actingKey(apiKeys, actor, now);
  const created = newApiKey(input, actor, now, acting?.expiringDtm);
  await apiKeys.create(created.record);
  return created;
}

export async function getApiKey(apiKeys: ApiKeyStore, tenantId: string, id: string): Promise<ApiKeyRecord> {
  return requireFound(await apiKeys.get(tenantId, id), id);
}

/**
 * A read of key material follows the writes' rule (`actingKey`): a blocked, archived, expired or
 * deleted key's tokens no longer read the tenant's keys either. Reading itself costs no second read.
 */
export async function readApiKey(apiKeys: ApiKeyStore, id: string, actor: Actor, now: Date): Promise<ApiKeyRecord> {
  const acting = await actingKey(apiKeys, actor, now);
  return acting?.id === id ? acting : getApiKey(apiKeys, actor.tenantId, id);
}

/**
 * A page of the tenant's keys, for a caller whose key is still usable (`readApiKey`); see
 * docs/lists.md. By creation time (the default, or `sort=createdDtm[,desc]`) a page reads its own
 * list views and keys, by cursor or by number, and `totalElements` is the count the list keeps
 * (exact; with a `name` pattern, the matches counted on the views). Other sorts sort the
 * (matching) keys in memory, at most LIST_SORT_CAP. A tenant whose keys have no views yet is
 * read whole, as before.
 */
export async function listApiKeys(
  apiKeys: ApiKeyStore,
  actor: Actor,
  query: Parameters<typeof listPage>[1] & { cursor?: string | undefined },
  now: Date,
): Promise<CursorPage<ApiKeyView>> {
  await actingKey(apiKeys, actor, now);
  const { orders, errors } = parseSort(query.sort, SORTABLE_FIELDS);
  if (errors.length) throw new ValidationError('Invalid sort.', errors.map((message) => ({ location: 'query.sort', message })));
  const meta = await apiKeys.listMeta(actor.tenantId);
  if (!meta) {
    if (query.cursor) throw new InvalidCursorError(undefined, [{ location: 'query.cursor', message: "this tenant's keys page by number until `operator backfill-lists` has run" }]);
    return { ...listPage(await apiKeys.list(actor.tenantId), query), nextCursor: null, totalElementsCapped: false };
  }
  // The count was read with the list's item: no second read for it.
  const source: KeyedSource<ApiKeyRecord> = { ...apiKeys.byCreation(actor.tenantId), count: async () => ({ count: meta.total, capped: false, kept: true }) };
  const pattern = likePattern(query.name);
  const filter = query.name === '%' ? undefined : { test: (r: Partial<ApiKeyRecord>) => pattern.test(r.name ?? ''), attributes: ['name'] };
  const view = (records: ApiKeyRecord[]) => records.map(toView);
  return orderedPage(source, {
    key: 'createdDtm',
    binding: { tenantId: actor.tenantId, list: 'apiKeys', query: [query.name, orders] },
    query,
    orders,
    tieBreak: [{ property: 'createdDtm', direction: 'asc' }, { property: 'id', direction: 'asc' }] as SortOrder<(typeof SORTABLE_FIELDS)[number]>[],
    filter,
    value: (r, k) => r[k],
    view,
    instead: 'sort by createdDtm (either way), whose pages read only themselves, or narrow the name pattern',
  });
}

/** Reads the key, applies the update and writes it over the version read (409 when it changed meanwhile). */
export async function updateApiKey(
  apiKeys: ApiKeyStore,
  tenantId: string,
  id: string,
  input: ApiKeyUpdateInput,
  actor: Actor,
  now: Date,
): Promise<ApiKeyRecord> {
  const acting = await actingKey(apiKeys, actor, now);
  const next = applyUpdate(await getApiKey(apiKeys, tenantId, id), input, actor, now, acting?.expiringDtm);
  if (!(await apiKeys.replace(next))) throw new ConcurrentUpdateError();
  return next;
}

/** Deletes a key the caller may change (the grant rule), only as it was read (409 when it changed meanwhile). */
export async function deleteApiKey(apiKeys: ApiKeyStore, tenantId: string, id: string, actor: Actor, now: Date): Promise<void> {
  await actingKey(apiKeys, actor, now);
  const current = await getApiKey(apiKeys, tenantId, id);
  checkMayChange(current, actor);
  if (!(await apiKeys.delete(current, current.version))) {
    if (await apiKeys.get(tenantId, id)) throw new ConcurrentUpdateError();
    throw new ApiKeyNotFoundError(id);
  }
}

/**
 * A token issue's one DynamoDB call: the conditional write that both checks the key and stamps
 * `lastIssuedAtDtm`. The key's record, or the reason it was refused, thrown.
 */
export async function recordTokenIssue(apiKeys: ApiKeyStore, tenantId: string, secret: string, now: Date): Promise<ApiKeyRecord> {
  const parsed = parseSecret(secret);
  if (!parsed) throw new InvalidApiKeyError();
  const issue = await apiKeys.recordIssue(tenantId, parsed.id, parsed.hash, now.toISOString(), 'issueToken');
  if (issue.outcome === 'refused') throw issueRefusal(issue.current, parsed.hash, now, 'issueToken');
  return issue.record;
}
