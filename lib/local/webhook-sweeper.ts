import { log } from '../../functions/observability/logger.js';
import { webhookSweepMarginSeconds } from '../../functions/config.js';
import { deliveries, holds, queue } from '../../functions/webhooks/deps.js';
import { sweepDeliveries } from '../../functions/webhooks/sweep.js';
import { asOperation } from './aws-usage.js';
import { repeatAfterEach } from './repeat.js';

/**
 * What the webhook sweeper's schedule does on AWS (functions/webhooks/sweep-deliveries.ts, every
 * five minutes): the same function, every `intervalSeconds`, first after one interval.
 */
export function startDeliverySweeper(intervalSeconds: number): { stop(): Promise<void> } {
  return repeatAfterEach(
    intervalSeconds,
    () =>
      asOperation('sweepWebhookDeliveries', () =>
        sweepDeliveries({ deliveries, holds, queue, sweepMarginSeconds: webhookSweepMarginSeconds() }, new Date(), { maxDeliveries: 5000 }),
      )
        .then((run) => run.requeued && log().info('swept webhook deliveries', { ...run }))
        .catch((error: Error) => log().warn('webhook sweep failed', { error })),
    { now: false },
  );
}
