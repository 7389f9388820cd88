import type { DeliveryRecord } from './model.js';

/** A delivery as the API shows it: the queues' bookkeeping (the sweeper's time, a claim, parking) is not part of the log. */
export function deliveryView(record: DeliveryRecord) {
  const { tenantId: _t, webhookId: _w, expiresAt: _e, createdAt: _c, updatedAt: _u, attemptsBefore: _b, sweepAt: _s, leaseUntil: _l, parkedAt: _p, beforeShards: _f, ...d } = record;
  return d;
}
