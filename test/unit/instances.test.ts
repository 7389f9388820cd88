import { describe, expect, it } from 'vitest';
import { finalStatus } from '../../functions/process-manager/instances/status.js';
import { elapsedMilliseconds, instanceView, instanceWithParametersView, tokenRefusal, newInstance, hashCapability, initialSession, isExpired } from '../../functions/process-manager/instances/instances.js';
import { instanceListItem } from '../../functions/process-manager/instances/instance-search.js';
import { INSTANCE_STATUSES, statusMappedOf } from '../../functions/process-manager/model.js';
import { ParametersSchema } from '../../functions/process-manager/tokens/token-schemas.js';
import { resolveInputs } from '../../functions/activities/inputs.js';
import { activitySpec } from '../../statemachines/catalogue.js';
import * as z from '../../functions/shared/zod.js';
import { mergeSession } from '../../functions/journey/steps.js';
import { csvCell, instancesCsv } from '../../functions/process-manager/instances/instance-search.js';
import type { ProcessTokenRecord } from '../../functions/process-manager/tokens/tokens.js';
import type { ProcessDefinitionRecord } from '../../functions/process-manager/definitions/definitions.js';
import { buildOpenApiDocument } from '../../functions/platform/openapi-document.js';
import { routeList } from '../../functions/routes.js';

const now = new Date('2026-06-01T12:00:00.000Z');
const token: ProcessTokenRecord = {
  tenantId: 'acme', id: 't1', name: 'n', description: '', status: 'ACTIVE', type: 'UNLIMITED', maxCount: null, counter: 0,
  validFromDtm: null, validToDtm: null, processDefnName: 'd', processDefnVersion: '1', processDefnTag: null, processDefnId: 'd1', uiUrl: '',
  parameters: { firstName: 'Ann' }, processInstanceInit: null, maxProcessDuration: null, createdDtm: '', createdBy: '',
};
const definition = { id: 'd1', name: 'd', version: 1, retentionDays: 30, stateMachineArn: 'arn' } as ProcessDefinitionRecord;

describe('finalStatus', () => {
  it('maps the decision and the way an execution ended to the instance status', () => {
    expect(finalStatus({ status: 'SUCCEEDED', output: { _decision: 'PASS' } })).toBe('COMPLETED_ENDED_SUCCESS');
    expect(finalStatus({ status: 'SUCCEEDED', output: { _decision: 'FAIL' } })).toBe('COMPLETED_ENDED_ERROR');
    expect(finalStatus({ status: 'SUCCEEDED', output: { _decision: 'REVIEW' } })).toBe('REVIEW');
    expect(finalStatus({ status: 'SUCCEEDED', output: {} })).toBe('COMPLETED_ENDED_SUCCESS');
    expect(finalStatus({ status: 'FAILED', error: 'States.Timeout' })).toBe('COMPLETED_TERMINATED');
    expect(finalStatus({ status: 'ABORTED' })).toBe('COMPLETED_TERMINATED');
    expect(finalStatus({ status: 'TIMED_OUT' })).toBe('COMPLETED_TERMINATED');
    expect(finalStatus({ status: 'FAILED', error: 'ActivityUnavailable' })).toBe('COMPLETED_PROCESS_ERROR');
  });
});

describe('tokenRefusal', () => {
  it('refuses an inactive, exhausted, early or late token and accepts the edges of its window', () => {
    expect(tokenRefusal(token, now)).toBeUndefined();
    expect(tokenRefusal({ ...token, status: 'INACTIVE' }, now)?.code).toBe('PROCESS_TOKEN_INACTIVE');
    expect(tokenRefusal({ ...token, maxCount: 1, counter: 1 }, now)?.code).toBe('PROCESS_TOKEN_EXHAUSTED');
    expect(tokenRefusal({ ...token, maxCount: 2, counter: 1 }, now)).toBeUndefined();
    expect(tokenRefusal({ ...token, validFromDtm: '2026-06-01T12:00:00.001Z' }, now)?.code).toBe('PROCESS_TOKEN_NOT_YET_VALID');
    expect(tokenRefusal({ ...token, validFromDtm: now.toISOString() }, now)).toBeUndefined();
    expect(tokenRefusal({ ...token, validToDtm: now.toISOString() }, now)?.code).toBe('PROCESS_TOKEN_EXPIRED');
  });
});

describe('newInstance', () => {
  it('keeps only a hash of a 256-bit capability and expires after the retention', () => {
    const { record, capability } = newInstance(token, definition, { tenantId: 'acme', actor: 'p', now });
    expect(Buffer.from(capability, 'base64url')).toHaveLength(32);
    expect(record.capabilityHash).toBe(hashCapability(capability));
    expect(JSON.stringify(record)).not.toContain(capability);
    expect(record.expiringDtm).toBe('2026-07-01T12:00:00.000Z');
    expect(isExpired(record, new Date('2026-07-01T11:59:59Z'))).toBe(false);
    expect(isExpired(record, new Date('2026-07-01T12:00:00Z'))).toBe(true);
    expect(record).toMatchObject({ status: 'PENDING', retentionDays: 30, parameters: { firstName: 'Ann' } });
  });
});

describe('statusMapped', () => {
  it("labels every status as the family's back office does", () => {
    const labels = Object.fromEntries(INSTANCE_STATUSES.map((s) => [s, statusMappedOf(s)]));
    expect(labels).toEqual({
      PENDING: 'Pending',
      ACTIVE: 'In Progress',
      PAUSED: 'In Progress',
      COMPLETED_ENDED_SUCCESS: 'Accepted',
      COMPLETED_ENDED_ERROR: 'Declined',
      COMPLETED_PROCESS_ERROR: 'Error',
      COMPLETED_TERMINATED: 'Abandoned',
      REVIEW: 'Review',
    });
  });
});

describe('elapsedMilliseconds', () => {
  const createdAt = '2026-06-01T11:00:00.000Z';
  it('counts to now while the journey runs, and to its end once it has ended, in whole milliseconds', () => {
    expect(elapsedMilliseconds({ status: 'PENDING', createdAt, lastUpdatedAt: createdAt }, now)).toBe(3_600_000);
    expect(elapsedMilliseconds({ status: 'ACTIVE', createdAt, lastUpdatedAt: '2026-06-01T11:05:00.000Z' }, now)).toBe(3_600_000);
    const ended = { createdAt, lastUpdatedAt: '2026-06-01T11:20:00.000Z', completedAt: '2026-06-01T11:10:00.250Z' };
    for (const status of ['COMPLETED_ENDED_SUCCESS', 'COMPLETED_ENDED_ERROR', 'COMPLETED_PROCESS_ERROR', 'COMPLETED_TERMINATED', 'REVIEW'] as const) {
      expect(elapsedMilliseconds({ status, ...ended }, now), status).toBe(600_250);
      expect(elapsedMilliseconds({ status, ...ended }, new Date('2030-01-01T00:00:00Z')), status).toBe(600_250);
    }
    // Ended before completedAt was kept: its last change stands in.
    expect(elapsedMilliseconds({ status: 'REVIEW', createdAt, lastUpdatedAt: '2026-06-01T11:20:00.000Z' }, now)).toBe(1_200_000);
    // Never negative (a clock behind the creation's).
    expect(elapsedMilliseconds({ status: 'ACTIVE', createdAt, lastUpdatedAt: createdAt }, new Date('2026-06-01T10:59:59Z'))).toBe(0);
  });

  it('is on the instance read, the read with parameters and a list row, beside statusMapped, and nothing else is new', () => {
    const { record } = newInstance(token, definition, { tenantId: 'acme', actor: 'p', now: new Date('2026-06-01T11:59:58.500Z') });
    const view = instanceView(record, now);
    expect(view).toMatchObject({ status: 'PENDING', statusMapped: 'Pending', elapsedMilliseconds: 1_500 });
    expect(Object.keys(view).sort()).toEqual(
      ['createdAt', 'elapsedMilliseconds', 'expiringDtm', 'firstName', 'id', 'lastUpdatedAt', 'processDefnId', 'processDefnName', 'processDefnVersion', 'processTokenId', 'retentionDays', 'status', 'statusMapped', 'tenantId'].sort(),
    );
    expect(instanceWithParametersView({ ...record, status: 'COMPLETED_TERMINATED', completedAt: '2026-06-01T11:59:59.000Z' }, now)).toMatchObject({ statusMapped: 'Abandoned', elapsedMilliseconds: 500 });
    expect(instanceListItem({ ...record, status: 'COMPLETED_ENDED_ERROR', lastUpdatedAt: '2026-06-01T12:00:00.000Z' }, now)).toMatchObject({ statusMapped: 'Declined', elapsedMilliseconds: 1_500 });
  });
});

describe('a parameter sent as null', () => {
  it('is dropped from the parameters, so a required input that names it finds no value, as for one never sent', () => {
    const parameters = z.parse(ParametersSchema, { storeName: null, firstName: 'Ann', _redirectUrl: null });
    expect(parameters).toEqual({ firstName: 'Ann' });
    expect(Object.hasOwn(parameters, 'storeName')).toBe(false);
    const { record } = newInstance({ ...token, parameters }, definition, { tenantId: 'acme', actor: 'p', now });
    const getUser = activitySpec('GET_USER')!;
    const refused = expect.objectContaining({ name: 'UnresolvedReference', message: expect.stringContaining('Store Name') });
    expect(() => resolveInputs(getUser, { 'Store Name': '${storeName}', 'User ID': 'U1' }, initialSession(record))).toThrow(refused);
    // A null the session holds (a variable set to null on the way) is no value either.
    expect(() => resolveInputs(getUser, { 'Store Name': '${storeName}', 'User ID': 'U1' }, { vars: { storeName: null } })).toThrow(refused);
  });

  it('keeps the other rules: a bad key or an object value is still refused', () => {
    expect(z.safeParse(ParametersSchema, { 'bad key': null }).success).toBe(false);
    expect(z.safeParse(ParametersSchema, { age: { years: 42 } }).success).toBe(false);
    expect(z.parse(ParametersSchema, {})).toEqual({});
  });
});

describe('mergeSession', () => {
  it('merges objects deeply and replaces everything else', () => {
    expect(mergeSession({ vars: { a: 1 }, list: [1], x: 1 }, { vars: { b: 2 }, list: [2], x: { y: 1 } })).toEqual({ vars: { a: 1, b: 2 }, list: [2], x: { y: 1 } });
  });
});

describe('instancesCsv', () => {
  it('quotes as CSV does and neutralises cells a spreadsheet would run', () => {
    const { record } = newInstance({ ...token, parameters: { firstName: '=1+1', lastName: 'O"Neil, Jr', email: '@x', phoneNumber: '-2+3' } }, definition, { tenantId: 'acme', actor: 'p', now });
    const [, row] = instancesCsv([record]).split('\r\n');
    expect(row).toContain(`'=1+1,"O""Neil, Jr",'@x,'-2+3`);
  });

  it('keeps phone numbers and signed numbers as they are, and still guards formulas that start with a sign', () => {
    const { record } = newInstance({ ...token, parameters: { firstName: '+4915123456789', lastName: '-12.5', email: '+cmd|\' /C calc\'!A0', phoneNumber: '+49 (151) 234-567' } }, definition, { tenantId: 'acme', actor: 'p', now });
    const [, row] = instancesCsv([record]).split('\r\n');
    expect(row).toContain(`,+4915123456789,-12.5,'+cmd|' /C calc'!A0,+49 (151) 234-567`);

    for (const kept of ['+4915123456789', '-12.5', '+49 151 2345678', '+1 (555) 010-9999', '-0.5', '-(1)', '+.5']) expect(csvCell(kept), kept).toBe(kept);
    for (const guarded of ['=HYPERLINK("http://x","y")', '+cmd|\' /C calc\'!A0', '@SUM(1)', '-2+3', '+', '-', '- ', '+-', '+1e5', '-1,5', '+49\t151', '=1', '+A1', '-SUM(1)'])
      expect(csvCell(guarded), guarded).toBe(`'${guarded}`);
    // Line by line: a number line stays, a formula line after it is guarded, and the reverse.
    expect(csvCell('+49 151\n=1+1')).toBe("+49 151\n'=1+1");
    expect(csvCell('=1+1\r\n-12.5')).toBe("'=1+1\r\n-12.5");
    expect(csvCell('a\r\r=1')).toBe("a\r'\r'=1");
  });

  it('neutralises a formula after a line break inside a value, and keeps the break inside its quoted cell', () => {
    const { record } = newInstance({ ...token, parameters: { firstName: 'Ann\n=1+1', lastName: 'x\r\n+SUM(A1)', email: 'a\r@b' } }, definition, { tenantId: 'acme', actor: 'p', now });
    const csv = instancesCsv([record]);
    expect(csv).toContain(`"Ann\n'=1+1"`);
    expect(csv).toContain(`"x\r\n'+SUM(A1)"`);
    expect(csv).toContain(`"a\r'@b"`);
    // No line of the file starts with a formula character.
    for (const line of csv.split(/\r\n|\n|\r/)) expect(line).not.toMatch(/^[=+\-@]/);
  });
});

describe('the OpenAPI document', () => {
  it('marks maxProcessDuration deprecated', () => {
    const doc = buildOpenApiDocument(routeList) as any;
    expect(doc.components.schemas.ProcessTokenCreate.properties.maxProcessDuration.deprecated).toBe(true);
    expect(doc.components.schemas.ProcessToken.properties.maxProcessDuration.deprecated).toBe(true);
  });
});
