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
  /** False when the tenant already exists. */
  create(record: TenantRecord): Promise<boolean>;
  get(tenantId: string): Promise<TenantRecord | undefined>;
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
