import { tenantStore } from '../store/tenants.js';
import { apiKeys } from '../api-keys/deps.js';
import type { TenantStore } from './domain.js';

/** The tenant area's storage (the operator CLI and the local runtime's bootstrap use it). */
export const tenantDeps = { tenants: tenantStore as TenantStore, apiKeys };
