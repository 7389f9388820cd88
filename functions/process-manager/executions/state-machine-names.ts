/** How the state machines of a deployment are named (by what they are); read by the stack and both orchestrators. */
import { createHash } from 'node:crypto';
import { deploymentPrefix, type ServiceRegion } from '../../config.js';

/**
 * The start of every state machine name of a region's deployment (`arthr-fir-`): what the
 * stack's IAM grants and its execution-end rule match, so deployments of several regions in one
 * account never touch each other's journeys.
 */
export function stateMachinePrefix(region: ServiceRegion): string {
  return `${deploymentPrefix(region)}-`;
}

/**
 * What, besides the ASL, makes a state machine what it is: CreateStateMachine answers with the
 * existing one only when name, type, definition, logging and tracing all match (tags and role
 * may differ), so all of them go into the name's hash.
 */
export interface StateMachineSettings {
  loggingConfiguration?: object;
  tracingConfiguration?: object;
}

/**
 * A state machine's name: the region's prefix and 128 bits of SHA-256 over what runs: the
 * definition as sent (the ASL's JSON text, which carries nothing of a tenant, a definition's name
 * or its version: statemachines/compile.ts) and its settings. So every version of every tenant
 * that compiles to the same ASL runs on one state machine, and Step Functions' quota of state
 * machines per account (10,000 by default) is spent on distinct journeys only. A state machine
 * therefore belongs to no tenant: each execution's input names its tenant (`_ref.tenantId`), and
 * which versions use a state machine is counted on its reference item (functions/store/state-machine-refs.ts).
 */
export function stateMachineName(region: ServiceRegion, definition: string, settings: StateMachineSettings = {}): string {
  const hash = createHash('sha256')
    .update(JSON.stringify(['STANDARD', definition, settings.loggingConfiguration ?? null, settings.tracingConfiguration ?? null]))
    .digest('hex')
    .slice(0, 32);
  return `${stateMachinePrefix(region)}${hash}`;
}

/** The name at the end of a state machine ARN (`arn:aws:states:...:stateMachine:<name>`). */
export function stateMachineNameOf(arn: string): string {
  return arn.slice(arn.lastIndexOf(':') + 1);
}
