import { apiError, ValidationError } from '../errors.js';
import { PERMISSIONS, TENANT_ID_PATTERN, allPermissions } from '../auth/permissions.js';
import { REGIONS, type ServiceRegion } from '../config.js';
import { createApiKey, type ApiKeyRecord, type ApiKeyStore } from '../api-keys/domain.js';

export interface TenantRecord {
  tenantId: string;
  region: ServiceRegion;
  createdDtm: string;
  createdBy: string;
}

export interface TenantStore {
  /** False when the tenant already exists (it is made with its lists' own items: see store/list-meta.ts). */
  create(record: TenantRecord): Promise<boolean>;
  get(tenantId: string): Promise<TenantRecord | undefined>;
  /** Every tenant's id (a Scan of the table: for the operator's backfills only). */
  ids(): Promise<string[]>;
}

/** A list whose items get list views (`operator backfill-lists`): the backfill of one tenant's list. */
export interface ViewedList {
  name: string;
  backfill(tenantId: string): Promise<{ items: number; views: number }>;
}

/**
 * The operator's `backfill-lists`: every item of each list gets its list view, and the list is
 * marked viewed (it then pages by its views), for one tenant or all. Tenants made since views
 * exist have them from the start; those made before list as they did until this has run.
 * Idempotent.
 */
export async function backfillLists(
  tenants: Pick<TenantStore, 'ids'>,
  lists: readonly ViewedList[],
  o: { tenantId?: string | undefined; onTenant?: (tenantId: string, done: Record<string, { items: number; views: number }>) => void },
): Promise<{ tenants: number; lists: Record<string, { items: number; views: number }> }> {
  const ids = o.tenantId ? [o.tenantId] : await tenants.ids();
  const totals: Record<string, { items: number; views: number }> = Object.fromEntries(lists.map((l) => [l.name, { items: 0, views: 0 }]));
  for (const tenantId of ids) {
    const done: Record<string, { items: number; views: number }> = {};
    for (const list of lists) {
      done[list.name] = await list.backfill(tenantId);
      totals[list.name]!.items += done[list.name]!.items;
      totals[list.name]!.views += done[list.name]!.views;
    }
    o.onTenant?.(tenantId, done);
  }
  return { tenants: ids.length, lists: totals };
}

export class TenantExistsError extends apiError('TENANT_EXISTS') {}

export function validateTenant(tenantId: string, region: string): ServiceRegion {
  if (!TENANT_ID_PATTERN.test(tenantId)) {
    throw new ValidationError(`"${tenantId}" is not a tenant id: use lower-case letters, digits and inner hyphens, at most 63.`);
  }
  if (!(REGIONS as readonly string[]).includes(region)) {
    throw new ValidationError(`"${region}" is not a region: use one of ${REGIONS.join(', ')}.`);
  }
  return region as ServiceRegion;
}

/**
 * An operator creates a tenant and its first API key, which holds every permission (there is
 * nobody yet to grant them). The secret is returned once, here, as for any key.
 */
export async function createTenantWithFirstKey(
  stores: { tenants: TenantStore; apiKeys: ApiKeyStore },
  input: { tenantId: string; region: string; keyName: string; now: Date; actor: string },
): Promise<{ tenant: TenantRecord; apiKey: ApiKeyRecord; secret: string }> {
  const region = validateTenant(input.tenantId, input.region);
  const tenant: TenantRecord = {
    tenantId: input.tenantId,
    region,
    createdDtm: input.now.toISOString(),
    createdBy: input.actor,
  };
  if (!(await stores.tenants.create(tenant))) {
    throw new TenantExistsError(`Tenant ${input.tenantId} already exists.`);
  }
  return { tenant, ...(await createOperatorKey(stores, { ...input, description: 'First key of the tenant, made by the operator.' })) };
}

export class TenantNotFoundError extends apiError('TENANT_NOT_FOUND') {}

/**
 * A key with every permission, made by an operator for an existing tenant (for example when
 * the only key's secret was lost). Tenants' own keys are made through the API instead.
 */
export async function createOperatorKey(
  stores: { tenants: TenantStore; apiKeys: ApiKeyStore },
  input: { tenantId: string; keyName: string; now: Date; actor: string; description?: string },
): Promise<{ apiKey: ApiKeyRecord; secret: string }> {
  if (!(await stores.tenants.get(input.tenantId))) throw new TenantNotFoundError(`Tenant ${input.tenantId} does not exist.`);
  const { record, secret } = await createApiKey(
    stores.apiKeys,
    {
      name: input.keyName,
      description: input.description ?? 'Made by the operator.',
      permissions: allPermissions(input.tenantId),
    },
    { tenantId: input.tenantId, id: input.actor, permissions: new Set(PERMISSIONS) },
    input.now,
  );
  return { apiKey: record, secret };
}
