import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { CATALOGUE, activitySpec } from '../../statemachines/catalogue.js';
import { GENERATED_ACTIVITY_INDEX, GENERATED_SPEC_INDEX, generatedIndexes } from '../../lib/activity-index.js';
import {
  FACE_STEPS,
  FORM_STEPS,
  PASSCODE_STEPS,
  PASSKEY_STEPS,
  RESUME_STEPS,
  RUNS,
  SCREENS,
} from '../../functions/activities/index.generated.js';
import { NOT_RUNNABLE } from '../../functions/activities/specs/index.generated.js';
import { resolveInputs } from '../../functions/activities/inputs.js';
import { activityFunctionAccess } from '../../functions/activities/access.js';
import { runActivity } from '../../functions/activities/lambda.js';
import { scopedTenant } from '../../functions/shared/tenant-scope.js';
import { activityFunction } from '../../functions/activities/run.js';
import { activityDeps } from '../../functions/activities/deps.js';
import { stepSubmissionHandler } from '../../functions/journey/submission.js';
import { journeyScreens } from '../../functions/journey/pages.js';
import { journeyRoutes } from '../../functions/journey/journey-routes.js';
import type { ActivityDeps } from '../../functions/activities/contract.js';
import { asActivityError, TRANSIENT_ERROR, TransientActivityError } from '../../functions/activities/contract.js';
import { IdentityStoreNotFoundError } from '../../functions/identity-store/stores/stores.js';
import { ConditionalCheckFailedException, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { keys } from '../../functions/store/keys.js';
import { SESSION_MAX_BYTES, sessionBytes } from '../../functions/shared/session-limit.js';
import type { InputsOf } from '../../functions/activities/spec.js';
import type { spec as getUserSpec } from '../../functions/activities/specs/get-user.js';
import type { spec as pushSpec } from '../../functions/activities/specs/svc-push-notification.js';

const has = (map: object, type: string) => Object.prototype.hasOwnProperty.call(map, type);
const submissions = { ...FORM_STEPS, ...FACE_STEPS, ...PASSCODE_STEPS, ...PASSKEY_STEPS, ...RESUME_STEPS };
/** User steps no page completes, and what does. */
const COMPLETED_OFF_PAGE: Readonly<Record<string, string>> = { REVIEW_FROM_BACK_OFFICE: "a reviewer's decision (POST .../processInstances/{id}/review)" };

describe('the activity modules', () => {
  it('give every catalogue entry an implementation, unless it is marked not runnable', () => {
    const missing: string[] = [];
    for (const spec of CATALOGUE) {
      if (has(NOT_RUNNABLE, spec.type) || spec.kind === 'decider') continue;
      if (spec.kind === 'service' && !has(RUNS, spec.type)) missing.push(`${spec.type}: a service activity with no run function`);
      if (spec.kind === 'user' && !has(SCREENS, spec.type)) missing.push(`${spec.type}: a user step with no screens`);
      if (spec.kind === 'user' && !has(submissions, spec.type) && !has(COMPLETED_OFF_PAGE, spec.type)) missing.push(`${spec.type}: a user step with no submission`);
    }
    expect(missing).toEqual([]);
  });

  it('mark as not runnable only what has no implementation, each with why', () => {
    for (const [type, why] of Object.entries(NOT_RUNNABLE)) {
      expect(activitySpec(type), type).toBeDefined();
      expect(has(RUNS, type) || has(SCREENS, type), type).toBe(false);
      expect(why.length, type).toBeGreaterThan(10);
    }
  });

  it('raise their errors only by names their spec declares (activityError, typed from the spec)', () => {
    const root = resolve(import.meta.dirname, '../..');
    const modules = readdirSync(join(root, 'functions/activities/specs')).filter((f) => !f.endsWith('.generated.ts'));
    const untyped = modules.filter((f) => existsSync(join(root, 'functions/activities', f)) && readFileSync(join(root, 'functions/activities', f), 'utf8').includes('new ActivityError('));
    expect(untyped).toEqual([]);
  });

  it('are indexed as they are now (npm run build:activities)', async () => {
    const root = resolve(import.meta.dirname, '../..');
    const indexes = await generatedIndexes(root);
    expect(readFileSync(join(root, GENERATED_SPEC_INDEX), 'utf8')).toBe(indexes[GENERATED_SPEC_INDEX]);
    expect(readFileSync(join(root, GENERATED_ACTIVITY_INDEX), 'utf8')).toBe(indexes[GENERATED_ACTIVITY_INDEX]);
  }, 30_000);

  it('take their stores from the context the entry point gives, not from a module', async () => {
    // The activity function assembled with a test's own identity store: GET_USER finds the user there.
    const found = { id: 'U1', externalId: 'E1', storeName: 'people', status: 'ACTIVE', passcodes: {}, createdDtm: '2026-01-01T00:00:00Z', lastUpdatedDtm: '2026-01-01T00:00:00Z' };
    const identityStores = {
      ...activityDeps.identityStores,
      stores: { ...activityDeps.identityStores.stores, get: vi.fn(async () => ({ name: 'people' })) },
      users: { ...activityDeps.identityStores.users, get: vi.fn(async () => found) },
    } as unknown as ActivityDeps['identityStores'];
    const run = activityFunction({ runs: RUNS, begins: {}, deps: { ...activityDeps, identityStores } });
    const state = { instance: { tenantId: 'demo', processInstanceId: 'p' }, parameters: {}, vars: {} };
    const after = (await run({ activityId: 'a', activityType: 'GET_USER', inputs: { 'Store Name': 'people', 'User ID': 'U1', 'User Key': 'user1' }, state }, new Date())) as {
      vars: Record<string, unknown>;
    };
    expect(identityStores.users.get).toHaveBeenCalledWith('demo', 'people', { userId: 'U1' });
    expect(after.vars.user1).toMatchObject({ id: 'U1', externalId: 'E1' });
    // A run function the entry point did not register does not run.
    const unregistered = activityFunction({ runs: {}, begins: {}, deps: activityDeps });
    await expect(unregistered({ activityId: 'a', activityType: 'GET_USER', inputs: { 'Store Name': 'people', 'User ID': 'U1', 'User Key': 'user1' }, state }, new Date())).rejects.toMatchObject({
      name: 'ActivityUnavailable',
    });
  });

  it("run each step for its journey's tenant, as the store sees it (the tenant role's session on AWS)", async () => {
    const seen: (string | undefined)[] = [];
    const identityStores = {
      ...activityDeps.identityStores,
      stores: { ...activityDeps.identityStores.stores, get: vi.fn(async () => (seen.push(scopedTenant()), { name: 'people' })) },
      users: { ...activityDeps.identityStores.users, get: vi.fn(async () => undefined) },
    } as unknown as ActivityDeps['identityStores'];
    const run = activityFunction({ runs: RUNS, begins: {}, deps: { ...activityDeps, identityStores } });
    const step = (tenantId: string) =>
      run({ activityId: 'a', activityType: 'GET_USER', inputs: { 'Store Name': 'people', 'User ID': 'U1', 'User Key': 'user1' }, state: { instance: { tenantId, processInstanceId: 'p' }, parameters: {}, vars: {} } }, new Date()).catch(() => undefined);
    await Promise.all([step('alpha'), step('beta')]);
    expect(seen.sort()).toEqual(['alpha', 'beta']);
    expect(scopedTenant()).toBeUndefined();
  });

  it('need the stores their screens and submissions name from the route that shows them (checked by the type checker)', () => {
    // Each line below fails `npm run typecheck` if the route could give fewer stores than its steps use.
    // @ts-expect-error The passcode form's screens and submission use the identity store.
    const passcode = () => stepSubmissionHandler(journeyRoutes.submitPasscodeStep, PASSCODE_STEPS, {});
    // @ts-expect-error The face capture's submission uses the face engine, the image store and its keys.
    const face = () => stepSubmissionHandler(journeyRoutes.submitFaceCapture, FACE_STEPS, { faces: activityDeps.faces });
    // @ts-expect-error The journey page shows the passcode form, whose screen reads the identity store.
    const page = () => journeyScreens(SCREENS, {});
    expect([passcode, face, page].every((f) => typeof f === 'function')).toBe(true);
  });

  it("give the activity function the union of the modules' AWS access and no more", () => {
    expect(activityFunctionAccess()).toEqual({
      table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
      images: ['GetObject', 'PutObject'],
      cloudFunctions: true,
      // Cloud function steps, and Document Processor reading a tenant's Regula service from its secret.
      cloudSecrets: true,
      faces: ['DetectFaces', 'CompareFaces', 'SearchFacesByImage'],
      // Document Processor, where the deployment reads documents with Textract.
      documents: ['AnalyzeID'],
      // A custom page step records where its page is served.
      pagesOrigin: true,
      // Face Template Generation runs the embedded face model in the function.
      faceModel: true,
    });
  });
});

describe('resolveInputs', () => {
  const getUser = activitySpec('GET_USER')!;
  const session = { instance: { tenantId: 'demo', processInstanceId: 'p' }, parameters: { store: 'customers', n: '7' }, vars: { user1: { id: 'U1' } } };

  it('resolves references and applies defaults before a module sees its inputs', () => {
    expect(resolveInputs(getUser, { 'Store Name': '${store}', 'User ID': '${user1.id}' }, session)).toEqual({
      'Store Name': 'customers',
      'User ID': 'U1',
      'User Key': 'user1',
    });
  });

  it('fails the step with UnresolvedReference when a required input refers to nothing (never the string "undefined")', () => {
    expect(() => resolveInputs(getUser, { 'Store Name': '${storeName}', 'User ID': 'U1' }, session)).toThrow(
      expect.objectContaining({ name: 'UnresolvedReference', message: expect.stringContaining('Store Name') }),
    );
  });

  it('treats an optional input that refers to nothing as not given, and a missing required one as MissingInput', () => {
    expect(resolveInputs(getUser, { 'Store Name': 'customers', 'User External ID': '${nobody}' }, session)).toEqual({
      'Store Name': 'customers',
      'User Key': 'user1',
    });
    expect(() => resolveInputs(getUser, {}, session)).toThrow(expect.objectContaining({ name: 'MissingInput' }));
  });

  it('reads integers and booleans from their string forms, and refuses what is not of the type or out of bounds', () => {
    const push = activitySpec('SVC_PUSH_NOTIFICATION')!;
    const base = { 'Relying Party ID': 'rp', 'Store Name': 's', 'Time To Live (Seconds)': '${n}0' };
    expect(() => resolveInputs(push, base, session)).toThrow(expect.objectContaining({ name: 'InvalidInput' }));
    const ok = resolveInputs(push, { ...base, 'Time To Live (Seconds)': '600', 'Monitor Push Notification Process': 'false' }, session);
    expect(ok['Time To Live (Seconds)']).toBe(600);
    expect(ok['Monitor Push Notification Process']).toBe(false);
    expect(ok['Retry Hint Duration (Seconds)']).toBe(60);
    expect(() => resolveInputs(push, { ...base, 'Time To Live (Seconds)': '${n}' }, session)).toThrow(
      expect.objectContaining({ name: 'InvalidInput', message: expect.stringContaining('at least 60') }),
    );
  });

  it('types the inputs from the spec', () => {
    type GetUser = InputsOf<typeof getUserSpec>;
    expectTypeOf<GetUser['Store Name']>().toEqualTypeOf<string>();
    expectTypeOf<GetUser['User Key']>().toEqualTypeOf<string>();
    expectTypeOf<GetUser['User ID']>().toEqualTypeOf<string | undefined>();
    type Push = InputsOf<typeof pushSpec>;
    expectTypeOf<Push['Time To Live (Seconds)']>().toEqualTypeOf<number>();
    expectTypeOf<Push['Retry Hint Duration (Seconds)']>().toEqualTypeOf<number>();
    expectTypeOf<Push['Monitor Push Notification Process']>().toEqualTypeOf<boolean>();
  });
});

describe('runActivity', () => {
  const state = { instance: { tenantId: 'demo', processInstanceId: 'p' }, parameters: {}, vars: {} };
  afterEach(() => {
    vi.restoreAllMocks();
    delete process.env.POWERTOOLS_METRICS_DISABLED;
  });

  it('counts a failed step by its activity type (EMF ActivityErrors)', async () => {
    process.env.POWERTOOLS_METRICS_DISABLED = 'false';
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
    await expect(runActivity({ activityId: 'a', activityType: 'GET_USER', inputs: { 'Store Name': '${nope}' }, state }, new Date())).rejects.toThrow();
    const emf = lines.flatMap((l) => l.split('\n')).filter((l) => l.includes('"ActivityErrors"')).map((l) => JSON.parse(l));
    expect(emf).toEqual([expect.objectContaining({ ActivityErrors: 1, activityType: 'GET_USER', tenantId: 'demo' })]);
  });

  it('fails an activity marked not runnable with ActivityUnavailable, saying why', async () => {
    await expect(runActivity({ activityId: 'a', activityType: 'ARCHIVE_PROCESS_INSTANCE', inputs: {}, state }, new Date())).rejects.toMatchObject({
      name: 'ActivityUnavailable',
      message: expect.stringContaining('Archive Process Instance'),
    });
  });

  it('resolves the inputs before the module runs: an unresolved store name fails the step, no store is read', async () => {
    await expect(
      runActivity({ activityId: 'a', activityType: 'GET_USER', inputs: { 'Store Name': '${storeName}', 'User ID': 'U1', 'User Key': 'user1' }, state }, new Date()),
    ).rejects.toMatchObject({ name: 'UnresolvedReference' });
  });

  it('reads inputs as the compiler writes them now (JSON text) as well as state machines compiled before (an object)', async () => {
    const inputs = { 'Store Name': '${storeName}', 'User ID': 'U1', 'User Key': 'user1' };
    for (const form of [inputs, JSON.stringify(inputs)]) {
      await expect(runActivity({ activityId: 'a', activityType: 'GET_USER', inputs: form, state }, new Date())).rejects.toMatchObject({
        name: 'UnresolvedReference',
        message: expect.stringContaining('Store Name'),
      });
    }
  });
});

describe('asActivityError', () => {
  it('names throttles, timeouts, 5xx and dropped connections Activity.Transient, and leaves other errors as they are', () => {
    const throttle = new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: { httpStatusCode: 400 } });
    const mapped = asActivityError(throttle);
    expect(mapped).toBeInstanceOf(TransientActivityError);
    expect(mapped).toMatchObject({ name: TRANSIENT_ERROR, message: 'ProvisionedThroughputExceededException: slow down', cause: throttle });
    expect(asActivityError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toMatchObject({ name: 'Activity.Transient' });
    expect(asActivityError(Object.assign(new Error('boom'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } }))).toMatchObject({ name: 'Activity.Transient' });
    expect(asActivityError(Object.assign(new Error('late'), { name: 'TimeoutError' }))).toMatchObject({ name: 'Activity.Transient' });
    const conflict = Object.assign(new Error('cancelled'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }] });
    expect(asActivityError(conflict)).toMatchObject({ name: 'Activity.Transient' });
    // A transaction cancelled for an item's throughput wrote nothing: a throttle.
    const throttled = Object.assign(new Error('cancelled'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'None' }, { Code: 'ThrottlingError' }] });
    expect(asActivityError(throttled)).toMatchObject({ name: 'Activity.Transient' });

    // Not transient: a failed condition is an answer, and a domain error keeps its stable name.
    const condition = new ConditionalCheckFailedException({ message: 'no', $metadata: { httpStatusCode: 400 } });
    expect(asActivityError(condition)).toBe(condition);
    const refused = Object.assign(new Error('cancelled'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'TransactionConflict' }] });
    expect(asActivityError(refused)).toBe(refused);
    expect(asActivityError(new IdentityStoreNotFoundError('x'))).toMatchObject({ name: 'StoreNotFound' });
    const plain = new TypeError('bug');
    expect(asActivityError(plain)).toBe(plain);
  });
});

describe('runActivity on a throttled table', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  const state = { instance: { tenantId: 'demo', processInstanceId: 'p1' }, parameters: {}, vars: {} };
  const tableName = process.env.TABLE_NAME;
  beforeAll(() => {
    process.env.TABLE_NAME = 'unit';
  });
  afterAll(() => {
    ddb.restore();
    if (tableName === undefined) delete process.env.TABLE_NAME;
    else process.env.TABLE_NAME = tableName;
  });
  beforeEach(() => ddb.reset());

  it('fails a service step with Activity.Transient, which its Task retries', async () => {
    ddb.on(GetCommand).rejects(new ProvisionedThroughputExceededException({ message: 'Rate of requests exceeds the allowed throughput.', $metadata: {} }));
    await expect(
      runActivity({ activityId: 'a', activityType: 'GET_USER', inputs: { 'Store Name': 'customers', 'User ID': 'U1', 'User Key': 'user1' }, state }, new Date()),
    ).rejects.toMatchObject({ name: 'Activity.Transient' });
    expect(ddb.commandCalls(GetCommand)).toHaveLength(1);
  });

  it('fails a user step whose waiting step cannot be written for throttling with Activity.Transient', async () => {
    const instance = { ...keys.instance('demo', 'p1'), itemType: 'ProcessInstance', tenantId: 'demo', id: 'p1', processDefnId: 'd', processDefnName: 'n', processDefnVersion: 1, status: 'ACTIVE', expiresAt: 2e9 };
    ddb.on(GetCommand).resolves({ Item: instance });
    // The step, the instance's stamp and the step's event are one transaction, cancelled for throughput.
    ddb.on(TransactWriteCommand).rejects(
      Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'ThrottlingError' }, { Code: 'None' }, { Code: 'None' }] }),
    );
    await expect(
      runActivity({ activityId: 'face', activityType: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': 'face' }, state, taskToken: 't' }, new Date()),
    ).rejects.toMatchObject({ name: 'Activity.Transient' });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });
});

describe('runActivity and the session cap', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  const tableName = process.env.TABLE_NAME;
  const stamp = '2026-06-01T12:00:00.000Z';
  beforeAll(() => {
    process.env.TABLE_NAME = 'unit';
  });
  afterAll(() => {
    ddb.restore();
    if (tableName === undefined) delete process.env.TABLE_NAME;
    else process.env.TABLE_NAME = tableName;
  });
  beforeEach(() => {
    ddb.reset();
    ddb.on(GetCommand, { Key: keys.identityStore('demo', 'customers') }).resolves({
      Item: { itemType: 'IdentityStore', tenantId: 'demo', name: 'customers', description: '', type: 'STANDARD', passcodePolicies: {}, passkeyConfig: {}, createdDtm: stamp, createdBy: 'op', lastUpdatedDtm: stamp, lastUpdatedBy: 'op', version: 1 },
    });
    ddb.on(GetCommand, { Key: keys.identityUser('demo', 'customers', 'U1') }).resolves({
      Item: { itemType: 'IdentityUser', tenantId: 'demo', storeName: 'customers', id: 'U1', externalId: 'ext-1', status: 'ACTIVE', passcodes: {}, createdDtm: stamp, createdBy: 'op', lastUpdatedDtm: stamp },
    });
  });
  /** A session `slack` bytes under the cap. */
  const nearCap = (slack: number) => {
    const base = { instance: { tenantId: 'demo', processInstanceId: 'p1' }, parameters: {}, vars: { notes: '' } };
    const session = { ...base, vars: { notes: 'n'.repeat(SESSION_MAX_BYTES - slack - sessionBytes(base)) } };
    expect(sessionBytes(session)).toBe(SESSION_MAX_BYTES - slack);
    return session;
  };
  const lookup = (state: object) =>
    runActivity({ activityId: 'lookup', activityType: 'GET_USER', inputs: { 'Store Name': 'customers', 'User ID': 'U1', 'User Key': 'user1' }, state }, new Date());

  it('returns a session that stays within the cap', async () => {
    const out = (await lookup(nearCap(1000))) as { vars: { user1: { id: string } } };
    expect(out.vars.user1.id).toBe('U1');
    expect(sessionBytes(out)).toBeLessThanOrEqual(SESSION_MAX_BYTES);
  });

  it('fails the step as SessionTooLarge when its result would make the session larger than the cap', async () => {
    await expect(lookup(nearCap(50))).rejects.toMatchObject({
      name: 'SessionTooLarge',
      message: expect.stringMatching(/^lookup would make the session \d+ bytes; a journey's session may be at most 196608\.$/),
    });
  });
});

describe('ADD_USER and retries', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  const tableName = process.env.TABLE_NAME;
  const stamp = '2026-06-01T12:00:00.000Z';
  const state = { instance: { tenantId: 'demo', processInstanceId: 'p1' }, parameters: {}, vars: {} };
  const add = () =>
    runActivity({ activityId: 'add', activityType: 'ADD_USER', inputs: { 'External ID': 'ext-1', 'Store Name': 'customers', 'User Key': 'user1' }, state }, new Date(stamp));
  const cancelled = (...codes: string[]) =>
    Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException', CancellationReasons: codes.map((Code) => ({ Code })) });
  const userBy = (createdBy: string) => ({
    Item: { itemType: 'IdentityUser', tenantId: 'demo', storeName: 'customers', id: 'U1', externalId: 'ext-1', status: 'ACTIVE', passcodes: {}, createdDtm: stamp, createdBy, lastUpdatedDtm: stamp },
  });
  beforeAll(() => {
    process.env.TABLE_NAME = 'unit';
  });
  afterAll(() => {
    ddb.restore();
    if (tableName === undefined) delete process.env.TABLE_NAME;
    else process.env.TABLE_NAME = tableName;
  });
  beforeEach(() => {
    ddb.reset();
    ddb.on(GetCommand, { Key: keys.identityStore('demo', 'customers') }).resolves({
      Item: { itemType: 'IdentityStore', tenantId: 'demo', name: 'customers', description: '', type: 'STANDARD', passcodePolicies: {}, passkeyConfig: {}, createdDtm: stamp, createdBy: 'op', lastUpdatedDtm: stamp, lastUpdatedBy: 'op', version: 1 },
    });
    ddb.on(GetCommand, { Key: keys.identityUserExternalId('demo', 'customers', 'ext-1') }).resolves({ Item: { itemType: 'IdentityUserExternalId', userId: 'U1' } });
  });

  it('fails a throttled write as Activity.Transient (retried), not as its error event AddUserFailed', async () => {
    ddb.on(TransactWriteCommand).rejects(new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} }));
    await expect(add()).rejects.toMatchObject({ name: 'Activity.Transient' });
  });

  it('takes the user this journey added as added, when a retry meets its own first write', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed', 'None'));
    ddb.on(GetCommand, { Key: keys.identityUser('demo', 'customers', 'U1') }).resolves(userBy('journey:p1'));
    expect(await add()).toMatchObject({ vars: { user1: { id: 'U1', externalId: 'ext-1' } } });
  });

  it('still fails as ExtIdNotUnique when another journey or caller added the external id', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed', 'None'));
    ddb.on(GetCommand, { Key: keys.identityUser('demo', 'customers', 'U1') }).resolves(userBy('journey:other'));
    await expect(add()).rejects.toMatchObject({ name: 'ExtIdNotUnique' });
  });
});
