import { unrunnableDefinitionPatterns } from '../forms/form-patterns.js';
import { ValidationError, type ErrorDetail } from '../../errors.js';
import { problemsMessage, validateDefinition } from '../../../statemachines/validate.js';
import { parseBpmn } from '../../../statemachines/bpmn/parse.js';
import { bpmnToDefinition } from '../../../statemachines/bpmn/to-definition.js';
import type { ProcessDefinition } from '../../../statemachines/definition.js';
import { DefinitionExistsError, newDefinitionRecord, NO_UPLOAD_FIELDS, type UploadFields, type ProcessDefinitionRecord } from './definitions.js';
import { bpmnText, decodeBpmnData, InvalidBpmnError, locateOnBpmn, notRunnableActivities, notRunnableTasks, problemDetail } from './bpmn-upload.js';
import type { BpmnUpload } from './definition-schemas.js';
import type { CreateStatus, CustomDataFormStore, DefinitionFormat, DefinitionStore } from '../model.js';
import { compileForDeployment, withStateMachine, type StateMachineDeps } from './state-machines.js';
import { missingFormReferences } from '../forms/form-references.js';
import { checkThemeReference } from '../../theme-server/theme-references.js';
import type { ThemeStore } from '../../theme-server/model.js';
import { unavailableFaceLiveness } from '../../faces/liveness-service.js';

export { MAX_ASL_BYTES, StateMachineTooLargeError } from './state-machines.js';

/** The version a BPMN upload is checked with before it takes its own: nothing it compiles to depends on it. */
const UNNUMBERED = 1;

/** What was published: the stored version and its definition (defaults applied). */
export interface Published {
  record: ProcessDefinitionRecord;
  definition: ProcessDefinition;
}

type Deps = StateMachineDeps & {
  definitions: DefinitionStore;
  /** Where the data forms a definition names by name and version are checked to exist. */
  forms: Pick<CustomDataFormStore, 'get' | 'getVersion' | 'latestVersion'>;
  /** Where a `themeId` is checked to name a theme of the tenant (400 UNKNOWN_THEME otherwise). */
  themes: Pick<ThemeStore, 'get'>;
};
type Ctx = { tenantId: string; actor: string; now: Date };

/** What a version carries beside its definition, given on create in the JSON format. */
export interface JsonVersionFields {
  themeId?: string | null | undefined;
  /** Default DEPLOYED_ACTIVE; a draft (DRAFT, EDITABLE) or DEPLOYED_INACTIVE gets no state machine until activated. */
  status?: CreateStatus | null | undefined;
}

/**
 * Publishes one version of a definition in the service's JSON format: checked against the
 * activity catalogue (a 400 names the activity and the input), compiled to ASL, then stored,
 * active at once (unless `version.status` names another status), on the state machine of its ASL
 * (made, or shared with every version of every tenant that compiles alike). The API and the local
 * runtime's bootstrap both publish through here.
 */
export async function publishDefinition(d: Deps, input: unknown, ctx: Ctx, version: JsonVersionFields = {}): Promise<Published> {
  const notRunnable = notRunnableActivities(input);
  let definition: ProcessDefinition;
  try {
    definition = validateDefinition(input);
  } catch (err) {
    // The catalogue names places inside the definition; on the wire they are in the body. The
    // activities that cannot run join its problems, and the message counts them all.
    if (err instanceof ValidationError) {
      const details = [...(err.details ?? []), ...notRunnable];
      throw onBody(notRunnable.length ? problemsMessage('The process definition is not valid.', details) : err.message, details);
    }
    throw err;
  }
  if (notRunnable.length > 0) throw onBody('The process definition names activities this deployment cannot run.', notRunnable);
  const missing = await missingFormReferences(d.forms, ctx.tenantId, definition.activities);
  if (missing.length > 0) throw onBody('The process definition names data forms this tenant does not have.', missing);
  const patterns = await unrunnableDefinitionPatterns(definition.activities);
  if (patterns.length > 0) throw onBody('The process definition has data form patterns this service cannot run.', patterns);
  const liveness = unavailableFaceLiveness(definition.activities);
  if (liveness.length > 0) throw onBody('The process definition asks for a service this deployment does not have.', liveness);
  await checkThemeReference(d.themes, ctx.tenantId, version.themeId);
  if (await d.definitions.getByNameVersion(ctx.tenantId, definition.name, definition.version)) {
    throw new DefinitionExistsError(definition.name, definition.version);
  }
  return deploy(d, definition, { format: 'JSON', fields: { ...NO_UPLOAD_FIELDS, themeId: version.themeId ?? null }, status: version.status }, undefined, ctx);
}

function onBody(message: string, details: ErrorDetail[]): ValidationError {
  return new ValidationError(message, details.map((x) => ({ ...x, location: `body.${x.location}` })));
}

/**
 * Publishes the family's upload: the BPMN file decoded (strictly), parsed, converted to a
 * definition and validated like the JSON format; any problem refuses the whole file with every
 * problem found at its element. Only then is the name's next version taken, so a refused file
 * uses no version number. The version is created DRAFT (or as the body's `status` says), and the
 * file is kept byte for byte.
 */
export async function publishBpmnUpload(d: Deps, upload: BpmnUpload, ctx: Ctx): Promise<Published> {
  const bytes = decodeBpmnData(upload.resources.bpmn.data);
  const graph = await parseBpmn(bpmnText(bytes));
  // Every problem at once, whichever stage finds it: the conversion reports the parse's problems
  // with its own, and a graph that converts is validated too.
  const meta = { name: upload.name, version: UNNUMBERED, ...(upload.description ? { description: upload.description } : {}) };
  const converted = graph.process ? bpmnToDefinition(graph, meta) : { problems: [...graph.problems] };
  const problems = [...('problems' in converted ? converted.problems.map(problemDetail) : []), ...notRunnableTasks(graph)];
  let definition: ProcessDefinition | undefined;
  if ('definition' in converted) {
    try {
      // The upload's presentation (a member beside the file, as themeId is) joins the definition.
      definition = validateDefinition(upload.presentation ? { ...converted.definition, presentation: upload.presentation } : converted.definition);
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
    problems.push(...unavailableFaceLiveness(definition.activities).map((x) => locateOnBpmn(x, converted.definition, graph)));
  }
  if (problems.length > 0 || !definition) throw new InvalidBpmnError(problems);
  await checkThemeReference(d.themes, ctx.tenantId, upload.themeId);
  // Sized before a version is taken, so a definition refused for its size uses none (the ASL
  // does not depend on the version: statemachines/compile.ts).
  compileForDeployment(definition);

  const version = await d.definitions.allocateVersion(ctx.tenantId, upload.name);
  const fields: UploadFields = {
    serverType: upload.serverType ?? null,
    processDefinitionType: upload.processDefinitionType ?? null,
    attributes: upload.attributes ?? null,
    themeId: upload.themeId ?? null,
  };
  return deploy(d, { ...definition, version }, { format: 'BPMN', fields, status: upload.status }, bytes, ctx);
}

/**
 * Stores a version. One active at once (the JSON format, unless it names another status) is
 * stored with its state machine, made first (withStateMachine: a quota refusal stores nothing); a
 * draft (a BPMN upload, DRAFT or EDITABLE) or an inactive version has none until it becomes
 * DEPLOYED_ACTIVE (setDefinitionStatus), so drafts take no state machine of the account's quota.
 */
async function deploy(
  d: Deps,
  definition: ProcessDefinition,
  published: { format: DefinitionFormat; fields: UploadFields; status?: CreateStatus | null | undefined },
  bpmn: Buffer | undefined,
  ctx: Ctx,
): Promise<Published> {
  const draft: ProcessDefinitionRecord = newDefinitionRecord(definition, published, ctx);
  const asl = compileForDeployment(definition);
  const content = { definition, ...(bpmn ? { bpmn } : {}) };
  let record = draft;
  const { outcome } =
    draft.status === 'DEPLOYED_ACTIVE'
      ? await withStateMachine(d, asl, ctx.now, (use) => {
          // What an instance's execution starts on, and with besides the reference to its stored session.
          record = { ...draft, stateMachineArn: use.arn, stateMachineName: use.name, sessionKeep: use.sessionKeep };
          return d.definitions.create(record, content, use);
        })
      : await d.definitions.create(draft, content);
  // A concurrent publication of the same version can still win the race: the lock item decides.
  if (outcome === 'conflict') throw new DefinitionExistsError(definition.name, definition.version);
  return { record, definition };
}
