import { randomUUID } from 'node:crypto';
import { apiError, ConcurrentUpdateError, InvalidCursorError, ValidationError } from '../../errors.js';
import { DEPLOYMENT_TRANSITIONS, checkTransition } from '../lifecycle.js';
import { decodeCursor, encodeCursor } from '../../shared/cursor.js';
import { LIST_SORT_CAP, orderedPage } from '../../shared/keyed-list.js';
import { comparator, cursorPage, likePattern, parseSort, sortBy, type CursorPage, type SortOrder } from '../../shared/page.js';
import type { ProcessDefinition } from '../../../statemachines/definition.js';
import { stepProgress } from '../../../statemachines/progress.js';
import { activitySpec } from '../../../statemachines/catalogue.js';
import { compileForDeployment, withStateMachine, type StateMachineDeps } from './state-machines.js';
import type {
  CreateStatus,
  DefinitionFormat,
  DefinitionStatus,
  DefinitionStore,
  DefinitionWriteOutcome,
  DefinitionTagRecord,
  JourneyPages,
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

/** The family's upload fields, kept as uploaded; null for the JSON format, but for a `themeId` given with it. */
export interface UploadFields {
  serverType: string | null;
  processDefinitionType: string | null;
  attributes: Record<string, unknown> | null;
  themeId: string | null;
}

export const NO_UPLOAD_FIELDS: UploadFields = { serverType: null, processDefinitionType: null, attributes: null, themeId: null };

export function newDefinitionRecord(
  definition: ProcessDefinition,
  published: { format: DefinitionFormat; fields: UploadFields; status?: CreateStatus | null | undefined },
  ctx: { tenantId: string; actor: string; now: Date },
): ProcessDefinitionRecord {
  return {
    tenantId: ctx.tenantId,
    id: randomUUID(),
    name: definition.name,
    version: definition.version,
    description: definition.description ?? '',
    retentionDays: definition.retentionDays,
    pages: journeyPagesOf(definition),
    // A definition published in the service's JSON format is active at once (as it always was);
    // a BPMN upload is a DRAFT until activated (`.../status/DEPLOYED_ACTIVE`), as the family's
    // deployment tools expect; unless the body names the status (EDITABLE: the family's draft).
    // Either can then be moved like any other version.
    status: published.status ?? (published.format === 'BPMN' ? 'DRAFT' : 'DEPLOYED_ACTIVE'),
    format: published.format,
    ...published.fields,
    createdDtm: ctx.now.toISOString(),
    createdBy: ctx.actor,
  };
}

/**
 * What the version's journey pages show beside a step, kept on its record (a small item, read when
 * an instance is created, which copies it) rather than read from the definition's document.
 */
export function journeyPagesOf(definition: ProcessDefinition): JourneyPages {
  return {
    ...(definition.presentation ? { presentation: definition.presentation } : {}),
    progress: stepProgress(definition, (type) => activitySpec(type)?.kind === 'user'),
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

/** A Lambda response is at most 6 MB (6,291,556 bytes); the single read keeps within this. */
export const MAX_DEFINITION_READ_BYTES = 5.5 * 1024 * 1024;

/**
 * The single read of a version: its view and its BPMN file (`bpmn`: an upload's stored bytes, or
 * the file generated for the JSON format) as base64 in `resources.bpmn.data`, as the family's
 * upload carries it. An upload's file is at most 1 MiB (1.4 MB as base64), always within the
 * answer; only a file generated from a JSON definition near its limits could take the answer past
 * `maxBytes`, and is then left out (`.../bpmnFile` serves it).
 */
export function definitionRead(
  r: ProcessDefinitionRecord,
  content: ProcessDefinitionContent,
  bpmn: Buffer,
  maxBytes = MAX_DEFINITION_READ_BYTES,
): ReturnType<typeof definitionView> & { resources?: { bpmn: { data: string; type: 'BPMN' } } } {
  const view = definitionView(r, content);
  const data = bpmn.toString('base64');
  const fits = Buffer.byteLength(JSON.stringify(view)) + data.length + 64 <= maxBytes;
  return fits ? { ...view, resources: { bpmn: { data, type: 'BPMN' as const } } } : view;
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
    // The family's upload fields, as uploaded. A themeId (given with either format; null when
    // none was) names a theme of the tenant, checked on publish; instances answer its themeUrl.
    themeId: r.themeId ?? null,
    serverType: r.serverType ?? null,
    processDefinitionType: r.processDefinitionType ?? null,
    attributes: r.attributes ?? null,
    createdDtm: r.createdDtm,
    createdBy: r.createdBy,
  };
}

export const DEFINITION_SORTABLE = ['name', 'version', 'createdDtm'] as const;

/**
 * The definitions list reads every name + version item of the tenant (small: a name, a version,
 * an id and a status; about 10,000 a Query) to order names alphabetically, which no key of the
 * table holds, and then only the page's definitions. Past this many versions it refuses.
 */
export const DEFINITION_VERSIONS_LISTED = 50_000;

function invalidSort(errors: string[]): ValidationError {
  return new ValidationError('Invalid sort.', errors.map((message) => ({ location: 'query.sort', message })));
}

/**
 * A page of the tenant's definition versions, by name then version unless sorted otherwise
 * (docs/lists.md). Exact `totalElements`; a cursor continues after the last (name, version) of its
 * page in the page's order. A sort by createdDtm reads the matching definitions themselves (at
 * most LIST_SORT_CAP) and pages by number only.
 */
export async function definitionPage(
  definitions: Pick<DefinitionStore, 'versionRefs' | 'getMany'>,
  tenantId: string,
  query: { name: string; page: number; size: number; sort: string[]; cursor?: string | undefined },
): Promise<CursorPage<ReturnType<typeof definitionSummary>>> {
  const { orders, errors } = parseSort(query.sort, DEFINITION_SORTABLE);
  if (errors.length) throw invalidSort(errors);
  const { refs, more } = await definitions.versionRefs(tenantId, DEFINITION_VERSIONS_LISTED);
  if (more) {
    throw new ValidationError('Too many definition versions to list.', [
      { location: 'query', message: `the tenant has more than ${DEFINITION_VERSIONS_LISTED} definition versions: list one name's versions (.../processDefinitions/{name}/versions), which pages by cursor` },
    ]);
  }
  const pattern = likePattern(query.name);
  const matching = refs.filter((r) => pattern.test(r.name));
  const { page, size } = query;
  const byName = [...orders, { property: 'name', direction: 'asc' }, { property: 'version', direction: 'asc' }] as SortOrder<(typeof DEFINITION_SORTABLE)[number]>[];

  if (orders.some((o) => o.property === 'createdDtm')) {
    if (query.cursor) throw new InvalidCursorError(undefined, [{ location: 'query.cursor', message: 'a sort by createdDtm pages by number only (its pages have no nextCursor)' }]);
    if (matching.length > LIST_SORT_CAP) {
      throw new ValidationError('Too many to sort.', [
        { location: 'query.sort', message: `more than ${LIST_SORT_CAP} versions match: sort by name and version, or narrow the name pattern` },
      ]);
    }
    const records = sortBy(await definitions.getMany(tenantId, matching.map((r) => r.processDefinitionId)), byName, (r, k) => r[k]);
    const content = records.slice(page * size, page * size + size).map(definitionSummary);
    return cursorPage(content, { page, size, sorted: true, total: records.length, capped: false, more: records.length > page * size + size, nextCursor: null });
  }

  const order = comparator<{ name: string; version: number }, (typeof DEFINITION_SORTABLE)[number]>(byName, (r, k) => (k === 'createdDtm' ? undefined : r[k]));
  const ordered = [...matching].sort(order);
  const binding = { tenantId, list: 'processDefinitions', query: [query.name, orders] };
  let start = page * size;
  if (query.cursor) {
    const position = positionOf(decodeCursor(binding, query.cursor, (at) => positionOf(at) !== undefined).after)!;
    // The first version after the cursor's in this order: versions published meanwhile before it are not shown twice.
    start = ordered.findIndex((r) => order(r, position) > 0);
    if (start < 0) start = ordered.length;
  }
  const slice = ordered.slice(start, start + size);
  const found = new Map((await definitions.getMany(tenantId, slice.map((r) => r.processDefinitionId))).map((r) => [r.id, r]));
  const content = slice.flatMap((r) => (found.has(r.processDefinitionId) ? [definitionSummary(found.get(r.processDefinitionId)!)] : []));
  const hasMore = ordered.length > start + size;
  return cursorPage(content, {
    page,
    size,
    sorted: orders.length > 0,
    total: matching.length,
    capped: false,
    more: hasMore,
    nextCursor: hasMore && slice.length ? encodeCursor(binding, { after: `${slice.at(-1)!.version}#${slice.at(-1)!.name}` }) : null,
  });
}

/** The name and version a definitions list cursor points after (`{version}#{name}`). */
function positionOf(at: string): { name: string; version: number } | undefined {
  const m = /^(\d{1,9})#([\s\S]{1,255})$/.exec(at);
  return m ? { version: Number(m[1]), name: m[2]! } : undefined;
}

export const VERSION_SORTABLE = ['version', 'createdDtm', 'status'] as const;

/**
 * One name's versions, a page at a time (`sort=version,desc` gives the latest first): in version
 * order (either way) a page reads its own versions (keyed-list.ts); by status or createdDtm, the
 * name's versions sorted in memory (at most LIST_SORT_CAP).
 */
export async function versionPage(
  definitions: Pick<DefinitionStore, 'versionsOf'>,
  tenantId: string,
  name: string,
  query: { page: number; size: number; sort: string[]; cursor?: string | undefined },
): Promise<CursorPage<ReturnType<typeof definitionSummary>>> {
  const { orders, errors } = parseSort(query.sort, VERSION_SORTABLE);
  if (errors.length) throw invalidSort(errors);
  const source = definitions.versionsOf(tenantId, name);
  const view = (records: ProcessDefinitionRecord[]) => records.map(definitionSummary);
  return orderedPage(source, {
    key: 'version',
    binding: { tenantId, list: 'processDefinitionVersions', scope: [name], query: orders },
    query,
    orders,
    tieBreak: [{ property: 'version', direction: 'asc' }],
    value: (r, k) => (k === 'status' ? statusOf(r) : r[k]),
    view,
    instead: 'sort by version alone (either way), whose pages read only themselves',
  });
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
