import { getConfig } from '../config.js';
import { apiError, ValidationError, type ErrorDetail } from '../errors.js';
import { validateDefinition } from '../../statemachines/validate.js';
import { compileDefinition } from '../../statemachines/compile.js';
import type { ProcessDefinition } from '../../statemachines/definition.js';
import { DefinitionExistsError, newDefinitionRecord, NO_UPLOAD_FIELDS, type UploadFields, type ProcessDefinitionRecord } from './definitions.js';
import { notRunnableActivities } from './bpmn-upload.js';
import type { DefinitionFormat, DefinitionStore, Orchestrator } from './model.js';

/**
 * Step Functions refuses a state machine definition over 1 MB (CreateStateMachine's
 * `definition`, at most 1,048,576 characters); counted here in UTF-8 bytes, which is never less.
 */
export const MAX_ASL_BYTES = 1024 * 1024;

export class StateMachineTooLargeError extends apiError('STATE_MACHINE_TOO_LARGE') {
  constructor(bytes: number) {
    super(
      `The definition compiles to a state machine of ${bytes} bytes; Step Functions takes at most ${MAX_ASL_BYTES}. ` +
        'Split the journey, or shorten long input values and names.',
    );
  }
}

/** What was published: the stored version and its definition (defaults applied). */
export interface Published {
  record: ProcessDefinitionRecord;
  definition: ProcessDefinition;
}

type Deps = { definitions: DefinitionStore; orchestrator: () => Promise<Orchestrator> };
type Ctx = { tenantId: string; principal: string; now: Date };

/**
 * Publishes one version of a definition in the service's JSON format: checked against the
 * activity catalogue (a 400 names the activity and the input), compiled to ASL, given its own
 * state machine, then stored, active at once. The API and the local runtime's bootstrap both
 * publish through here.
 */
export async function publishDefinition(d: Deps, input: unknown, ctx: Ctx): Promise<Published> {
  const notRunnable = notRunnableActivities(input);
  let definition: ProcessDefinition;
  try {
    definition = validateDefinition(input);
  } catch (err) {
    // The catalogue names places inside the definition; on the wire they are in the body.
    if (err instanceof ValidationError) throw onBody(err.message, [...(err.details ?? []), ...notRunnable]);
    throw err;
  }
  if (notRunnable.length > 0) throw onBody('The process definition names activities this deployment cannot run.', notRunnable);
  if (await d.definitions.getByNameVersion(ctx.tenantId, definition.name, definition.version)) {
    throw new DefinitionExistsError(definition.name, definition.version);
  }
  return deploy(d, definition, { format: 'JSON', fields: NO_UPLOAD_FIELDS }, undefined, ctx);
}

function onBody(message: string, details: ErrorDetail[]): ValidationError {
  return new ValidationError(message, details.map((x) => ({ ...x, location: `body.${x.location}` })));
}

function compileChecked(definition: ProcessDefinition): object {
  const asl = compileDefinition(definition, { activityFunctionArn: getConfig().ACTIVITY_FUNCTION_ARN });
  const bytes = Buffer.byteLength(JSON.stringify(asl), 'utf8');
  if (bytes > MAX_ASL_BYTES) throw new StateMachineTooLargeError(bytes);
  return asl;
}

async function deploy(
  d: Deps,
  definition: ProcessDefinition,
  published: { format: DefinitionFormat; fields: UploadFields },
  bpmn: Buffer | undefined,
  ctx: Ctx,
): Promise<Published> {
  const draft = newDefinitionRecord(definition, published, ctx);
  const asl = compileChecked(definition);
  const stateMachineArn = await (await d.orchestrator()).publishStateMachine({
    tenantId: ctx.tenantId,
    definitionId: draft.id,
    name: draft.name,
    version: draft.version,
    asl,
  });
  const record = { ...draft, stateMachineArn };
  // A concurrent publication of the same version can still win the race: the lock item decides.
  if (!(await d.definitions.create(record, { definition, ...(bpmn ? { bpmn } : {}) }))) {
    throw new DefinitionExistsError(definition.name, definition.version);
  }
  return { record, definition };
}
