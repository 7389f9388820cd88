/**
 * A tenant's rate limit: its own share of the deployment's request rate. What it needs of
 * storage is one thing, a lease of part of a second's budget, implemented over the table by
 * store/rate-limits.ts (wired in ./deps.ts).
 */
export type RateWindow = 'requests' | 'tokenIssue';

export interface RateLeaseStore {
  /**
   * Takes up to `want` of the tenant's `limit` for the second of `now`, in one window: answers how
   * many it took (`want`, fewer when that is all that is left, or 0). Every container's leases of
   * one second together never take more than `limit`.
   */
  lease(tenantId: string, now: Date, limit: number, want: number, window?: RateWindow): Promise<number>;
}

export interface TenantRateCounter {
  /**
   * True when the request is within `limit` for the tenant in the second of `now` (and is
   * counted), in the window of its requests or, apart, of its token issues.
   */
  take(tenantId: string, now: Date, limit: number, window?: RateWindow): Promise<boolean>;
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

/** What one container knows of one tenant's window. */
interface Bucket {
  second: number;
  /** Leased and not yet spent, this second. */
  tokens: number;
  /** The table said this second's budget is spent: the rest of the second is refused without asking again. */
  spent: boolean;
  /** Requests seen this second (passed or refused), and in the second before. */
  seen: number;
  seenBefore: number;
  /** The last lease's size this second (0: none yet). */
  lastLease: number;
}

/** At most this many tenants' windows are remembered by one container; the least recently used go first. */
export const MAX_BUCKETS = 10_000;

/**
 * The tenant rate limit without a storage write per request: each container (a Lambda execution
 * environment, or the local server) leases part of a tenant's budget for the current second and
 * spends it in memory. A request costs a write only when its container's lease is used up, and
 * the lease grows with what the container saw (a quarter of its previous second's requests, and
 * twice the last lease when one ran out this second), up to a tenth of the limit: a tenant making
 * 1,000 requests a second through one container costs about 8 lease writes a second, not 1,000.
 * A container that has been told the second is spent refuses the rest of that second without
 * writing at all, so a tenant over its limit costs the table nothing more.
 *
 * Exact where it matters: all containers' leases of a second together never exceed the limit,
 * so no more than `limit` requests a second pass, whatever the number of containers. What a
 * container leased and did not spend is lost at the end of the second, so a tenant spread over
 * many containers may be refused a little before its limit (at most one lease per container).
 */
export function leasedRateCounter(store: RateLeaseStore, opts: { maxBuckets?: number } = {}): TenantRateCounter & { clear(): void } {
  const maxBuckets = opts.maxBuckets ?? MAX_BUCKETS;
  const buckets = new Map<string, Bucket>();

  function bucketOf(key: string, second: number): Bucket {
    let b = buckets.get(key);
    if (b) buckets.delete(key);
    if (!b || b.second !== second) {
      const seenBefore = b && b.second === second - 1 ? b.seen : 0;
      b = { second, tokens: 0, spent: false, seen: 0, seenBefore, lastLease: 0 };
    }
    // Re-inserted: the Map's order is then least recently used first.
    buckets.set(key, b);
    if (buckets.size > maxBuckets) buckets.delete(buckets.keys().next().value as string);
    return b;
  }

  return {
    async take(tenantId, now, limit, window = 'requests') {
      const second = Math.floor(now.getTime() / 1000);
      const b = bucketOf(`${window}|${tenantId}`, second);
      b.seen++;
      if (b.tokens > 0) {
        b.tokens--;
        return true;
      }
      if (b.spent) return false;
      const ceiling = Math.max(1, Math.floor(limit / 10));
      const want = Math.min(ceiling, Math.max(1, Math.ceil(b.seenBefore / 4), b.lastLease * 2));
      b.lastLease = want;
      const granted = await store.lease(tenantId, now, limit, want, window);
      // Another request of this container may have leased meanwhile: what both got adds up.
      if (granted <= 0) {
        b.spent = true;
        return b.tokens > 0 ? (b.tokens--, true) : false;
      }
      b.tokens += granted - 1;
      return true;
    },
    clear() {
      buckets.clear();
    },
  };
}
