import { checkFormPatterns } from './form-patterns.js';
import { randomUUID } from 'node:crypto';
import { apiError, ConcurrentUpdateError, ValidationError } from '../errors.js';
import { DEPLOYMENT_TRANSITIONS, checkTransition } from './lifecycle.js';
import { parseSort, sortBy, toPage } from '../shared/page.js';
import type { CustomDataFormRecord, CustomDataFormStatus, CustomDataFormStore, CustomDataFormSummary } from './model.js';

export class CustomDataFormExistsError extends apiError('CUSTOM_DATA_FORM_EXISTS') {
  constructor(name: string, version: number) {
    super(`Data form "${name}" version ${version} already exists; a version is immutable, add the next one instead.`);
  }
}

export class CustomDataFormNotFoundError extends apiError('CUSTOM_DATA_FORM_NOT_FOUND') {
  constructor(id: string) {
    super(`Data form ${id} was not found.`);
  }
}

/** A form version's lifecycle: the same as a definition version's (lifecycle.ts). */
export const CUSTOM_DATA_FORM_TRANSITIONS = DEPLOYMENT_TRANSITIONS;

export interface NewCustomDataForm {
  name: string;
  description?: string | null | undefined;
  version?: number | null | undefined;
  status?: CustomDataFormStatus | null | undefined;
  creationOption?: string | null | undefined;
  resource: string;
}

/** Attempts at the next version when other clients add versions of the same name meanwhile. */
const NEXT_VERSION_ATTEMPTS = 5;

/**
 * Adds a form version. With a version, that exact one (409 if it exists); without, the next one
 * of the name, retried if a concurrent addition takes it first.
 */
export async function addCustomDataForm(
  forms: Pick<CustomDataFormStore, 'create' | 'latestVersion'>,
  input: NewCustomDataForm,
  ctx: { tenantId: string; principal: string; now: Date },
): Promise<CustomDataFormRecord> {
  await checkFormPatterns(input.resource);
  for (let attempt = 0; ; attempt++) {
    const version = input.version ?? ((await forms.latestVersion(ctx.tenantId, input.name)) ?? 0) + 1;
    const at = ctx.now.toISOString();
    const record: CustomDataFormRecord = {
      tenantId: ctx.tenantId,
      id: randomUUID(),
      name: input.name,
      version,
      description: input.description ?? '',
      status: input.status ?? 'DRAFT',
      creationOption: input.creationOption ?? null,
      resource: input.resource,
      createdDtm: at,
      createdBy: ctx.principal,
      lastUpdatedDtm: at,
      lastUpdatedBy: ctx.principal,
    };
    if (await forms.create(record)) return record;
    if (input.version != null || attempt + 1 >= NEXT_VERSION_ATTEMPTS) throw new CustomDataFormExistsError(input.name, version);
  }
}

export async function getCustomDataForm(forms: Pick<CustomDataFormStore, 'get'>, tenantId: string, id: string): Promise<CustomDataFormRecord> {
  const record = await forms.get(tenantId, id);
  if (!record) throw new CustomDataFormNotFoundError(id);
  return record;
}

export async function setCustomDataFormStatus(
  forms: Pick<CustomDataFormStore, 'get' | 'setStatus'>,
  input: { tenantId: string; id: string; status: CustomDataFormStatus; principal: string; now: Date },
): Promise<CustomDataFormRecord> {
  const record = await getCustomDataForm(forms, input.tenantId, input.id);
  if (checkTransition('data form', record.status, input.status) === 'same') return record;
  const updated = await forms.setStatus(record, record.status, input.status, { principal: input.principal, now: input.now });
  if (updated.outcome === 'gone') throw new CustomDataFormNotFoundError(input.id);
  if (updated.outcome === 'changed') throw new ConcurrentUpdateError();
  return { ...record, status: input.status, lastUpdatedDtm: input.now.toISOString(), lastUpdatedBy: input.principal };
}

export function customDataFormView(r: CustomDataFormRecord) {
  return { ...customDataFormSummary(r), resource: r.resource };
}

export function customDataFormSummary(r: CustomDataFormSummary) {
  return {
    id: r.id,
    name: r.name,
    version: r.version,
    description: r.description,
    status: r.status,
    creationOption: r.creationOption,
    createdDtm: r.createdDtm,
    createdBy: r.createdBy,
    lastUpdatedDtm: r.lastUpdatedDtm,
    lastUpdatedBy: r.lastUpdatedBy,
  };
}

export const CUSTOM_DATA_FORM_SORTABLE = ['version', 'status', 'createdDtm', 'lastUpdatedDtm'] as const;

/** A page of one name's versions; unsorted pages come in version order. */
export function customDataFormVersionsPage(versions: CustomDataFormSummary[], query: { page: number; size: number; sort: string[] }) {
  const { orders, errors } = parseSort(query.sort, CUSTOM_DATA_FORM_SORTABLE);
  if (errors.length) throw new ValidationError('Invalid sort.', errors.map((message) => ({ location: 'query.sort', message })));
  const ordered = sortBy(versions, [...orders, { property: 'version', direction: 'asc' }], (r, k) => r[k]);
  return toPage(ordered.map(customDataFormSummary), query.page, query.size, orders.length > 0);
}
