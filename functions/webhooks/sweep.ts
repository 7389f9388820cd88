/**
 * The net under webhook deliveries: finds PENDING deliveries that nothing will move on (their
 * queue message lost: a send that failed after the delivery was written, a message the dead-letter
 * queue took, the local queues' memory lost in a crash, a release from parking that died half
 * way) and queues them again on the retry lane.
 *
 * What it reads: the due index (GSI3, functions/store/schema.ts), where each PENDING delivery is
 * listed by `sweepAt`, its due time (created, next attempt, parked) plus the margin
 * (WEBHOOK_SWEEP_MARGIN_SECONDS, 20 minutes: above the retry queue's 15-minute hops). Sparse and
 * keys only: a delivery leaves it when it settles, so a run reads the keys of PENDING deliveries,
 * never the table, and takes only those whose `sweepAt` has passed.
 *
 * Idempotent: each delivery it takes is first claimed by moving its `sweepAt` on, in one
 * conditional write over the value read, so two sweeps (a duplicate scheduled event) queue it
 * once; and the message it queues may make only the attempt the delivery is at (`attempt`), so a
 * late original, or the message it thought lost, makes no second attempt (deliver.ts). A
 * delivered delivery is off the index, and one that settles after the read is PENDING no more
 * when read: neither is sent again. At least once, as ever: an attempt whose worker died after
 * sending, before recording, is made again.
 */
import type { DeliveryHolds, DeliveryKey, DeliveryQueue, DeliveryStore } from './model.js';
import { retryMessage } from './deliver.js';
import { forRecordTenant } from '../shared/tenant-scope.js';
import { log } from '../observability/logger.js';

export interface SweepDeps {
  deliveries: Pick<DeliveryStore, 'dueForSweep' | 'get' | 'reschedule'>;
  holds: Pick<DeliveryHolds, 'first' | 'unpark'>;
  queue: Pick<DeliveryQueue, 'retry'>;
  sweepMarginSeconds: number;
}

export interface SweepRun {
  /** Due-index entries read. */
  looked: number;
  /** Deliveries queued again. */
  requeued: number;
  /** Parked deliveries whose holder is still there: looked at again after the margin. */
  stillParked: number;
  /** A page was left for the next run (the run's budget or deadline). */
  more: boolean;
  /** Entries naming no tenant: not handled (never unscoped). */
  failed?: number;
}

/** Sweeps what is due at `now`, at most `maxDeliveries`, stopping at `deadline` (a run's time). */
export async function sweepDeliveries(d: SweepDeps, now: Date, opts: { maxDeliveries: number; deadline?: number }): Promise<SweepRun> {
  const run: SweepRun = { looked: 0, requeued: 0, stillParked: 0, more: false };
  let cursor: string | undefined;
  do {
    const page = await d.deliveries.dueForSweep(now, cursor);
    cursor = page.next;
    for (const key of page.due) {
      if (run.looked >= opts.maxDeliveries || (opts.deadline !== undefined && Date.now() > opts.deadline)) return { ...run, more: true };
      run.looked++;
      // For the delivery's tenant, named by its key on the due index (the service's own key):
      // on AWS through the function's tenant role; the index Scan stays on its own.
      if (!key.tenantId) {
        log().error('a due delivery names no tenant: not swept', { webhookId: key.webhookId, eventId: key.eventId });
        run.failed = (run.failed ?? 0) + 1;
        continue;
      }
      const outcome = await forRecordTenant(key.tenantId, () => sweepOne(d, key, now));
      if (outcome === 'requeued') run.requeued++;
      if (outcome === 'parked') run.stillParked++;
    }
  } while (cursor !== undefined);
  return run;
}

async function sweepOne(d: SweepDeps, key: DeliveryKey, now: Date): Promise<'requeued' | 'parked' | 'skipped'> {
  // Where the due index saw it (a shard, or the partition from before shards).
  const delivery = await d.deliveries.get(key.tenantId, key.webhookId, key.eventTimestamp, key.eventId, key.location ?? { shard: 'beforeShards' });
  // Settled since the index was read (it lags the table a little), or not due after all.
  if (!delivery || delivery.status !== 'PENDING' || !delivery.sweepAt || Date.parse(delivery.sweepAt) > now.getTime()) return 'skipped';
  // A worker is at it right now.
  if (delivery.leaseUntil && Date.parse(delivery.leaseUntil) > now.getTime()) return 'skipped';
  // This sweep's claim: another sweep that read the same entry finds it moved on.
  const nextLook = new Date(now.getTime() + d.sweepMarginSeconds * 1000).toISOString();
  if (!(await d.deliveries.reschedule(delivery, delivery.sweepAt, nextLook))) return 'skipped';
  if (delivery.parkedAt) {
    const first = await d.holds.first(delivery.tenantId, delivery.webhookId, delivery.subjectId);
    // Its holder is still in line (waiting for a retry of its own): it goes on waiting.
    if (first && (first.eventTimestamp !== delivery.eventTimestamp || first.eventId !== delivery.eventId)) return 'parked';
    // First in line, yet parked: its holder settled without letting it go (or let it go and its
    // message was lost). Now it holds the line; a copy of a message it still has makes no second attempt.
    if (first?.parked) await d.holds.unpark({ ...delivery, ...first });
  }
  await d.queue.retry(retryMessage(delivery, delivery.attempts.length), 0);
  return 'requeued';
}
