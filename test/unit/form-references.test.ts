import { describe, expect, it } from 'vitest';
import { findFormVersion, missingFormReferences } from '../../functions/process-manager/forms/form-references.js';
import type { CustomDataFormRecord, CustomDataFormStatus, CustomDataFormStore } from '../../functions/process-manager/model.js';

const resource = JSON.stringify({ title: { values: { en: 'T' } }, components: [{ type: 'text', id: 'a' }] });

/** An in-memory form store holding (tenant, name, version, status), counting its reads. */
function forms(rows: [tenant: string, name: string, version: number, status: CustomDataFormStatus, resource?: string][]) {
  const records: CustomDataFormRecord[] = rows.map(([tenantId, name, version, status, res], i) => ({
    tenantId,
    id: `id-${i}`,
    name,
    version,
    status,
    resource: res ?? resource,
    description: '',
    creationOption: null,
    createdDtm: '',
    createdBy: '',
    lastUpdatedDtm: '',
    lastUpdatedBy: '',
  }));
  const store = {
    reads: 0,
    async getVersion(tenantId: string, name: string, version: number) {
      store.reads++;
      return records.find((r) => r.tenantId === tenantId && r.name === name && r.version === version);
    },
    async latestVersion(tenantId: string, name: string) {
      const versions = records.filter((r) => r.tenantId === tenantId && r.name === name).map((r) => r.version);
      return versions.length ? Math.max(...versions) : undefined;
    },
    versionsOf(tenantId: string, name: string) {
      const mine = records.filter((r) => r.tenantId === tenantId && r.name === name).sort((a, b) => b.version - a.version);
      // Newest first, one version a page: the lookup pages past inactive ones.
      return {
        async read({ after }: { after?: string | undefined }) {
          const start = after === undefined ? 0 : Number(after) + 1;
          const row = mine[start];
          return { rows: row ? [{ record: row, at: String(start) }] : [], done: start + 1 >= mine.length };
        },
      } as unknown as ReturnType<CustomDataFormStore['versionsOf']>;
    },
    async get(tenantId: string, id: string) {
      return records.find((r) => r.tenantId === tenantId && r.id === id);
    },
  } satisfies Pick<CustomDataFormStore, 'get' | 'getVersion' | 'latestVersion' | 'versionsOf'> & { reads: number };
  return store;
}

const dataForm = (name: unknown, version: unknown) => ({ type: 'DATA_FORM', inputs: { 'Data form name': name, 'Data form version': version } });

describe('missingFormReferences', () => {
  it('reports each activity naming a version that is missing, archived or of another tenant, once per form read', async () => {
    const store = forms([
      ['demo', 'applicant', 1, 'ARCHIVED'],
      ['demo', 'applicant', 2, 'DRAFT'],
      ['demo', 'login', 1, 'DEPLOYED_INACTIVE'],
      ['other', 'secret', 1, 'DEPLOYED_ACTIVE'],
    ]);
    const details = await missingFormReferences(store, 'demo', {
      old: dataForm('applicant', 1),
      draft: dataForm('applicant', 2),
      again: dataForm('applicant', 2),
      gone: dataForm('applicant', 3),
      foreign: dataForm('secret', 1),
      login: { type: 'PASSCODE_AUTHENTICATION_FORM', inputs: { 'Data form name': 'login' } },
      inline: { type: 'DATA_FORM', inputs: { Form: { components: [] } } },
      later: dataForm('${formName}', 1),
      face: { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Data form name': 'nope' } },
    });
    expect(details).toEqual([
      { location: 'activities.old.inputs.Data form name', message: 'Activity old (DATA_FORM) names data form "applicant" version 1, which is ARCHIVED.' },
      { location: 'activities.gone.inputs.Data form name', message: 'Activity gone (DATA_FORM) names data form "applicant" version 3, which does not exist.' },
      { location: 'activities.foreign.inputs.Data form name', message: 'Activity foreign (DATA_FORM) names data form "secret" version 1, which does not exist.' },
    ]);
    expect(store.reads).toBe(5);
  });
});

describe('findFormVersion', () => {
  it('parses the stored resource, and tells one it can no longer read', async () => {
    const store = forms([['demo', 'a', 1, 'DEPLOYED_ACTIVE'], ['demo', 'b', 1, 'DRAFT', '{"components": []}']]);
    expect(await findFormVersion(store, 'demo', 'a', 1)).toMatchObject({ outcome: 'found', form: { components: [{ id: 'a' }] } });
    expect(await findFormVersion(store, 'demo', 'b', 1)).toMatchObject({ outcome: 'unreadable', problems: ['components a form needs at least one component'] });
  });

  it('finds the latest DEPLOYED_ACTIVE version when no version is named (the family’s empty Data form version)', async () => {
    const store = forms([
      ['demo', 'a', 1, 'DEPLOYED_ACTIVE'],
      ['demo', 'a', 2, 'DEPLOYED_ACTIVE'],
      ['demo', 'a', 3, 'DRAFT'],
      ['demo', 'a', 4, 'ARCHIVED'],
      ['demo', 'b', 1, 'DRAFT'],
      ['other', 'c', 1, 'DEPLOYED_ACTIVE'],
    ]);
    expect(await findFormVersion(store, 'demo', 'a', undefined)).toMatchObject({ outcome: 'found', record: { version: 2 } });
    expect(await findFormVersion(store, 'demo', 'b', undefined)).toEqual({ outcome: 'missing' });
    expect(await findFormVersion(store, 'demo', 'c', undefined)).toEqual({ outcome: 'missing' });
    // At publish a name without a version must exist; which version is chosen when the step starts.
    expect(await missingFormReferences(store, 'demo', { latest: dataForm('b', undefined), none: dataForm('zzz', undefined) })).toEqual([
      { location: 'activities.none.inputs.Data form name', message: 'Activity none (DATA_FORM) names data form "zzz", which does not exist.' },
    ]);
  });
});
