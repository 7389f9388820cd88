/** The storage the ports above the store need, put together here and only here. */
import { rateLimitStore } from '../store/rate-limits.js';
import type { TenantRateCounter } from './rate-limit.js';

export const tenantRates: TenantRateCounter = rateLimitStore;
