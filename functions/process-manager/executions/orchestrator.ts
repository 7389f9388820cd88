import type { Orchestrator } from '../model.js';

export type { Orchestrator } from '../model.js';
export { stateMachineName, stateMachineNameOf, stateMachinePrefix, type StateMachineSettings } from './state-machine-names.js';

/**
 * The orchestrator the process manager and the journey use: Step Functions on AWS, made on
 * first use; the local runtime installs the local engine's at start.
 */
let installed: Orchestrator | undefined;

export function installOrchestrator(orchestrator: Orchestrator): void {
  installed = orchestrator;
}

export async function orchestrator(): Promise<Orchestrator> {
  if (!installed) {
    const { stepFunctionsOrchestrator } = await import('./step-functions.js');
    installed = stepFunctionsOrchestrator();
  }
  return installed;
}
