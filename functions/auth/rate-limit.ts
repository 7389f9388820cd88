/**
 * A tenant's rate limit: its own share of the deployment's request rate. What it needs of
 * storage is one thing, implemented over the table by store/rate-limits.ts (wired in ./deps.ts).
 */
export interface TenantRateCounter {
  /**
   * True when the request is within `limit` for the tenant in the second of `now` (and is
   * counted), in the window of its requests or, apart, of its token issues.
   */
  take(tenantId: string, now: Date, limit: number, window?: 'requests' | 'tokenIssue'): Promise<boolean>;
}

/**
 * Token issue's own budget (TOKEN_RATE_LIMIT a second per tenant): each issue is one KMS Sign on
 * AWS, and KMS's request quota is shared by the whole account and region, so one tenant
 * exchanging keys for tokens in a loop could starve every tenant's token issue. Counted only
 * after the key is verified (the caller's job), so a caller without a valid key cannot spend a
 * tenant's budget. True when within (or when no limit is set); when the count itself fails (the
 * table throttling), the issue goes on, as for the request limit: the limit must not become an
 * outage of its own.
 */
export async function withinTokenIssueRate(
  counter: TenantRateCounter,
  tenantId: string,
  now: Date,
  limit: number | undefined,
  onCountFailed: (err: Error) => void,
): Promise<boolean> {
  if (limit === undefined) return true;
  try {
    return await counter.take(tenantId, now, limit, 'tokenIssue');
  } catch (err) {
    onCountFailed(err as Error);
    return true;
  }
}
