import { getConfig } from '../../functions/config.js';
import { stateMachineName, type Orchestrator } from '../../functions/process-manager/executions/orchestrator.js';
import { onExecutionStatusChange, type ExecutionStatusChangeDetail } from '../../functions/process-manager/instances/status.js';
import { instances } from '../../functions/process-manager/deps.js';
import { log } from '../../functions/http/log.js';
import { asOperation } from './aws-usage.js';
import { LocalStepFunctionsError, type ExecutionResult, type LocalStepFunctions } from './engine.js';

/** EventBridge's limit on an event (PutEvents entry), which Step Functions' events are held to. */
export const MAX_EVENT_BYTES = 256 * 1024;

/**
 * The "Step Functions Execution Status Change" event's detail as Step Functions sends it: the
 * fields its published schema lists (no error or cause), the input and output as JSON text, and
 * both left out (null) when the event would be over EventBridge's 256 KB, the output first.
 */
export function statusChangeDetail(result: ExecutionResult, stateMachineArn: string, name: string, input: unknown): ExecutionStatusChangeDetail {
  const detail = {
    executionArn: result.executionArn,
    stateMachineArn,
    name,
    status: result.status,
    startDate: result.startDate.getTime(),
    stopDate: result.stopDate.getTime(),
    input: JSON.stringify(input) as string | null,
    output: result.output === undefined ? null : (JSON.stringify(result.output) as string | null),
  };
  const size = () => Buffer.byteLength(JSON.stringify({ source: 'aws.states', 'detail-type': 'Step Functions Execution Status Change', detail }), 'utf8');
  if (size() > MAX_EVENT_BYTES) detail.output = null;
  if (size() > MAX_EVENT_BYTES) detail.input = null;
  return detail;
}

/**
 * The local runtime's orchestrator: state machines live in the in-process engine, which runs
 * the same ASL as Step Functions. The engine keeps nothing across restarts, so the runtime
 * publishes every stored definition again when it starts. An execution's end is sent, as the
 * status-change event Step Functions would send, to the same code the EventBridge rule's
 * function runs on AWS (which may ask describeExecution for what the event lacks).
 */
export function localOrchestrator(engine: LocalStepFunctions): Orchestrator & { settle(): Promise<{ failed: number }> } {
  // Executions' ends still being recorded: stopping waits for them before the table goes away.
  const recording = new Set<Promise<void>>();
  let failed = 0;
  const self: Orchestrator & { settle(): Promise<{ failed: number }> } = {
    /** Waits for every end being recorded; `failed`: how many of them could not be, since the last settle. */
    async settle() {
      while (recording.size) await Promise.all([...recording]);
      const out = { failed };
      failed = 0;
      return out;
    },
    stateMachineName(asl) {
      // Named as on AWS (by a hash of the ASL; no logging or tracing settings here), so every
      // version of every tenant that compiles alike shares one here too.
      return stateMachineName(getConfig().SERVICE_REGION, JSON.stringify(asl));
    },
    async publishStateMachine({ asl }) {
      return engine.createStateMachine(self.stateMachineName(asl), asl).stateMachineArn;
    },
    async startExecution({ stateMachineArn, name, input }) {
      const { executionArn, done } = engine.startExecution(stateMachineArn, input as never, { name });
      const recorded: Promise<void> = done.then(async (result) => {
        try {
          // What the EventBridge rule's execution-end function does on AWS.
          const detail = statusChangeDetail(result, stateMachineArn, name, input);
          await asOperation('onExecutionEnd', () =>
            onExecutionStatusChange({ instances, orchestrator: async () => self }, detail, new Date()),
          );
        } catch (err) {
          failed++;
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
    async describeExecution(executionArn) {
      try {
        const e = engine.describeExecution(executionArn);
        return {
          status: e.status,
          input: e.input,
          ...(e.output !== undefined ? { output: e.output } : {}),
          ...(e.error !== undefined ? { error: e.error } : {}),
        };
      } catch (err) {
        if (err instanceof LocalStepFunctionsError && err.name === 'ExecutionDoesNotExist') return undefined;
        throw err;
      }
    },
  };
  return self;
}
