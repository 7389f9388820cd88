import { randomUUID } from 'node:crypto';
import { apiError, ValidationError } from '../errors.js';
import { likePattern, parseSort, sortBy, toPage } from '../shared/page.js';
import type { ProcessDefinition } from '../../statemachines/definition.js';
import type { DefinitionStore, DefinitionTagRecord, ProcessDefinitionRecord } from './model.js';

export type { DefinitionStore, DefinitionTagRecord, ProcessDefinitionRecord } from './model.js';

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

export function newDefinitionRecord(
  definition: ProcessDefinition,
  ctx: { tenantId: string; principal: string; now: Date },
): Omit<ProcessDefinitionRecord, 'stateMachineArn'> {
  return {
    tenantId: ctx.tenantId,
    id: randomUUID(),
    name: definition.name,
    version: definition.version,
    description: definition.description ?? '',
    retentionDays: definition.retentionDays,
    definition,
    createdDtm: ctx.now.toISOString(),
    createdBy: ctx.principal,
  };
}

export function definitionView(r: ProcessDefinitionRecord) {
  return { ...r.definition, ...definitionSummary(r) };
}

export function definitionSummary(r: ProcessDefinitionRecord) {
  return {
    id: r.id,
    name: r.name,
    version: r.version,
    description: r.description,
    retentionDays: r.retentionDays,
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
  input: { tenantId: string; definitionId: string; tags: string[]; principal: string; now: Date },
): Promise<DefinitionTagRecord[]> {
  const definition = await getDefinition(definitions, input.tenantId, input.definitionId);
  const tags: DefinitionTagRecord[] = [...new Set(input.tags)].map((name) => ({
    tenantId: input.tenantId,
    name,
    processDefinitionId: definition.id,
    processDefinitionName: definition.name,
    processDefinitionVersion: definition.version,
    createdDtm: input.now.toISOString(),
    createdBy: input.principal,
  }));
  for (const tag of tags) await definitions.putTag(tag);
  return tags;
}
