import { apiKeys } from '../api-keys/deps.js';
import { tenantStore } from '../store/tenants.js';
import type { TenantStore } from './domain.js';

const tenants: TenantStore = tenantStore;

/** The tenant area's storage (the operator CLI makes tenants and their first keys with it). */
export const tenantDeps = { tenants, apiKeys };
