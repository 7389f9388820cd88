import { instances } from '../deps.js';
import { orchestrator } from './orchestrator.js';
import { onExecutionStatusChange, recordOutcome, type ExecutionEndDeps, type ExecutionStatusChangeDetail } from '../instances/status.js';

/** The EventBridge "Step Functions Execution Status Change" event (its `detail` is read). */
interface ExecutionStatusChange {
  source: 'aws.states';
  'detail-type': 'Step Functions Execution Status Change';
  detail: ExecutionStatusChangeDetail;
}

/** What the last state of every compiled state machine (`Record outcome`) sends. */
interface OutcomeToRecord {
  session: unknown;
}

const deps: ExecutionEndDeps = { instances, orchestrator };

/**
 * Records the end of a journey on its instance. Invoked two ways: by the journey's own last
 * state with its session (the authoritative record of the outcome), and by an EventBridge rule
 * for every terminal status of this stack's state machines (the fallback, for the executions
 * that ended without reaching that state: failures, timeouts, stops, and a record that failed).
 */
export async function handler(event: ExecutionStatusChange | OutcomeToRecord): Promise<void> {
  if ('detail' in event) {
    await onExecutionStatusChange(deps, event.detail, new Date());
    return;
  }
  await recordOutcome(deps, event.session, new Date());
}
