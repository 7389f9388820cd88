import { eventPublisher } from '../../functions/events/publisher.js';
import { log } from '../../functions/http/log.js';
import { instances } from '../../functions/process-manager/deps.js';
import { orchestrator } from '../../functions/process-manager/orchestrator.js';
import { reconcileExecutions } from '../../functions/process-manager/reconcile.js';
import { asOperation } from './aws-usage.js';

/**
 * What the reconciler's schedule does on AWS (every five minutes): the same function, every
 * `intervalSeconds`. Locally it also ends the instances of journeys a crash lost: the engine
 * keeps executions in memory, so after a restart their executions do not exist.
 */
export function startReconciler(intervalSeconds: number): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    running = running
      .then(() =>
        asOperation('reconcileExecutions', () =>
          reconcileExecutions({ instances, publisher: eventPublisher, orchestrator }, new Date(), { maxInstances: 2000 }),
        ),
      )
      .then((run) => run.recorded && log().info('reconciled journey executions', { ...run }))
      .catch((error: Error) => log().warn('reconcile run failed', { error }));
  };
  const timer = setInterval(tick, intervalSeconds * 1000);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
