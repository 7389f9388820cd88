import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { CATALOGUE, activitySpec } from '../../statemachines/catalogue.js';
import { GENERATED_ACTIVITY_INDEX, generatedActivityIndex } from '../../lib/activity-index.js';
import {
  FACE_STEPS,
  FORM_STEPS,
  NOT_RUNNABLE,
  PASSCODE_STEPS,
  PASSKEY_STEPS,
  RUNS,
  SCREENS,
} from '../../functions/activities/index.generated.js';
import { resolveInputs } from '../../functions/activities/inputs.js';
import { activityFunctionAccess } from '../../functions/activities/access.js';
import { runActivity } from '../../functions/activities/run.js';
import type { InputsOf } from '../../functions/activities/spec.js';
import type { spec as getUserSpec } from '../../functions/activities/get-user.js';
import type { spec as pushSpec } from '../../functions/activities/svc-push-notification.js';

const has = (map: object, type: string) => Object.prototype.hasOwnProperty.call(map, type);
const submissions = { ...FORM_STEPS, ...FACE_STEPS, ...PASSCODE_STEPS, ...PASSKEY_STEPS };

describe('the activity modules', () => {
  it('give every catalogue entry an implementation, unless it is marked not runnable', () => {
    const missing: string[] = [];
    for (const spec of CATALOGUE) {
      if (has(NOT_RUNNABLE, spec.type) || spec.kind === 'decider') continue;
      if (spec.kind === 'service' && !has(RUNS, spec.type)) missing.push(`${spec.type}: a service activity with no run function`);
      if (spec.kind === 'user' && !has(SCREENS, spec.type)) missing.push(`${spec.type}: a user step with no screens`);
      if (spec.kind === 'user' && !has(submissions, spec.type)) missing.push(`${spec.type}: a user step with no submission`);
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

  it('are indexed as they are now (npm run build:activities)', async () => {
    const root = resolve(import.meta.dirname, '../..');
    expect(readFileSync(join(root, GENERATED_ACTIVITY_INDEX), 'utf8')).toBe(await generatedActivityIndex(root));
  }, 30_000);

  it("give the activity function the union of the modules' AWS access and no more", () => {
    expect(activityFunctionAccess()).toEqual({ table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], events: true, images: [] });
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
    await expect(runActivity({ activityId: 'a', activityType: 'EXECUTE_CLOUD_FUNCTION_V2', inputs: {}, state }, new Date())).rejects.toMatchObject({
      name: 'ActivityUnavailable',
      message: expect.stringContaining('Execute Cloud Function v2'),
    });
  });

  it('resolves the inputs before the module runs: an unresolved store name fails the step, no store is read', async () => {
    await expect(
      runActivity({ activityId: 'a', activityType: 'GET_USER', inputs: { 'Store Name': '${storeName}', 'User ID': 'U1', 'User Key': 'user1' }, state }, new Date()),
    ).rejects.toMatchObject({ name: 'UnresolvedReference' });
  });
});
