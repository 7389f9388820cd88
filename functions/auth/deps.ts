/** The storage the ports above the store need, put together here and only here. */
import { rateLimitStore } from '../store/rate-limits.js';
import { leasedRateCounter } from './rate-limit.js';

/** The tenant rate limit: leases of each tenant's budget a second, spent in this container's memory. */
export const tenantRates = leasedRateCounter(rateLimitStore);
