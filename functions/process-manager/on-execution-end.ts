import { eventPublisher } from '../events/publisher.js';
import { instances } from './deps.js';
import { recordExecutionEnd } from './status.js';
import { log } from '../http/log.js';

/** The EventBridge "Step Functions Execution Status Change" event, as much of it as is read here. */
interface ExecutionStatusChange {
  detail: { status: string; input?: string | null; output?: string | null; error?: string | null };
}

/**
 * Records the end of a journey on its instance: an EventBridge rule sends every terminal status
 * of this stack's state machines here (the local engine calls recordExecutionEnd directly).
 */
export async function handler(event: ExecutionStatusChange): Promise<void> {
  const { status, input, output, error } = event.detail;
  if (status === 'RUNNING') return;
  const session = JSON.parse(input ?? '{}') as { instance?: { tenantId: string; processInstanceId: string } };
  if (!session.instance) {
    log().warn('execution end without an instance in its input', { status });
    return;
  }
  await recordExecutionEnd(
    { instances, publisher: eventPublisher },
    session.instance,
    { status, ...(output ? { output: JSON.parse(output) } : {}), ...(error ? { error } : {}) },
    new Date(),
  );
}
