import { getConfig } from '../../config.js';
import { apiError, ServiceUnavailableError } from '../../errors.js';
import { compileDefinition, executionKeep, type AslStateMachine } from '../../../statemachines/compile.js';
import type { ProcessDefinition } from '../../../statemachines/definition.js';
import { STATE_MACHINE_CLAIM_STALE_MS, type DefinitionWriteOutcome, type Orchestrator, type StateMachineRefStore, type StateMachineUse } from '../model.js';

/**
 * Step Functions refuses a state machine definition over 1 MB (CreateStateMachine's
 * `definition`, at most 1,048,576 characters); counted here in UTF-8 bytes, which is never less.
 */
export const MAX_ASL_BYTES = 1024 * 1024;


/** Activations that meet the janitor's claim again and again give up (503) after this many tries. */
const MAX_TRIES = 3;

export class StateMachineTooLargeError extends apiError('STATE_MACHINE_TOO_LARGE') {
  constructor(bytes: number) {
    super(
      `The definition compiles to a state machine of ${bytes} bytes; Step Functions takes at most ${MAX_ASL_BYTES}. ` +
        'Split the journey, or shorten long input values and names.',
    );
  }
}

/** A definition compiled for this deployment's functions, refused when Step Functions would refuse it. */
export function compileForDeployment(definition: ProcessDefinition): AslStateMachine {
  const { ACTIVITY_FUNCTION_ARN, EXECUTION_END_FUNCTION_ARN } = getConfig();
  const asl = compileDefinition(definition, { activityFunctionArn: ACTIVITY_FUNCTION_ARN, executionEndFunctionArn: EXECUTION_END_FUNCTION_ARN });
  const bytes = Buffer.byteLength(JSON.stringify(asl), 'utf8');
  if (bytes > MAX_ASL_BYTES) throw new StateMachineTooLargeError(bytes);
  return asl;
}

export interface StateMachineDeps {
  orchestrator: () => Promise<Orchestrator>;
  stateMachines: Pick<StateMachineRefStore, 'get'>;
}

/**
 * A version becomes DEPLOYED_ACTIVE on the state machine of `asl`: the state machine is made (or
 * found: every version of every tenant that compiles alike shares one, named by the ASL's hash),
 * then `write` records the version's change together with the raise of the state machine's count
 * of users, over the reference item's generation read before the state machine was made. When the
 * janitor claimed it in between (it may have deleted it), everything is done again, so a version
 * never becomes active on a state machine that is gone. A claim under way answers 503 (Retry-After:
 * the deletion takes moments; the same request then makes the state machine anew).
 */
export async function withStateMachine(
  d: StateMachineDeps,
  asl: AslStateMachine,
  now: Date,
  write: (use: StateMachineUse) => Promise<DefinitionWriteOutcome>,
): Promise<Exclude<DefinitionWriteOutcome, { outcome: 'stateMachineClaimed' }>> {
  const orchestrator = await d.orchestrator();
  const name = orchestrator.stateMachineName(asl);
  const staleClaimBefore = new Date(now.getTime() - STATE_MACHINE_CLAIM_STALE_MS).toISOString();
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const ref = await d.stateMachines.get(name);
    if (ref?.deletingSince && ref.deletingSince >= staleClaimBefore) break;
    const arn = await orchestrator.publishStateMachine({ asl });
    const outcome = await write({ name, arn, sessionKeep: executionKeep(asl.States), generation: ref?.generation ?? 0, staleClaimBefore });
    if (outcome.outcome !== 'stateMachineClaimed') return outcome;
  }
  throw new ServiceUnavailableError('The state machine of this journey is being deleted as unused; send the same request again in a moment.');
}
