/**
 * State machines shared across tenants, against Amazon's DynamoDB Local (the table made from the
 * stack's schema module): each state machine's reference item counts the DEPLOYED_ACTIVE versions
 * of every tenant that use it, moved in the transaction of the version's status change; the
 * janitor's claim and an activation exclude each other; the janitor's lease and checkpoint.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureTable, localClient, startDynamoDbLocal, type LocalDynamo } from '../../lib/local/dynamodb.js';
import { resetConfigForTests } from '../../functions/config.js';
import { toErrorResponse } from '../../functions/errors.js';
import { stateMachineName } from '../../functions/process-manager/executions/state-machine-names.js';
import type { Orchestrator, ProcessDefinitionRecord, StateMachineRefStore } from '../../functions/process-manager/model.js';
import { compileDefinition } from '../../statemachines/compile.js';
import { EXAMPLE_FORMS, exampleDefinitions } from '../../statemachines/examples/index.js';

let local: LocalDynamo;
let client: DynamoDBClient;
let dir: string;
let refs: StateMachineRefStore;
let definitions: typeof import('../../functions/store/process-definitions.js').definitionStore;
let domain: typeof import('../../functions/process-manager/definitions/definitions.js');
let publish: typeof import('../../functions/process-manager/definitions/publish.js');
const saved = { ...process.env };
const NOW = new Date('2026-06-01T00:00:00.000Z');
const LATER = new Date('2026-06-03T00:00:00.000Z');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'state-machine-refs-'));
  local = await startDynamoDbLocal(dir);
  process.env = { ...saved, DYNAMODB_ENDPOINT: local.endpoint, TABLE_NAME: 'refs-unit', SERVICE_REGION: 'fir', SERVICE_DOMAIN: 'example.com', TOKEN_ISSUER: 'https://issuer.example.com', TOKEN_AUDIENCE: 'arthr-api', SIGNING_KEY: 'kms:k' };
  resetConfigForTests();
  client = localClient(local.endpoint);
  await ensureTable(client, 'refs-unit');
  ({ stateMachineRefStore: refs } = await import('../../functions/store/state-machine-refs.js'));
  ({ definitionStore: definitions } = await import('../../functions/store/process-definitions.js'));
  domain = await import('../../functions/process-manager/definitions/definitions.js');
  publish = await import('../../functions/process-manager/definitions/publish.js');
}, 90_000);

afterAll(async () => {
  process.env = saved;
  resetConfigForTests();
  client?.destroy();
  await local?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Step Functions as an activation sees it: names by the ASL's hash, counts CreateStateMachine, runs `onCreate` inside it. */
function fakeOrchestrator(onCreate: (name: string, call: number) => Promise<void> = async () => {}) {
  const created: string[] = [];
  const o = {
    created,
    stateMachineName: (asl: object) => stateMachineName('fir', JSON.stringify(asl)),
    async publishStateMachine({ asl }: { asl: object }) {
      const name = o.stateMachineName(asl);
      created.push(name);
      await onCreate(name, created.length);
      return `arn:aws:states:eu-west-1:111122223333:stateMachine:${name}`;
    },
  };
  return { o, orchestrator: async () => o as unknown as Orchestrator };
}

/** The tenants' data forms: each example form, active. */
const forms = {
  latestVersion: async (_t: string, name: string) => EXAMPLE_FORMS.filter((f) => f.name === name).reduce<number | undefined>((m, f) => Math.max(m ?? 0, f.version), undefined),
  getVersion: async (_t: string, name: string, version: number) => (EXAMPLE_FORMS.some((f) => f.name === name && f.version === version) ? ({ id: `${name}@${version}` } as never) : undefined),
  get: async (_t: string, id: string) => {
    const form = EXAMPLE_FORMS.find((f) => `${f.name}@${f.version}` === id);
    return form ? ({ ...form, id, status: 'DEPLOYED_ACTIVE' } as never) : undefined;
  },
};
/** No themes: these definitions name none. */
const themes = { get: async () => undefined };
const [identity, passcode] = exampleDefinitions();
const ctx = (tenantId: string, now = NOW) => ({ tenantId, actor: 'apikey:k', now });
/** The name every tenant's identity-check compiles to on this deployment. */
const identityMachine = () =>
  stateMachineName('fir', JSON.stringify(compileDefinition(identity!, { activityFunctionArn: 'arn:aws:lambda:local:000000000000:function:arthr-activities', executionEndFunctionArn: 'arn:aws:lambda:local:000000000000:function:arthr-execution-end' })));

let seq = 0;
/** A tenant no other test touches. */
const tenant = () => `t${++seq}-${Math.random().toString(36).slice(2, 8)}`;

describe('state machines shared by every tenant, counted by their active versions', () => {
  beforeEach(() => resetConfigForTests());

  it('puts every tenant\u2019s and every version\u2019s identical journey on one state machine, counting each active version once', async () => {
    const { o, orchestrator } = fakeOrchestrator();
    const d = { definitions, stateMachines: refs, orchestrator, forms, themes };
    const before = (await refs.get(identityMachine()))?.users ?? 0;
    const [a, b] = [tenant(), tenant()];
    const va = await publish.publishDefinition(d, structuredClone(identity!), ctx(a));
    const vb = await publish.publishDefinition(d, structuredClone(identity!), ctx(b));
    const vb2 = await publish.publishDefinition(d, { ...structuredClone(identity!), version: 2, description: 'the same journey again' }, ctx(b));
    // One state machine, whoever publishes which version of it; a different journey gets its own.
    expect(new Set([va, vb, vb2].map((v) => v.record.stateMachineArn)).size).toBe(1);
    expect(va.record.stateMachineName).toBe(identityMachine());
    const other = await publish.publishDefinition(d, structuredClone(passcode!), ctx(a));
    expect(other.record.stateMachineName).not.toBe(identityMachine());
    expect(new Set(o.created)).toEqual(new Set([identityMachine(), other.record.stateMachineName]));
    expect((await refs.get(identityMachine()))!.users).toBe(before + 3);

    // Leaving DEPLOYED_ACTIVE uncounts, coming back counts again; setting the same status changes nothing.
    const set = (tenantId: string, id: string, status: 'DEPLOYED_ACTIVE' | 'DEPLOYED_INACTIVE' | 'ARCHIVED') =>
      domain.setDefinitionStatus(d, { tenantId, definitionId: id, status, actor: 'apikey:k', now: LATER });
    await set(a, va.record.id, 'DEPLOYED_INACTIVE');
    await set(a, va.record.id, 'DEPLOYED_INACTIVE');
    expect((await refs.get(identityMachine()))!.users).toBe(before + 2);
    const back = await set(a, va.record.id, 'DEPLOYED_ACTIVE');
    expect(back.stateMachineArn).toBe(va.record.stateMachineArn);
    expect((await refs.get(identityMachine()))!.users).toBe(before + 3);
    await set(b, vb.record.id, 'ARCHIVED');
    await set(b, vb2.record.id, 'DEPLOYED_INACTIVE');
    await set(b, vb2.record.id, 'ARCHIVED');
    const ref = (await refs.get(identityMachine()))!;
    expect(ref.users).toBe(before + 1);
    expect(ref.changedAt).toBe(LATER.toISOString());
  });

  it('gives a DRAFT no state machine until it becomes DEPLOYED_ACTIVE, then records it on the version', async () => {
    const { o, orchestrator } = fakeOrchestrator();
    const d = { definitions, stateMachines: refs, orchestrator, forms, themes };
    const t = tenant();
    const draft: ProcessDefinitionRecord = {
      tenantId: t, id: `draft-${t}`, name: 'passcode-registration', version: 4, description: '', retentionDays: 90,
      status: 'DRAFT', format: 'BPMN', createdDtm: NOW.toISOString(), createdBy: 'apikey:k',
    };
    expect(await definitions.create(draft, { definition: { ...structuredClone(passcode!), version: 4 } })).toEqual({ outcome: 'written' });
    expect(o.created).toEqual([]);
    const stored = await definitions.get(t, draft.id);
    expect(stored?.stateMachineArn).toBeUndefined();

    const name = stateMachineName('fir', JSON.stringify(compileDefinition(passcode!, { activityFunctionArn: 'arn:aws:lambda:local:000000000000:function:arthr-activities', executionEndFunctionArn: 'arn:aws:lambda:local:000000000000:function:arthr-execution-end' })));
    const before = (await refs.get(name))?.users ?? 0;
    const active = await domain.setDefinitionStatus(d, { tenantId: t, definitionId: draft.id, status: 'DEPLOYED_ACTIVE', actor: 'apikey:k', now: NOW });
    expect(o.created).toEqual([name]);
    const read = await definitions.get(t, draft.id);
    expect(read).toMatchObject({ status: 'DEPLOYED_ACTIVE', stateMachineName: name, stateMachineArn: active.stateMachineArn });
    expect(read!.sessionKeep).toEqual(active.sessionKeep);
    expect((await refs.get(name))!.users).toBe(before + 1);
  });

  it('leaves the count alone for versions activated before state machines were counted', async () => {
    const { orchestrator } = fakeOrchestrator();
    const t = tenant();
    const legacyName = `arthr-fir-legacy${seq}`;
    const legacy: ProcessDefinitionRecord = {
      tenantId: t, id: `legacy-${t}`, name: 'identity-check', version: 1, description: '', retentionDays: 90,
      stateMachineArn: `arn:aws:states:eu-west-1:111122223333:stateMachine:${legacyName}`, createdDtm: NOW.toISOString(), createdBy: 'apikey:k',
    };
    expect(await definitions.create(legacy, { definition: structuredClone(identity!) })).toEqual({ outcome: 'written' });
    await domain.setDefinitionStatus({ definitions, stateMachines: refs, orchestrator }, { tenantId: t, definitionId: legacy.id, status: 'DEPLOYED_INACTIVE', actor: 'apikey:k', now: NOW });
    expect(await refs.get(legacyName)).toBeUndefined();
    expect((await definitions.get(t, legacy.id))!.status).toBe('DEPLOYED_INACTIVE');
  });
});

describe('the janitor\u2019s claim and an activation exclude each other', () => {
  const unused = { now: LATER, unusedBefore: new Date(LATER.getTime() - 86_400_000), staleClaimBefore: new Date(LATER.getTime() - 20 * 60_000) };

  /** A fresh journey (its own state machine): the identity check with a retention no other test uses. */
  const journey = () => ({ ...structuredClone(identity!), retentionDays: 100 + (++seq % 200) });

  it('refuses the claim while an active version uses the state machine, and takes it once none does', async () => {
    const { orchestrator } = fakeOrchestrator();
    const d = { definitions, stateMachines: refs, orchestrator, forms, themes };
    const t = tenant();
    const { record } = await publish.publishDefinition(d, journey(), ctx(t));
    const name = record.stateMachineName!;
    expect(await refs.claim(name, unused)).toBe(false);
    await domain.setDefinitionStatus(d, { tenantId: t, definitionId: record.id, status: 'DEPLOYED_INACTIVE', actor: 'apikey:k', now: NOW });
    // Unused since NOW, a day and more before LATER.
    expect(await refs.claim(name, { ...unused, unusedBefore: new Date(NOW.getTime() - 1) })).toBe(false);
    expect(await refs.claim(name, unused)).toBe(true);
    // A second claim (a duplicate janitor run) fails while the first is fresh.
    expect(await refs.claim(name, unused)).toBe(false);
    expect((await refs.get(name))!).toMatchObject({ users: 0, deletingSince: LATER.toISOString(), generation: 1 });
  });

  it('answers 503 to an activation while a claim is under way, and makes the state machine again once it ends', async () => {
    const { o, orchestrator } = fakeOrchestrator();
    const d = { definitions, stateMachines: refs, orchestrator, forms, themes };
    const t = tenant();
    const { record } = await publish.publishDefinition(d, journey(), ctx(t));
    await domain.setDefinitionStatus(d, { tenantId: t, definitionId: record.id, status: 'DEPLOYED_INACTIVE', actor: 'apikey:k', now: NOW });
    const name = record.stateMachineName!;
    expect(await refs.claim(name, unused)).toBe(true);

    const activate = () => domain.setDefinitionStatus(d, { tenantId: t, definitionId: record.id, status: 'DEPLOYED_ACTIVE', actor: 'apikey:k', now: new Date(LATER.getTime() + 60_000) });
    const refused = toErrorResponse(await activate().catch((e: unknown) => e));
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['Retry-After']).toBeDefined();
    expect((await definitions.get(t, record.id))!.status).toBe('DEPLOYED_INACTIVE');

    // The janitor deleted it and ended its claim: the activation makes it anew.
    await refs.release(name, LATER);
    const created = o.created.length;
    await activate();
    expect(o.created.length).toBe(created + 1);
    expect((await refs.get(name))!).toMatchObject({ users: 1, generation: 1 });
    expect((await refs.get(name))!.deletingSince).toBeUndefined();
  });

  it('makes the state machine again when the janitor claimed and deleted it between the activation\u2019s CreateStateMachine and its write', async () => {
    const t = tenant();
    const def = journey();
    let name = '';
    // The janitor runs inside the first CreateStateMachine: it claims (the state machine was unused), deletes, releases.
    const { o, orchestrator } = fakeOrchestrator(async (n, call) => {
      name = n;
      if (call !== 2) return;
      expect(await refs.claim(n, { ...unused, now: NOW, unusedBefore: NOW, staleClaimBefore: new Date(NOW.getTime() - 1) })).toBe(true);
      await refs.release(n, NOW);
    });
    const d = { definitions, stateMachines: refs, orchestrator, forms, themes };
    // A first tenant's version made it and left it (so the janitor may take it).
    const { record: first } = await publish.publishDefinition(d, def, ctx(tenant(), new Date(NOW.getTime() - 86_400_000)));
    await domain.setDefinitionStatus(d, { tenantId: first.tenantId, definitionId: first.id, status: 'ARCHIVED', actor: 'apikey:k', now: new Date(NOW.getTime() - 86_400_000) });
    // Another tenant publishes the same journey: its write meets the claim's new generation, so it creates again, then writes.
    const { record } = await publish.publishDefinition(d, structuredClone(def), ctx(t));
    expect(o.created).toEqual([name, name, name]);
    expect(record.stateMachineName).toBe(name);
    expect((await refs.get(name))!).toMatchObject({ users: 1, generation: 1 });
    expect((await definitions.get(t, record.id))!.status).toBe('DEPLOYED_ACTIVE');
  });

  it('takes back the claim of a janitor run that died (older than 20 minutes)', async () => {
    const { orchestrator } = fakeOrchestrator();
    const d = { definitions, stateMachines: refs, orchestrator, forms, themes };
    const t = tenant();
    const { record } = await publish.publishDefinition(d, journey(), ctx(t));
    await domain.setDefinitionStatus(d, { tenantId: t, definitionId: record.id, status: 'DEPLOYED_INACTIVE', actor: 'apikey:k', now: NOW });
    expect(await refs.claim(record.stateMachineName!, unused)).toBe(true);
    await domain.setDefinitionStatus(d, { tenantId: t, definitionId: record.id, status: 'DEPLOYED_ACTIVE', actor: 'apikey:k', now: new Date(LATER.getTime() + 21 * 60_000) });
    const ref = (await refs.get(record.stateMachineName!))!;
    expect(ref.users).toBe(1);
    expect(ref.deletingSince).toBeUndefined();
  });
});

describe('the janitor\u2019s lease and checkpoint', () => {
  it('lets one run at a time hold the lease, saves only for its holder, and lets another take an expired lease', async () => {
    const until = new Date(NOW.getTime() + 16 * 60_000);
    expect(await refs.acquireJanitor('run-1', NOW, until)).toEqual({});
    expect(await refs.acquireJanitor('run-2', NOW, until)).toBeUndefined();
    expect(await refs.saveJanitor('run-1', { pageToken: 'p2', lastArn: 'arn:x', passStartedAt: NOW.toISOString() })).toBe(true);
    expect(await refs.saveJanitor('run-2', { passCompletedAt: NOW.toISOString() })).toBe(false);
    // run-1 died without giving the lease up: once it expires, run-3 takes it, with run-1's place.
    expect(await refs.acquireJanitor('run-3', until, new Date(until.getTime() + 60_000))).toEqual({ pageToken: 'p2', lastArn: 'arn:x', passStartedAt: NOW.toISOString() });
    expect(await refs.saveJanitor('run-1', {})).toBe(false);
    expect(await refs.saveJanitor('run-3', { passCompletedAt: LATER.toISOString() })).toBe(true);
    await refs.releaseJanitor('run-3');
    expect(await refs.acquireJanitor('run-4', LATER, new Date(LATER.getTime() + 60_000))).toEqual({ passCompletedAt: LATER.toISOString() });
    await refs.releaseJanitor('run-4');
  });
});
