import { InvalidApiKeyError, MissingPermissionError } from '../errors.js';
import { apiKeys } from '../api-keys/deps.js';
import { keyRefusal, parseSecret, type DirectOperation } from '../api-keys/domain.js';
import { DIRECT_OPERATIONS } from '../api-keys/schemas.js';
import { isPermissionName, parsePermission, qualify, type PermissionName } from './permissions.js';

/**
 * An API key used directly on a "B or K" route: one consistent read, then the same checks as a
 * token issue (hash, status, expiry, permitted operations) plus the route's permission.
 */
export async function authenticateDirectKey(
  tenantId: string,
  secret: string,
  operation: string,
  permission: PermissionName,
  now: Date,
): Promise<{ kind: 'directKey'; apiKeyId: string; actor: string; permissions: ReadonlySet<PermissionName> }> {
  const parsed = parseSecret(secret);
  if (!parsed || !(DIRECT_OPERATIONS as readonly string[]).includes(operation)) throw new InvalidApiKeyError();
  const op = operation as DirectOperation;
  const record = await apiKeys.get(tenantId, parsed.id);
  const refusal = keyRefusal(record, parsed.hash, now, op);
  if (refusal || !record) throw refusal ?? new InvalidApiKeyError();
  const permissions = new Set<PermissionName>();
  for (const p of record.permissions) {
    const parts = parsePermission(p);
    if (parts && parts.tenantId === tenantId && isPermissionName(parts.name)) permissions.add(parts.name);
  }
  if (!permissions.has(permission)) throw new MissingPermissionError(qualify(tenantId, permission));
  return { kind: 'directKey', apiKeyId: record.id, actor: `apikey:${record.id}`, permissions };
}
