import type { ProcessInstanceStore } from '../model.js';

export interface BackfillReport {
  /** Instance items read. */
  scanned: number;
  /** Instances whose views and term views were written anew. */
  rewritten: number;
  /** Instances past their retention (left to TTL, with their views). */
  expired: number;
  /** Instances whose status changed under the backfill twice running: their own status write made their views. */
  raced: number;
}

/**
 * The operator's backfill (`operator backfill-views`): every stored instance of a tenant (or of
 * every tenant) gets its list views and term views as the code now derives them, for instances
 * written before term views existed (or before the terms changed). Idempotent: a rerun writes the
 * same items. A status change racing the backfill wins (the rewrite is conditional on the
 * status read; it is retried once from a fresh read).
 */
export async function backfillViews(
  store: ProcessInstanceStore,
  o: { tenantId?: string | undefined; now: Date; concurrency?: number; onPage?: (report: BackfillReport) => void },
): Promise<BackfillReport> {
  const report: BackfillReport = { scanned: 0, rewritten: 0, expired: 0, raced: 0 };
  let cursor: string | undefined;
  do {
    const page = await store.scanInstances(o.tenantId, cursor);
    cursor = page.next;
    const queue = [...page.records];
    report.scanned += queue.length;
    const worker = async () => {
      for (let record = queue.shift(); record; record = queue.shift()) {
        if (record.expiresAt * 1000 <= o.now.getTime()) {
          report.expired++;
          continue;
        }
        if (await store.rewriteViews(record)) {
          report.rewritten++;
          continue;
        }
        const fresh = await store.get(record.tenantId, record.id);
        if (fresh && (await store.rewriteViews(fresh))) report.rewritten++;
        else report.raced++;
      }
    };
    await Promise.all(Array.from({ length: o.concurrency ?? 8 }, worker));
    o.onPage?.(report);
  } while (cursor !== undefined);
  return report;
}
