/**
 * Spreading one tenant's hot key over several partition keys, and reading them back in order.
 *
 * DynamoDB serves at most 1,000 write units and 3,000 read units a second on one partition key
 * (a key whose sort key only grows, as time-ordered ones do, cannot be split for heat). The
 * service's target is 500 journeys a second for one tenant; a key that one journey writes `w`
 * units to takes 500w a second, so a key is spread over enough shards to keep each under half
 * of the limit (docs/aws.md, "Capacity model": the per-key figures; `npm run bench` section 9
 * computes them from these very key functions).
 *
 * The shard is a stable hash of what must stay in order (an event's subject, an instance): the
 * same value always lands on the same shard, in every process and every version, so the items
 * of one subject stay in one partition (and one stream shard), in the order written.
 */

/**
 * Outbox shards per tenant. A journey writes about five events, each 2 write units (written in
 * transactions, under 1 KB): 10 a journey, 5,000 a second at 500 journeys a second. Sixteen
 * shards take about 312 each (31% of a partition), so the hottest shard stays under half of
 * the limit up to about 800 journeys a second, even with the hash's unevenness; a range read
 * (a webhook's replay) queries 16 partitions, plus the one the outbox had before shards.
 */
export const OUTBOX_SHARDS = 16;

/**
 * Shards of each instance list view (T: every instance, S: by status, D: by definition name,
 * W: by search term). A journey writes each of its views three times (created, then two status
 * changes), about 1 write unit each, so a view partition every journey shares (T, D for a
 * tenant's one journey, W for a word all instances have, S for PENDING and ACTIVE at 2) takes
 * 1,500 a second at 500 journeys a second. Four shards take 375 each (38%); a list page queries
 * the four shards and the partition from before shards, and merges them by creation time.
 */
export const INSTANCE_VIEW_SHARDS = 4;

/**
 * Shards of the open-instance index (GSI2, keys only). A journey writes it twice (its creation
 * puts the instance on it, its final status takes it off), 1 write unit each: 1,000 a second at
 * 500 journeys a second, the whole partition. Four shards take 250 each (25%). The reconciler
 * reads the index by Scan, so shards cost its reader nothing.
 */
export const OPEN_INDEX_SHARDS = 4;

/**
 * Use-count shards of each process token (`TNT#t#PTUSE#{tokenId}#{nn}`, a partition each). Every
 * instance created from a token raises its use count in the creation's transaction: 2 write
 * units, 1,000 a second at 500 journeys a second from one token (a QR code), the whole of one
 * partition. Four shards, each counting a share of `maxCount` and taken at random, hold about
 * 250 each (25%). Reading the count sums the four (and what the token item counted before shards).
 */
export const PROCESS_TOKEN_USE_SHARDS = 4;

/**
 * Shards of each webhook's deliveries (`TNT#t#WHDLV#{webhookId}#{nn}`), its subject lines
 * (`WHHOLD#{webhookId}#{nn}`) and of the tenant's due index (GSI3, `WHDUE#{nn}`), by the event's
 * subject, so a subject's deliveries and its line stay in one partition. A webhook taking every
 * event gets about five deliveries a journey, each written three times (started, claimed,
 * recorded: 1 unit each), 7,500 units a second at 500 journeys a second, and two due-index
 * writes each (on, off): 5,000. Sixteen shards would leave about 520 (52%, with the hash's
 * unevenness); twenty-four hold about 340 and 230 (34%, 23%: under half up to about 700 journeys
 * a second, as the outbox). The delivery list reads the 24 and the partition from before shards
 * and merges them by event time.
 */
export const WEBHOOK_DELIVERY_SHARDS = 24;

/**
 * The shares of `maxCount` over a token's use shards: as many shards as it has uses, at most
 * `shards`, the remainder one each on the first ones (maxCount 10 over 4: 3, 3, 2, 2). Their sum
 * is exactly `maxCount`, so the token is never used more often, whichever shards are taken.
 */
export function useShares(maxCount: number, shards = PROCESS_TOKEN_USE_SHARDS): number[] {
  if (!Number.isInteger(maxCount) || maxCount < 0) throw new Error('maxCount must be a non-negative integer');
  const n = Math.max(1, Math.min(shards, maxCount));
  return Array.from({ length: n }, (_, i) => Math.floor(maxCount / n) + (i < maxCount % n ? 1 : 0));
}

/**
 * The shard of `value` among `count`: 32-bit FNV-1a over its UTF-8 bytes. Stable (no seed, no
 * platform dependence) and spreads ids that differ in any character; it is not a security
 * boundary (a caller who could choose ids could crowd a shard, which costs it throttling only).
 */
export function shardOf(value: string, count: number): number {
  if (!Number.isInteger(count) || count < 1) throw new Error('a shard count must be a positive integer');
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(value, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % count;
}

/** A shard number as it goes into a key: two digits, so shards list in order. */
export function shardLabel(shard: number): string {
  if (!Number.isInteger(shard) || shard < 0 || shard > 99) throw new Error('invalid shard for a key');
  return String(shard).padStart(2, '0');
}

/** One partition's items in key order, a page at a time. */
export interface OrderedSource<T> {
  /** The next page after what was read (at least one item, unless `done`). */
  next(): Promise<{ items: T[]; done: boolean }>;
}

/**
 * Several sources, each already in order, read as one order by `position` (ascending, or
 * descending with `descending`). Each source is read a page at a time, and only when its next
 * item is needed to decide the order, so what `take` returns is exact (the next items of the
 * union) and no more than one page per source is read past it. The reader keeps its place: a
 * second `take` goes on after the first. `more`: an item follows the last one returned.
 */
export function orderedMerge<T>(sources: readonly OrderedSource<T>[], position: (item: T) => string, descending = false) {
  const buffers: T[][] = sources.map(() => []);
  const done = sources.map(() => false);
  const fill = async (i: number) => {
    while (!buffers[i]!.length && !done[i]) {
      const page = await sources[i]!.next();
      buffers[i]!.push(...page.items);
      done[i] = page.done;
    }
  };
  return {
    async take(limit: number): Promise<{ items: T[]; more: boolean }> {
      await Promise.all(sources.map((_, i) => fill(i)));
      const out: T[] = [];
      for (;;) {
        let best = -1;
        for (let i = 0; i < sources.length; i++) {
          const head = buffers[i]![0];
          if (head === undefined) continue;
          if (best < 0) best = i;
          else {
            const a = position(head);
            const b = position(buffers[best]![0]!);
            if (descending ? a > b : a < b) best = i;
          }
        }
        if (best < 0) return { items: out, more: false };
        if (out.length >= limit) return { items: out, more: true };
        out.push(buffers[best]!.shift()!);
        await fill(best);
      }
    },
  };
}
