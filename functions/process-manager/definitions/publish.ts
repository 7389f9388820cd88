import { unrunnableDefinitionPatterns } from '../forms/form-patterns.js';
import { getConfig } from '../../config.js';
import { apiError, ValidationError, type ErrorDetail } from '../../errors.js';
import { validateDefinition } from '../../../statemachines/validate.js';
import { compileDefinition, executionKeep, type AslStateMachine } from '../../../statemachines/compile.js';
import { parseBpmn } from '../../../statemachines/bpmn/parse.js';
import { bpmnToDefinition } from '../../../statemachines/bpmn/to-definition.js';
import type { ProcessDefinition } from '../../../statemachines/definition.js';
import { DefinitionExistsError, newDefinitionRecord, NO_UPLOAD_FIELDS, type UploadFields, type ProcessDefinitionRecord } from './definitions.js';
import { bpmnText, decodeBpmnData, InvalidBpmnError, locateOnBpmn, notRunnableActivities, notRunnableTasks, problemDetail } from './bpmn-upload.js';
import type { BpmnUpload } from './definition-schemas.js';
import type { CustomDataFormStore, DefinitionFormat, DefinitionStore, Orchestrator } from '../model.js';
import { missingFormReferences } from '../forms/form-references.js';

/**
 * Step Functions refuses a state machine definition over 1 MB (CreateStateMachine's
 * `definition`, at most 1,048,576 characters); counted here in UTF-8 bytes, which is never less.
 */
export const MAX_ASL_BYTES = 1024 * 1024;

/** The highest version a definition can have: compiling with it sizes the ASL of any version. */
const LONGEST_VERSION = 1_000_000;

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

type Deps = {
  definitions: DefinitionStore;
  orchestrator: () => Promise<Orchestrator>;
  /** Where the data forms a definition names by name and version are checked to exist. */
  forms: Pick<CustomDataFormStore, 'get' | 'getVersion'>;
};
type Ctx = { tenantId: string; actor: string; now: Date };

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
  const missing = await missingFormReferences(d.forms, ctx.tenantId, definition.activities);
  if (missing.length > 0) throw onBody('The process definition names data forms this tenant does not have.', missing);
  const patterns = await unrunnableDefinitionPatterns(definition.activities);
  if (patterns.length > 0) throw onBody('The process definition has data form patterns this service cannot run.', patterns);
  if (await d.definitions.getByNameVersion(ctx.tenantId, definition.name, definition.version)) {
    throw new DefinitionExistsError(definition.name, definition.version);
  }
  return deploy(d, definition, { format: 'JSON', fields: NO_UPLOAD_FIELDS }, undefined, ctx);
}

function onBody(message: string, details: ErrorDetail[]): ValidationError {
  return new ValidationError(message, details.map((x) => ({ ...x, location: `body.${x.location}` })));
}

/**
 * Publishes the family's upload: the BPMN file decoded (strictly), parsed, converted to a
 * definition and validated like the JSON format; any problem refuses the whole file with every
 * problem found at its element. Only then is the name's next version taken, so a refused file
 * uses no version number. The version is created DRAFT, and the file is kept byte for byte.
 */
export async function publishBpmnUpload(d: Deps, upload: BpmnUpload, ctx: Ctx): Promise<Published> {
  const bytes = decodeBpmnData(upload.resources.bpmn.data);
  const graph = await parseBpmn(bpmnText(bytes));
  // Every problem at once, whichever stage finds it: the conversion reports the parse's problems
  // with its own, and a graph that converts is validated too.
  const meta = { name: upload.name, version: LONGEST_VERSION, ...(upload.description ? { description: upload.description } : {}) };
  const converted = graph.process ? bpmnToDefinition(graph, meta) : { problems: [...graph.problems] };
  const problems = [...('problems' in converted ? converted.problems.map(problemDetail) : []), ...notRunnableTasks(graph)];
  let definition: ProcessDefinition | undefined;
  if ('definition' in converted) {
    try {
      definition = validateDefinition(converted.definition);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      problems.push(...(err.details ?? []).map((x) => locateOnBpmn(x, converted.definition, graph)));
    }
  }
  if (definition && problems.length === 0 && 'definition' in converted) {
    const missing = await missingFormReferences(d.forms, ctx.tenantId, definition.activities);
    problems.push(...missing.map((x) => locateOnBpmn(x, converted.definition, graph)));
    const patterns = await unrunnableDefinitionPatterns(definition.activities);
    problems.push(...patterns.map((x) => locateOnBpmn(x, converted.definition, graph)));
  }
  if (problems.length > 0 || !definition) throw new InvalidBpmnError(problems);
  // Sized with the longest version number before one is taken: a definition refused for its size uses none.
  compileChecked(definition);

  const version = await d.definitions.allocateVersion(ctx.tenantId, upload.name);
  const fields: UploadFields = {
    serverType: upload.serverType ?? null,
    processDefinitionType: upload.processDefinitionType ?? null,
    attributes: upload.attributes ?? null,
    themeId: upload.themeId ?? null,
  };
  return deploy(d, { ...definition, version }, { format: 'BPMN', fields }, bytes, ctx);
}

function compileChecked(definition: ProcessDefinition): AslStateMachine {
  const { ACTIVITY_FUNCTION_ARN, EXECUTION_END_FUNCTION_ARN } = getConfig();
  const asl = compileDefinition(definition, { activityFunctionArn: ACTIVITY_FUNCTION_ARN, executionEndFunctionArn: EXECUTION_END_FUNCTION_ARN });
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
  // What an instance's execution starts with besides the reference to its stored session.
  const record = { ...draft, stateMachineArn, sessionKeep: executionKeep(asl.States) };
  // A concurrent publication of the same version can still win the race: the lock item decides.
  if (!(await d.definitions.create(record, { definition, ...(bpmn ? { bpmn } : {}) }))) {
    throw new DefinitionExistsError(definition.name, definition.version);
  }
  return { record, definition };
}
