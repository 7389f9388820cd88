import { getConfig } from '../config.js';
import { ValidationError } from '../errors.js';
import { validateDefinition } from '../../statemachines/validate.js';
import { compileDefinition } from '../../statemachines/compile.js';
import { DefinitionExistsError, newDefinitionRecord, type ProcessDefinitionRecord } from './definitions.js';
import type { DefinitionStore, Orchestrator } from './model.js';

/**
 * Publishes one version of a definition: checked against the activity catalogue (a 400 names
 * the activity and the input), compiled to ASL, given its own state machine, then stored.
 * The API and the local runtime's bootstrap both publish through here.
 */
export async function publishDefinition(
  d: { definitions: DefinitionStore; orchestrator: () => Promise<Orchestrator> },
  input: unknown,
  ctx: { tenantId: string; principal: string; now: Date },
): Promise<ProcessDefinitionRecord> {
  let definition;
  try {
    definition = validateDefinition(input);
  } catch (err) {
    // The catalogue names places inside the definition; on the wire they are in the body.
    if (err instanceof ValidationError) {
      throw new ValidationError(err.message, err.details?.map((d) => ({ ...d, location: `body.${d.location}` })));
    }
    throw err;
  }
  if (await d.definitions.getByNameVersion(ctx.tenantId, definition.name, definition.version)) {
    throw new DefinitionExistsError(definition.name, definition.version);
  }
  const draft = newDefinitionRecord(definition, ctx);
  const asl = compileDefinition(definition, { activityFunctionArn: getConfig().ACTIVITY_FUNCTION_ARN });
  const stateMachineArn = await (await d.orchestrator()).publishStateMachine({
    tenantId: ctx.tenantId,
    definitionId: draft.id,
    name: draft.name,
    version: draft.version,
    asl,
  });
  const record = { ...draft, stateMachineArn };
  // A concurrent publication of the same version can still win the race: the lock item decides.
  if (!(await d.definitions.create(record))) throw new DefinitionExistsError(definition.name, definition.version);
  return record;
}
