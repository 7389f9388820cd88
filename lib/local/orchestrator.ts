import { stateMachineName, type Orchestrator } from '../../functions/process-manager/orchestrator.js';
import { LocalStepFunctions } from './engine.js';

/**
 * The local runtime's orchestrator: state machines live in the in-process engine, which runs
 * the same ASL as Step Functions. The engine keeps nothing across restarts, so the runtime
 * publishes every stored definition again when it starts.
 */
export function localOrchestrator(engine: LocalStepFunctions): Orchestrator {
  return {
    async publishStateMachine({ definitionId, asl }) {
      return engine.createStateMachine(stateMachineName(definitionId), asl).stateMachineArn;
    },
  };
}
