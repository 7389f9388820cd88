import { stateMachineName, type Orchestrator } from '../../functions/process-manager/orchestrator.js';
import { recordExecutionEnd } from '../../functions/process-manager/status.js';
import { instances } from '../../functions/process-manager/deps.js';
import { eventPublisher } from '../../functions/events/publisher.js';
import { log } from '../../functions/http/log.js';
import { asOperation } from './aws-usage.js';
import type { LocalStepFunctions } from './engine.js';

/**
 * The local runtime's orchestrator: state machines live in the in-process engine, which runs
 * the same ASL as Step Functions. The engine keeps nothing across restarts, so the runtime
 * publishes every stored definition again when it starts. An execution's end is reported to the
 * same function the EventBridge rule calls on AWS.
 */
export function localOrchestrator(engine: LocalStepFunctions): Orchestrator & { settle(): Promise<void> } {
  // Executions' ends still being recorded: stopping waits for them before the table goes away.
  const recording = new Set<Promise<void>>();
  return {
    async settle() {
      while (recording.size) await Promise.all([...recording]);
    },
    async publishStateMachine({ definitionId, asl }) {
      return engine.createStateMachine(stateMachineName(definitionId), asl).stateMachineArn;
    },
    async startExecution({ stateMachineArn, name, input }) {
      const { executionArn, done } = engine.startExecution(stateMachineArn, input as never, { name });
      const ref = (input as { instance: { tenantId: string; processInstanceId: string } }).instance;
      const recorded: Promise<void> = done.then(async (result) => {
        try {
          // What the EventBridge rule's execution-end function does on AWS.
          await asOperation('onExecutionEnd', () => recordExecutionEnd({ instances, publisher: eventPublisher }, ref, result, new Date()));
        } catch (err) {
          log().error('could not record an execution end', { executionArn, error: err as Error });
        } finally {
          recording.delete(recorded);
        }
      });
      recording.add(recorded);
      return { executionArn };
    },
    async sendTaskSuccess(taskToken, output) {
      engine.sendTaskSuccess(taskToken, output as never);
    },
    async sendTaskFailure(taskToken, error, cause) {
      engine.sendTaskFailure(taskToken, error, cause);
    },
  };
}
