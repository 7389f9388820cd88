import { describe, expect, it } from 'vitest';
import { definitionRead, definitionSummary, MAX_DEFINITION_READ_BYTES } from '../../functions/process-manager/definitions/definitions.js';
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
