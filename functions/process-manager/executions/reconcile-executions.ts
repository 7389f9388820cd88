import { log } from '../../http/log.js';
import { instances } from '../deps.js';
import { orchestrator } from './orchestrator.js';
import { reconcileExecutions } from './reconcile.js';

/** Room left at the end of a run for the checks under way (the function's timeout is a few minutes). */
const SAFETY_MS = 30_000;

/**
 * The scheduled reconciler (an EventBridge schedule, every few minutes): records the final
 * status of instances whose execution ended unrecorded (see reconcile.ts).
 */
export async function handler(_event: unknown, context?: { getRemainingTimeInMillis?: () => number }): Promise<void> {
  const remaining = context?.getRemainingTimeInMillis?.();
  const run = await reconcileExecutions({ instances, orchestrator }, new Date(), {
    maxInstances: 2000,
    ...(remaining !== undefined ? { deadline: Date.now() + remaining - SAFETY_MS } : {}),
  });
  log().info('reconciled journey executions', { ...run });
}
