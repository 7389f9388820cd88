import { randomUUID } from 'node:crypto';
import { apiError, ConcurrentUpdateError, ValidationError } from '../../errors.js';
import { DEPLOYMENT_TRANSITIONS, checkTransition } from '../lifecycle.js';
import { likePattern, parseSort, sortBy, toPage } from '../../shared/page.js';
import type { ProcessDefinition } from '../../../statemachines/definition.js';
import { compileForDeployment, withStateMachine, type StateMachineDeps } from './state-machines.js';
import type {
  DefinitionFormat,
  DefinitionStatus,
  DefinitionStore,
  DefinitionWriteOutcome,
  DefinitionTagRecord,
  ProcessDefinitionContent,
  ProcessDefinitionRecord,
} from '../model.js';

export type { DefinitionStore, DefinitionTagRecord, ProcessDefinitionContent, ProcessDefinitionRecord } from '../model.js';

export class DefinitionExistsError extends apiError('PROCESS_DEFINITION_EXISTS') {
  constructor(name: string, version: number) {
    super(`Process definition "${name}" version ${version} already exists; publish a new version instead.`);
  }
}

export class DefinitionNotFoundError extends apiError('PROCESS_DEFINITION_NOT_FOUND') {
  constructor(id: string) {
    super(`Process definition ${id} was not found.`);
  }
}

export class DefinitionNotActiveError extends apiError('PROCESS_DEFINITION_NOT_ACTIVE') {
  constructor(name: string, version: number, status: DefinitionStatus) {
    super(`Process definition "${name}" version ${version} is ${status}: only a DEPLOYED_ACTIVE version takes process tokens and starts journeys.`);
  }
}

/** The family's upload fields, kept as uploaded; null for the JSON format. */
export interface UploadFields {
  serverType: string | null;
  processDefinitionType: string | null;
  attributes: Record<string, unknown> | null;
  themeId: string | null;
}

export const NO_UPLOAD_FIELDS: UploadFields = { serverType: null, processDefinitionType: null, attributes: null, themeId: null };

export function newDefinitionRecord(
  definition: ProcessDefinition,
  published: { format: DefinitionFormat; fields: UploadFields },
  ctx: { tenantId: string; actor: string; now: Date },
): ProcessDefinitionRecord {
  return {
    tenantId: ctx.tenantId,
    id: randomUUID(),
    name: definition.name,
    version: definition.version,
    description: definition.description ?? '',
    retentionDays: definition.retentionDays,
    // A definition published in the service's JSON format is active at once (as it always was);
    // a BPMN upload is a DRAFT until activated (`.../status/DEPLOYED_ACTIVE`), as the family's
    // deployment tools expect. Either can then be moved like any other version.
    status: published.format === 'BPMN' ? 'DRAFT' : 'DEPLOYED_ACTIVE',
    format: published.format,
    ...published.fields,
    createdDtm: ctx.now.toISOString(),
    createdBy: ctx.actor,
  };
}

/** A version's status; versions published before the lifecycle existed are active. */
export function statusOf(r: Pick<ProcessDefinitionRecord, 'status'>): DefinitionStatus {
  return r.status ?? 'DEPLOYED_ACTIVE';
}

/** A definition version's lifecycle (lifecycle.ts). */
export const DEFINITION_TRANSITIONS = DEPLOYMENT_TRANSITIONS;

/**
 * Moves a version through its lifecycle. Becoming DEPLOYED_ACTIVE is when a version gets its
 * state machine: its definition is compiled as this deployment compiles now, the state machine of
 * that ASL is made (or found: it is shared by every version of every tenant that compiles alike)
 * and the version records it, counted among its users in the same transaction. Leaving
 * DEPLOYED_ACTIVE uncounts it; the janitor deletes a state machine no active version uses (and
 * that runs nothing), and a later activation makes it again.
 */
export async function setDefinitionStatus(
  d: StateMachineDeps & { definitions: Pick<DefinitionStore, 'get' | 'getContent' | 'setStatus'> },
  input: { tenantId: string; definitionId: string; status: DefinitionStatus; actor: string; now: Date },
): Promise<ProcessDefinitionRecord> {
  const record = await getDefinition(d.definitions, input.tenantId, input.definitionId);
  if (checkTransition('process definition', statusOf(record), input.status) === 'same') return record;
  const at = { now: input.now, by: input.actor };
  let updated: ProcessDefinitionRecord = { ...record, status: input.status, statusUpdatedDtm: input.now.toISOString(), statusUpdatedBy: input.actor };
  let outcome: DefinitionWriteOutcome['outcome'];
  if (input.status === 'DEPLOYED_ACTIVE') {
    const asl = compileForDeployment((await d.definitions.getContent(record)).definition);
    ({ outcome } = await withStateMachine(d, asl, input.now, (use) => {
      updated = { ...updated, stateMachineArn: use.arn, stateMachineName: use.name, sessionKeep: use.sessionKeep };
      return d.definitions.setStatus(record, record.status, input.status, at, use);
    }));
  } else {
    ({ outcome } = await d.definitions.setStatus(record, record.status, input.status, at));
  }
  if (outcome !== 'written') throw new ConcurrentUpdateError();
  return updated;
}

export function definitionView(r: ProcessDefinitionRecord, content: ProcessDefinitionContent) {
  return { ...content.definition, ...definitionSummary(r) };
}

export function definitionSummary(r: ProcessDefinitionRecord) {
  return {
    id: r.id,
    // The family's clients read the id under this name (`content[0].processDefinitionId`).
    processDefinitionId: r.id,
    status: statusOf(r),
    name: r.name,
    version: r.version,
    description: r.description,
    retentionDays: r.retentionDays,
    // The family's upload fields, as uploaded. Journey pages have one look for now: a themeId is
    // kept and returned, and changes nothing.
    themeId: r.themeId ?? null,
    serverType: r.serverType ?? null,
    processDefinitionType: r.processDefinitionType ?? null,
    attributes: r.attributes ?? null,
    createdDtm: r.createdDtm,
    createdBy: r.createdBy,
  };
}

export const DEFINITION_SORTABLE = ['name', 'version', 'createdDtm'] as const;

export function definitionPage(records: ProcessDefinitionRecord[], query: { name: string; page: number; size: number; sort: string[] }) {
  const { orders, errors } = parseSort(query.sort, DEFINITION_SORTABLE);
  if (errors.length) throw new ValidationError('Invalid sort.', errors.map((message) => ({ location: 'query.sort', message })));
  const pattern = likePattern(query.name);
  const ordered = sortBy(
    records.filter((r) => pattern.test(r.name)),
    [...orders, { property: 'name', direction: 'asc' }, { property: 'version', direction: 'asc' }],
    (r, k) => r[k],
  );
  return toPage(ordered.map(definitionSummary), query.page, query.size, orders.length > 0);
}

export const VERSION_SORTABLE = ['version', 'createdDtm', 'status'] as const;

/** One name's versions, a page at a time (`sort=version,desc` gives the latest first). */
export function versionPage(records: ProcessDefinitionRecord[], name: string, query: { page: number; size: number; sort: string[] }) {
  const { orders, errors } = parseSort(query.sort, VERSION_SORTABLE);
  if (errors.length) throw new ValidationError('Invalid sort.', errors.map((message) => ({ location: 'query.sort', message })));
  const ordered = sortBy(
    records.filter((r) => r.name === name).map((r) => ({ ...r, status: statusOf(r) })),
    [...orders, { property: 'version', direction: 'asc' }],
    (r, k) => r[k],
  );
  return toPage(ordered.map(definitionSummary), query.page, query.size, orders.length > 0);
}

export function tagView(t: DefinitionTagRecord) {
  return {
    name: t.name,
    processDefinitionId: t.processDefinitionId,
    processDefinitionName: t.processDefinitionName,
    processDefinitionVersion: t.processDefinitionVersion,
    createdDtm: t.createdDtm,
    createdBy: t.createdBy,
  };
}

export async function getDefinition(definitions: Pick<DefinitionStore, 'get'>, tenantId: string, id: string): Promise<ProcessDefinitionRecord> {
  const record = await definitions.get(tenantId, id);
  if (!record) throw new DefinitionNotFoundError(id);
  return record;
}

/** Puts tags on a definition version; a tag held by another version of any definition moves here. */
export async function addDefinitionTags(
  definitions: Pick<DefinitionStore, 'get' | 'putTag'>,
  input: { tenantId: string; definitionId: string; tags: string[]; actor: string; now: Date },
): Promise<DefinitionTagRecord[]> {
  const definition = await getDefinition(definitions, input.tenantId, input.definitionId);
  const tags: DefinitionTagRecord[] = [...new Set(input.tags)].map((name) => ({
    tenantId: input.tenantId,
    name,
    processDefinitionId: definition.id,
    processDefinitionName: definition.name,
    processDefinitionVersion: definition.version,
    createdDtm: input.now.toISOString(),
    createdBy: input.actor,
  }));
  for (const tag of tags) await definitions.putTag(tag);
  return tags;
}
