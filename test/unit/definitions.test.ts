import { describe, expect, it } from 'vitest';
import { definitionRead, definitionSummary, MAX_DEFINITION_READ_BYTES, newDefinitionRecord, NO_UPLOAD_FIELDS } from '../../functions/process-manager/definitions/definitions.js';
import { checkTransition, DEPLOYMENT_TRANSITIONS } from '../../functions/process-manager/lifecycle.js';
import { functionToRun } from '../../functions/cloud-functions/functions.js';
import { publishDefinition } from '../../functions/process-manager/definitions/publish.js';
import type { CloudFunctionSummary } from '../../functions/cloud-functions/model.js';
import { bpmnFileOf } from '../../functions/process-manager/definitions/bpmn-file.js';
import { validateDefinition } from '../../statemachines/validate.js';
import { EXAMPLES } from '../../statemachines/examples/index.js';
import type { ProcessDefinitionRecord } from '../../functions/process-manager/model.js';

const definition = validateDefinition(structuredClone(EXAMPLES['identity-check']));
const record: ProcessDefinitionRecord = {
  tenantId: 'acme',
  id: '00000000-0000-4000-8000-000000000001',
  name: definition.name,
  version: 1,
  description: '',
  retentionDays: 90,
  status: 'DEPLOYED_ACTIVE',
  format: 'JSON',
  serverType: null,
  processDefinitionType: null,
  attributes: null,
  themeId: null,
  createdDtm: '2026-06-01T00:00:00.000Z',
  createdBy: 'apikey:k',
};

describe('definitionRead', () => {
  it('carries the file as base64 in resources.bpmn.data, type BPMN, beside the definition', () => {
    const upload = Buffer.from('\ufeff<bpmn:definitions/>\r\n', 'utf8');
    const read = definitionRead({ ...record, format: 'BPMN', themeId: 'dark' }, { definition, bpmn: upload }, upload);
    expect(read).toMatchObject({ ...definitionSummary({ ...record, format: 'BPMN', themeId: 'dark' }), startActivityId: definition.startActivityId });
    expect(read.resources).toEqual({ bpmn: { data: upload.toString('base64'), type: 'BPMN' } });
    expect(Buffer.from(read.resources!.bpmn.data, 'base64').equals(upload)).toBe(true);
  });

  it('carries for a JSON version the file the BPMN writer makes of it, the bpmnFile one', () => {
    const file = bpmnFileOf({ definition });
    const read = definitionRead(record, { definition }, file);
    expect(Buffer.from(read.resources!.bpmn.data, 'base64').toString('utf8')).toBe(file.toString('utf8'));
    expect(read.themeId).toBeNull();
  });

  it('leaves the file out rather than pass the budget of the answer (under a Lambda response\u2019s 6 MB)', () => {
    expect(MAX_DEFINITION_READ_BYTES).toBeLessThan(6_291_556);
    const file = Buffer.alloc(30_000, 'x');
    const small = Buffer.byteLength(JSON.stringify(definitionRead(record, { definition }, Buffer.alloc(0))));
    expect(definitionRead(record, { definition }, file, small + 40_000 + 64)).toHaveProperty('resources');
    expect(definitionRead(record, { definition }, file, small + 30_000)).not.toHaveProperty('resources');
    // A 1 MiB upload, the largest, always fits.
    expect(definitionRead(record, { definition }, Buffer.alloc(1024 * 1024, 'x'))).toHaveProperty('resources');
  });
});

describe('EDITABLE, the family\u2019s draft', () => {
  it('moves as a DRAFT does, and neither draft name becomes the other', () => {
    expect(DEPLOYMENT_TRANSITIONS.EDITABLE).toEqual(DEPLOYMENT_TRANSITIONS.DRAFT);
    expect(checkTransition('process definition', 'EDITABLE', 'EDITABLE')).toBe('same');
    expect(checkTransition('process definition', 'EDITABLE', 'DEPLOYED_ACTIVE')).toBe('move');
    expect(checkTransition('data form', 'EDITABLE', 'ARCHIVED')).toBe('move');
    for (const [from, to] of [['EDITABLE', 'DEPLOYED_INACTIVE'], ['EDITABLE', 'DRAFT'], ['DRAFT', 'EDITABLE'], ['DEPLOYED_ACTIVE', 'EDITABLE'], ['ARCHIVED', 'EDITABLE']] as const) {
      expect(() => checkTransition('cloud function', from, to), `${from} -> ${to}`).toThrow(expect.objectContaining({ code: 'INVALID_STATUS_TRANSITION' }));
    }
    // Nothing deployed goes back to either draft.
    for (const [from, to] of Object.entries(DEPLOYMENT_TRANSITIONS)) if (from !== 'DRAFT' && from !== 'EDITABLE') expect(to).not.toEqual(expect.arrayContaining(['EDITABLE']));
  });

  it('is created as given and read back so; the JSON format is active at once unless told otherwise', () => {
    const ctx = { tenantId: 'acme', actor: 'a', now: new Date('2026-06-01T00:00:00Z') };
    expect(newDefinitionRecord(definition, { format: 'JSON', fields: NO_UPLOAD_FIELDS }, ctx).status).toBe('DEPLOYED_ACTIVE');
    expect(newDefinitionRecord(definition, { format: 'BPMN', fields: NO_UPLOAD_FIELDS }, ctx).status).toBe('DRAFT');
    for (const format of ['JSON', 'BPMN'] as const) {
      const made = newDefinitionRecord(definition, { format, fields: NO_UPLOAD_FIELDS, status: 'EDITABLE' }, ctx);
      expect(made.status).toBe('EDITABLE');
      expect(definitionSummary(made).status).toBe('EDITABLE');
    }
  });

  it('is not the version a step without one runs: that is the latest DEPLOYED_ACTIVE, as past a DRAFT', async () => {
    const summaries: CloudFunctionSummary[] = [1, 2, 3].map((version) => ({
      id: `f${version}`,
      name: 'fn',
      version,
      description: '',
      status: version === 1 ? 'DEPLOYED_ACTIVE' : version === 2 ? 'DRAFT' : 'EDITABLE',
      format: 'JAVASCRIPT',
      entryPoint: 'index.js',
      files: ['index.js'],
      sha256: '',
      timeoutSeconds: 30,
      memoryMb: 64,
      createdDtm: '',
      createdBy: '',
      lastUpdatedDtm: '',
      lastUpdatedBy: '',
    }));
    const store = {
      get: async (_t: string, id: string) => ({ ...summaries.find((s) => s.id === id)!, tenantId: 'acme', modules: {} }),
      getVersion: async (_t: string, _n: string, v: number) => summaries.find((s) => s.version === v),
      versionsOf: () => ({
        read: async () => ({ rows: [...summaries].reverse().map((record) => ({ at: String(record.version), record })), done: true }),
        isPosition: () => true,
        count: async () => ({ count: 3, capped: false }),
      }),
    };
    expect((await functionToRun(store, 'acme', 'fn', undefined))?.version).toBe(1);
    // Named by version, a draft runs, under either name (a form or function can be tried before it is deployed).
    expect((await functionToRun(store, 'acme', 'fn', 3))?.status).toBe('EDITABLE');
  });
});

describe('a refused definition in the JSON format', () => {
  it('counts in its message every problem its details list, those of activities this deployment cannot run too', async () => {
    const body = structuredClone(EXAMPLES['identity-check']) as Record<string, any>;
    // 120 activities of an unknown type, and one this deployment cannot run.
    for (let i = 0; i < 120; i++) body.activities[`x${i}`] = { type: 'TELEPORT', inputs: {} };
    body.activities.archive = { type: 'ARCHIVE_PROCESS_INSTANCE', inputs: {} };
    const refused = await publishDefinition({} as never, body, { tenantId: 'acme', actor: 'a', now: new Date() }).then(
      () => undefined,
      (err: { message: string; details?: { location: string }[] }) => err,
    );
    expect(refused?.details!.length).toBeGreaterThan(120);
    expect(refused?.message).toContain(`(${refused!.details!.length - 1} more problems in details)`);
    expect(refused?.details!.map((d) => d.location)).toContain('body.activities.archive.type');
  });
});
