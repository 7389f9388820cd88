import { checkFormPatterns } from './form-patterns.js';
import { apiError } from '../../errors.js';
import { DEPLOYMENT_TRANSITIONS } from '../lifecycle.js';
import { addVersion, getVersioned, setVersionedStatus, uploadedVersionView, versionsPage, type NewVersion, type VersionedKindOf } from '../versioned.js';
import type { CustomDataFormRecord, CustomDataFormStatus, CustomDataFormStore, CustomDataFormSummary } from '../model.js';

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

export const CUSTOM_DATA_FORM_SORTABLE = ['version', 'status', 'createdDtm', 'lastUpdatedDtm'] as const;

export function customDataFormSummary(r: CustomDataFormSummary) {
  return uploadedVersionView(r);
}

const FORMS: VersionedKindOf<CustomDataFormRecord, CustomDataFormSummary, ReturnType<typeof customDataFormSummary>> = {
  noun: 'data form',
  exists: (name, version) => new CustomDataFormExistsError(name, version),
  notFound: (id) => new CustomDataFormNotFoundError(id),
  summary: customDataFormSummary,
  sortable: CUSTOM_DATA_FORM_SORTABLE,
};

export interface NewCustomDataForm extends NewVersion {
  status?: CustomDataFormStatus | null | undefined;
  creationOption?: string | null | undefined;
  resource: string;
}

/**
 * Adds a form version. With a version, that exact one (409 if it exists); without, the next one
 * of the name, retried if a concurrent addition takes it first.
 */
export async function addCustomDataForm(
  forms: Pick<CustomDataFormStore, 'create' | 'latestVersion'>,
  input: NewCustomDataForm,
  ctx: { tenantId: string; actor: string; now: Date },
): Promise<CustomDataFormRecord> {
  await checkFormPatterns(input.resource);
  return addVersion(FORMS, forms, input, { creationOption: input.creationOption ?? null, resource: input.resource }, ctx);
}

export function getCustomDataForm(forms: Pick<CustomDataFormStore, 'get'>, tenantId: string, id: string): Promise<CustomDataFormRecord> {
  return getVersioned(FORMS, forms, tenantId, id);
}

export function setCustomDataFormStatus(
  forms: Pick<CustomDataFormStore, 'get' | 'setStatus'>,
  input: { tenantId: string; id: string; status: CustomDataFormStatus; actor: string; now: Date },
): Promise<CustomDataFormRecord> {
  return setVersionedStatus(FORMS, forms, input);
}

export function customDataFormView(r: CustomDataFormRecord) {
  return { ...customDataFormSummary(r), resource: r.resource };
}

/** A page of one name's versions; unsorted pages come in version order (see versionsPage). */
export function customDataFormVersionsPage(
  store: Pick<CustomDataFormStore, 'versionsOf'>,
  tenantId: string,
  name: string,
  query: { page: number; size: number; sort: string[]; cursor?: string | undefined },
) {
  return versionsPage(FORMS, store, tenantId, name, query);
}
