import { log } from '../../functions/http/log.js';
import { instances } from '../../functions/process-manager/deps.js';
import { orchestrator } from '../../functions/process-manager/executions/orchestrator.js';
import { reconcileExecutions } from '../../functions/process-manager/executions/reconcile.js';
import { isFinal, settle } from '../../functions/process-manager/instances/status.js';
import { forRecordTenant } from '../../functions/shared/tenant-scope.js';
import { asOperation } from './aws-usage.js';
import { repeatAfterEach } from './repeat.js';

/**
 * What the reconciler's schedule does on AWS (every five minutes): the same function, every
 * `intervalSeconds`. Locally it also ends the instances of journeys a crash lost: the engine
 * keeps executions in memory, so after a restart their executions do not exist.
 */
export function startReconciler(intervalSeconds: number): { stop(): Promise<void> } {
  return repeatAfterEach(
    intervalSeconds,
    () =>
      asOperation('reconcileExecutions', () =>
        reconcileExecutions({ instances, orchestrator }, new Date(), { maxInstances: 2000 }),
      )
        .then((run) => run.recorded && log().info('reconciled journey executions', { ...run }))
        .catch((error: Error) => log().warn('reconcile run failed', { error })),
    { now: false },
  );
}

/**
 * At start: the engine keeps executions in memory, so a journey the table still has open lost
 * its execution with the last run (a crash, a SIGKILL, a stop that could not record its end).
 * Its instance ends COMPLETED_TERMINATED now, as a clean stop ends it, rather than staying open
 * with pages answering 409 until the reconciler's first look (a quarter of an hour after its
 * creation), which could only call it COMPLETED_PROCESS_ERROR. Every open instance is on the
 * reconcile index; at start none of them has an execution.
 */
export async function endOrphanedJourneys(now: Date): Promise<number> {
  const everyone = new Date('9999-12-31T23:59:59.999Z');
  let ended = 0;
  let cursor: string | undefined;
  do {
    const page = await instances.dueForReconcile(everyone, cursor);
    cursor = page.next;
    for (const ref of page.due) {
      // Each for its own tenant, as the reconciler does.
      const done = await forRecordTenant(ref.tenantId, async () => {
        const record = await instances.get(ref.tenantId, ref.processInstanceId);
        if (!record || isFinal(record.status)) return false;
        await settle({ instances }, record, 'COMPLETED_TERMINATED', now);
        return true;
      });
      if (done) ended++;
    }
  } while (cursor !== undefined);
  if (ended) log().warn('journeys left in flight by the last run ended', { ended, status: 'COMPLETED_TERMINATED' });
  return ended;
}
