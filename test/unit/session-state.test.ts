import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { SFNClient, SendTaskSuccessCommand } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runActivity } from '../../functions/activities/lambda.js';
import { completeUserStep } from '../../functions/journey/steps.js';
import { stepFunctionsOrchestrator } from '../../functions/process-manager/executions/step-functions.js';
import type { ProcessInstanceRecord } from '../../functions/process-manager/model.js';
import { keys } from '../../functions/store/keys.js';
import { normaliseKeep, overlay, pathSegments, project, stateFor } from '../../functions/shared/session-state.js';
import { instanceOf } from '../../functions/process-manager/instances/status.js';

describe('session-state', () => {
  it('reads the JSONPaths the compiler writes, and refuses others', () => {
    expect(pathSegments("$.vars['odd key'].list[2]._x")).toEqual(['vars', 'odd key', 'list', 2, '_x']);
    expect(() => pathSegments('$.vars..x')).toThrow();
    expect(() => pathSegments('vars.x')).toThrow();
  });

  it('keeps each path once, sorted, an array whole, and none that another covers', () => {
    expect(normaliseKeep(['$.vars.b', '$._decision', '$.vars.a.x', '$.vars.a', '$.vars.list[0].y', '$.vars.b'])).toEqual([
      '$._decision',
      '$.vars.a',
      '$.vars.b',
      '$.vars.list',
    ]);
    expect(normaliseKeep(['$.vars.z', '$.vars.a'])).toEqual(normaliseKeep(['$.vars.a', '$.vars.z']));
  });

  it('projects only the kept paths, and a state names its instance by its reference', () => {
    const session = { instance: { tenantId: 't', processInstanceId: 'p' }, vars: { name: 'Ann', channel: 'web', list: [1, 2] }, _checks: { f: { result: 'PASS', score: 1 } } };
    const state = stateFor({ tenantId: 't', processInstanceId: 'p', v: 4 }, session, ['$._checks.f.result', '$._decision', '$.vars.channel', '$.vars.list']);
    expect(state).toEqual({ _ref: { tenantId: 't', processInstanceId: 'p', v: 4 }, vars: { channel: 'web', list: [1, 2] }, _checks: { f: { result: 'PASS' } } });
    expect(project({ _ref: 'forged', vars: {} }, ['$._ref'])).toEqual({ _ref: 'forged' });
    expect(stateFor({ tenantId: 't', processInstanceId: 'p', v: 1 }, { _ref: 'forged' }, ['$._ref'])._ref).toEqual({ tenantId: 't', processInstanceId: 'p', v: 1 });
    expect(instanceOf(state)).toEqual({ tenantId: 't', processInstanceId: 'p' });
  });

  it('projects a path named like an Object.prototype member as absent when the session lacks it', () => {
    // A condition `${constructor == null}` keeps $.vars.constructor; the session has no such variable.
    const keep = ['$.vars.constructor', '$.toString', "$.vars['valueOf'].x"];
    expect(project({ vars: { a: 1 } }, keep)).toEqual({});
    expect(project({ vars: { constructor: 'set' } }, keep)).toEqual({ vars: { constructor: 'set' } });
    expect(project({ vars: { valueOf: { x: 2 } } }, keep)).toEqual({ vars: { valueOf: { x: 2 } } });
  });

  it('overlays a state key named __proto__ as a member, never as a prototype', () => {
    const merged = overlay({ vars: {} }, JSON.parse('{"_ref":{},"vars":{"__proto__":{"polluted":true}}}'));
    expect(Object.getPrototypeOf(merged.vars)).toBe(Object.prototype);
    expect((merged.vars as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.hasOwn(merged.vars as object, '__proto__')).toBe(true);
  });

  it('overlays what the state machine wrote since over the stored version', () => {
    const stored = { vars: { name: 'Ann', code: 'old' }, _checks: { f: { result: 'PASS' } } };
    const state = { _ref: { tenantId: 't', processInstanceId: 'p', v: 2 }, vars: { code: 'E1' }, _lastError: { Error: 'X', Cause: 'why' }, _decision: 'FAIL' };
    expect(overlay(stored, state)).toEqual({ vars: { name: 'Ann', code: 'E1' }, _checks: { f: { result: 'PASS' } }, _lastError: { Error: 'X', Cause: 'why' }, _decision: 'FAIL' });
  });
});

const ddb = mockClient(DynamoDBDocumentClient);
const sfn = mockClient(SFNClient);
const tableName = process.env.TABLE_NAME;
const stamp = '2026-06-01T12:00:00.000Z';
const now = new Date(stamp);
const FAR = Math.floor(now.getTime() / 1000) + 3600;
const stored = (v: number, session: Record<string, unknown>, expiresAt = FAR) =>
  ddb.on(GetCommand, { Key: keys.instanceSession('demo', 'p1', v) }).resolves({ Item: { ...keys.instanceSession('demo', 'p1', v), itemType: 'Session', data: JSON.stringify(session), expiresAt } });
const SESSION = { instance: { tenantId: 'demo', processInstanceId: 'p1' }, parameters: { lastName: 'Quonsett' }, vars: { lastName: 'Quonsett', form: { name: 'Ann Example' } }, _checks: {}, _faces: {} };
const lookup = (state: object, keep: string[] | undefined = ['$._decision', '$._lastError', '$.vars.code', '$.vars.user1.status']) =>
  runActivity(
    { activityId: 'lookup', activityType: 'GET_USER', inputs: { 'Store Name': 'customers', 'User ID': 'U1', 'User Key': 'user1' }, ...(keep ? { keep } : {}), state },
    now,
  );
const written = () => ddb.commandCalls(PutCommand).map((c) => c.args[0].input.Item as { SK: string; data: string; expiresAt: number });
const deleted = () => ddb.commandCalls(DeleteCommand).map((c) => (c.args[0].input.Key as { SK: string }).SK);

beforeAll(() => {
  process.env.TABLE_NAME = 'unit';
});
afterAll(() => {
  ddb.restore();
  sfn.restore();
  if (tableName === undefined) delete process.env.TABLE_NAME;
  else process.env.TABLE_NAME = tableName;
});
beforeEach(() => {
  ddb.reset();
  sfn.reset();
  // No item unless a test stores one.
  ddb.on(GetCommand).resolves({});
  ddb.on(GetCommand, { Key: keys.identityStore('demo', 'customers') }).resolves({
    Item: { itemType: 'IdentityStore', tenantId: 'demo', name: 'customers', description: '', type: 'STANDARD', passcodePolicies: {}, passkeyConfig: {}, createdDtm: stamp, createdBy: 'op', lastUpdatedDtm: stamp, lastUpdatedBy: 'op', version: 1 },
  });
  ddb.on(GetCommand, { Key: keys.identityUser('demo', 'customers', 'U1') }).resolves({
    Item: { itemType: 'IdentityUser', tenantId: 'demo', storeName: 'customers', id: 'U1', externalId: 'ext-1', status: 'ACTIVE', passcodes: {}, createdDtm: stamp, createdBy: 'op', lastUpdatedDtm: stamp },
  });
  ddb.on(PutCommand).resolves({});
  ddb.on(DeleteCommand).resolves({});
});

describe('runActivity with the session in the table', () => {
  const state = { _ref: { tenantId: 'demo', processInstanceId: 'p1', v: 3 }, vars: { code: 'E1' }, _lastError: { Error: 'UserNotFound', Cause: 'no such user' } };

  it('reads the version the state names, overlays the state, writes the next version with the same TTL and answers with the reference and the projection', async () => {
    stored(3, SESSION, FAR);
    const out = await lookup(state);
    expect(out).toEqual({ _ref: { tenantId: 'demo', processInstanceId: 'p1', v: 4 }, vars: { code: 'E1', user1: { status: 'ACTIVE' } }, _lastError: state._lastError });
    expect(JSON.stringify(out)).not.toMatch(/Ann Example|Quonsett/);
    const [put] = written();
    expect(put!.SK).toBe('SESSION#000000004');
    expect(put!.expiresAt).toBe(FAR);
    const next = JSON.parse(put!.data) as typeof SESSION & { vars: Record<string, unknown>; _lastError: unknown };
    expect(next.vars).toMatchObject({ lastName: 'Quonsett', form: { name: 'Ann Example' }, code: 'E1', user1: { id: 'U1' } });
    expect(next._lastError).toEqual(state._lastError);
    // Writing v4 deletes v2; v3 stays for a retry of this step.
    expect(deleted()).toEqual(['SESSION#000000002']);
  });

  it('runs a retried attempt on the same version again, and writes the same next version over the first', async () => {
    stored(3, SESSION);
    const first = await lookup(state);
    const second = await lookup(state);
    expect(second).toEqual(first);
    const puts = written();
    expect(puts.map((p) => p.SK)).toEqual(['SESSION#000000004', 'SESSION#000000004']);
    expect(puts[1]!.data).toBe(puts[0]!.data);
    const reads = ddb.commandCalls(GetCommand).map((c) => (c.args[0].input.Key as { SK: string }).SK).filter((sk) => sk.startsWith('SESSION#'));
    expect(reads).toEqual(['SESSION#000000003', 'SESSION#000000003']);
  });

  it('deletes nothing when it writes version 1', async () => {
    stored(0, SESSION);
    await lookup({ _ref: { tenantId: 'demo', processInstanceId: 'p1', v: 0 } });
    expect(written().map((p) => p.SK)).toEqual(['SESSION#000000001']);
    expect(deleted()).toEqual([]);
  });

  it('fails the step as SessionNotFound when the version is gone, or past its TTL', async () => {
    await expect(lookup(state)).rejects.toMatchObject({ name: 'SessionNotFound' });
    stored(3, SESSION, Math.floor(now.getTime() / 1000) - 1);
    await expect(lookup(state)).rejects.toMatchObject({ name: 'SessionNotFound' });
    expect(written()).toEqual([]);
  });

  it('answers an execution that carries the whole session (started before) with the whole new session, touching no version', async () => {
    const out = (await lookup(SESSION, undefined)) as typeof SESSION & { vars: Record<string, unknown> };
    expect(out.vars).toMatchObject({ form: { name: 'Ann Example' }, user1: { id: 'U1' } });
    expect(written()).toEqual([]);
  });
});

describe('completeUserStep with the session in the table', () => {
  const record = {
    tenantId: 'demo',
    id: 'p1',
    status: 'ACTIVE',
    expiresAt: FAR,
    currentStep: {
      activityId: 'form',
      activityType: 'DATA_FORM',
      inputs: {},
      state: SESSION,
      ref: { v: 1, keep: ['$._decision', '$.vars.form.country'] },
      taskToken: 'tok-1',
      since: stamp,
    },
  } as unknown as ProcessInstanceRecord;

  it('stores the next version before the hand-over and sends Step Functions only the reference and the projection', async () => {
    const order: string[] = [];
    ddb.on(PutCommand).callsFake((input: { Item: { SK: string } }) => (order.push(`put ${input.Item.SK}`), {}));
    ddb.on(TransactWriteCommand).resolves({});
    sfn.on(SendTaskSuccessCommand).callsFake((input: { output: string }) => (order.push(`send ${input.output}`), {}));
    await completeUserStep(
      { tenantId: 'demo', processInstanceId: 'p1', activityId: 'form', result: { vars: { form: { name: 'Bob Entered', country: 'DE' } } }, record },
      stepFunctionsOrchestrator(),
      now,
    );
    expect(order).toEqual(['put SESSION#000000002', 'send {"vars":{"form":{"country":"DE"}},"_ref":{"tenantId":"demo","processInstanceId":"p1","v":2}}']);
    const next = JSON.parse(written()[0]!.data) as { vars: { form: Record<string, string> } };
    expect(next.vars.form).toEqual({ name: 'Bob Entered', country: 'DE' });
    expect(written()[0]!.expiresAt).toBe(FAR);
    // Written only where no activity wrote: the condition names this task as the writer.
    const put = ddb.commandCalls(PutCommand)[0]!.args[0].input;
    expect(put.ConditionExpression).toBe('attribute_not_exists(PK) OR writer = :writer');
    expect((put.Item as { writer: string }).writer).toBe(put.ExpressionAttributeValues![':writer']);
    expect((put.Item as { writer: string }).writer).not.toContain('tok-1');
  });

  it('sends nothing and finishes the step when the execution already wrote that version (it went on by a timer route)', async () => {
    const conditionFailed = Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });
    ddb.on(PutCommand).rejects(conditionFailed);
    const transacts: string[] = [];
    ddb.on(TransactWriteCommand).callsFake((input: { TransactItems: Record<string, { Key?: { SK: string }; Item?: { SK: string } }>[] }) => {
      transacts.push(input.TransactItems.map((i) => Object.values(i)[0]!.Key?.SK ?? Object.values(i)[0]!.Item?.SK).join(', '));
      return {};
    });
    await completeUserStep(
      { tenantId: 'demo', processInstanceId: 'p1', activityId: 'form', result: { vars: { form: { country: 'FR' } } }, record },
      stepFunctionsOrchestrator(),
      now,
    );
    expect(sfn.commandCalls(SendTaskSuccessCommand)).toHaveLength(0);
    // Claimed, then finished: what the end user gave is kept.
    expect(transacts).toEqual(['PISTEP, STEPCLAIM#form', 'STEPCLAIM#form, USERDATA#form, PI, PISTEP']);
  });
});
