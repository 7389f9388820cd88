/**
 * A tenant's rate limit: its own share of the deployment's request rate. What it needs of
 * storage is one thing, implemented over the table by store/rate-limits.ts (wired in ./deps.ts).
 */
export interface TenantRateCounter {
  /** True when the request is within `limit` for the tenant in the second of `now` (and is counted). */
  take(tenantId: string, now: Date, limit: number): Promise<boolean>;
}
