import { log } from '../observability/logger.js';
import { webhookSweepMarginSeconds } from '../config.js';
import { deliveries, holds, queue } from './deps.js';
import { sweepDeliveries } from './sweep.js';

/** Room left at the end of a run for the delivery under way. */
const SAFETY_MS = 20_000;

/**
 * The scheduled webhook sweeper (an EventBridge schedule, every five minutes): queues again the
 * PENDING deliveries whose message was lost (see sweep.ts).
 */
export async function handler(_event: unknown, context?: { getRemainingTimeInMillis?: () => number }): Promise<void> {
  const remaining = context?.getRemainingTimeInMillis?.();
  const run = await sweepDeliveries({ deliveries, holds, queue, sweepMarginSeconds: webhookSweepMarginSeconds() }, new Date(), {
    maxDeliveries: 5000,
    ...(remaining !== undefined ? { deadline: Date.now() + remaining - SAFETY_MS } : {}),
  });
  if (run.requeued || run.more) log().info('swept webhook deliveries', { ...run });
}
