/**
 * The seam between the API and whatever runs journeys: Step Functions on AWS, the local engine
 * (aws-local-stepfunctions) on one machine. The local runtime installs its implementation at
 * start; in Lambda the Step Functions one is made on first use.
 */
export interface Orchestrator {
  /** Creates (or finds, if identical) the state machine of one definition version. */
  publishStateMachine(input: { tenantId: string; definitionId: string; name: string; version: number; asl: object }): Promise<string>;
  /** Starts a journey; the execution is named after the instance, so a retry cannot start two. */
  startExecution(input: { stateMachineArn: string; name: string; input: object }): Promise<{ executionArn: string }>;
  /** Resumes a journey waiting at a user step with the step's output. */
  sendTaskSuccess(taskToken: string, output: object): Promise<void>;
}

/** Every definition version's state machine is named after the version's id. */
export function stateMachineName(definitionId: string): string {
  return `arthr-${definitionId}`;
}

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
