/**
 * The state machine janitor: Step Functions mocked (aws-sdk-client-mock) behind the real
 * inventory, the table in Amazon's DynamoDB Local (the reference items, the versions of state
 * machines made before they were shared, the checkpoint and the lease). Time is given, never
 * waited for: the run's clock and its sleep between throttled tries are the test's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteStateMachineCommand,
  ListExecutionsCommand,
  ListStateMachinesCommand,
  ListTagsForResourceCommand,
  SFNClient,
  type ListStateMachinesCommandInput,
} from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureTable, localClient, startDynamoDbLocal, type LocalDynamo } from '../../lib/local/dynamodb.js';
import { resetConfigForTests } from '../../functions/config.js';
import type { DefinitionStatus, ProcessDefinitionRecord, StateMachineRef, StateMachineRefStore } from '../../functions/process-manager/model.js';
import type { JanitorOptions } from '../../functions/process-manager/executions/state-machine-janitor.js';

const NOW = new Date('2026-06-01T00:00:00.000Z');
const OLD = new Date('2026-05-01T00:00:00.000Z');
const HOUR = 3_600_000;
const arn = (name: string) => `arn:aws:states:eu-west-1:111122223333:stateMachine:${name}`;
const sfn = mockClient(SFNClient);
const saved = { ...process.env };

let local: LocalDynamo;
let client: DynamoDBClient;
let dir: string;
let refs: StateMachineRefStore;
let janitor: typeof import('../../functions/process-manager/executions/state-machine-janitor.js');
let inventory: typeof import('../../functions/process-manager/executions/step-functions-inventory.js').stepFunctionsInventory;
let definitions: typeof import('../../functions/store/process-definitions.js').definitionStore;
let handler: typeof import('../../functions/process-manager/executions/sweep-state-machines.js').handler;
let doc: import('@aws-sdk/lib-dynamodb').DynamoDBDocumentClient;
let commands: typeof import('@aws-sdk/lib-dynamodb');
let keys: typeof import('../../functions/store/keys.js').serviceKeys;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'janitor-'));
  local = await startDynamoDbLocal(dir);
  process.env = {
    ...saved,
    DYNAMODB_ENDPOINT: local.endpoint,
    TABLE_NAME: 'janitor-unit',
    SERVICE_REGION: 'fir',
    SERVICE_DOMAIN: 'example.com',
    TOKEN_ISSUER: 'https://issuer.example.com',
    TOKEN_AUDIENCE: 'arthr-api',
    SIGNING_KEY: 'kms:k',
  };
  resetConfigForTests();
  client = localClient(local.endpoint);
  await ensureTable(client, 'janitor-unit');
  ({ stateMachineRefStore: refs } = await import('../../functions/store/state-machine-refs.js'));
  ({ definitionStore: definitions } = await import('../../functions/store/process-definitions.js'));
  ({ serviceKeys: keys } = await import('../../functions/store/keys.js'));
  ({ stepFunctionsInventory: inventory } = await import('../../functions/process-manager/executions/step-functions-inventory.js'));
  ({ handler } = await import('../../functions/process-manager/executions/sweep-state-machines.js'));
  janitor = await import('../../functions/process-manager/executions/state-machine-janitor.js');
  const { dynamo } = await import('../../functions/store/client.js');
  ({ doc, commands } = await dynamo());
}, 90_000);

afterAll(async () => {
  process.env = saved;
  resetConfigForTests();
  client?.destroy();
  await local?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let seq = 0;
/** A state machine name no other test uses. */
const fresh = (label: string) => `arthr-fir-${label}-${++seq}`;

/** Step Functions' state machines, in pages of `pageSize`, with their tags and running executions. */
interface Machine {
  name: string;
  createdAt?: Date;
  tenant?: string;
  running?: boolean;
}
function stepFunctions(machines: Machine[], pageSize = 1000) {
  const deleted: string[] = [];
  const live = () => machines.filter((m) => !deleted.includes(arn(m.name)));
  sfn.on(ListStateMachinesCommand).callsFake((input: ListStateMachinesCommandInput) => {
    // The token is the index of the page's first state machine (of those listed when the pass began).
    const start = input.nextToken ? Number(input.nextToken.slice(1)) : 0;
    if (Number.isNaN(start)) throw Object.assign(new Error('Invalid Token'), { name: 'InvalidToken' });
    const page = machines.slice(start, start + pageSize);
    return {
      stateMachines: page.map((m) => ({ name: m.name, stateMachineArn: arn(m.name), type: 'STANDARD', creationDate: m.createdAt ?? OLD })),
      ...(start + pageSize < machines.length ? { nextToken: `p${start + pageSize}` } : {}),
    };
  });
  sfn.on(ListTagsForResourceCommand).callsFake((input: { resourceArn: string }) => {
    const m = machines.find((x) => arn(x.name) === input.resourceArn);
    return { tags: m?.tenant ? [{ key: 'arthr:definition', value: 'x' }, { key: 'arthr:tenant', value: m.tenant }] : [] };
  });
  sfn.on(ListExecutionsCommand).callsFake((input: { stateMachineArn: string }) => ({
    executions: live().some((m) => arn(m.name) === input.stateMachineArn && m.running) ? [{ executionArn: `${input.stateMachineArn}:x` }] : [],
  }));
  sfn.on(DeleteStateMachineCommand).callsFake((input: { stateMachineArn: string }) => {
    deleted.push(input.stateMachineArn);
    return {};
  });
  return { deleted };
}

/** A reference item as activations and deactivations leave it. */
async function putRef(ref: StateMachineRef): Promise<void> {
  await doc.send(new commands.PutCommand({ TableName: 'janitor-unit', Item: { ...keys.stateMachineRef(ref.name), itemType: 'StateMachineRef', ...ref } }));
}

/** A version stored before state machines were shared (it names its tenant's own state machine). */
async function legacyVersion(tenantId: string, id: string, machine: string, status: DefinitionStatus | undefined): Promise<void> {
  const record: ProcessDefinitionRecord = {
    tenantId, id, name: `journey-${id}`, version: 1, description: '', retentionDays: 30, stateMachineArn: arn(machine),
    ...(status ? { status } : {}), createdDtm: OLD.toISOString(), createdBy: 'apikey:k',
  };
  const definition = { name: record.name, version: 1, description: '', retentionDays: 30, startActivityId: 'd', activities: { d: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } } } };
  expect(await definitions.create(record, { definition: definition as never })).toEqual({ outcome: 'written' });
}

/** One run: the deps as on AWS but the clock and the sleep, which the test holds. */
function run(opts: Partial<JanitorOptions> & { sleeps?: number[] } = {}) {
  const { sleeps, ...rest } = opts;
  return janitor.sweepStateMachines(
    { inventory: inventory(), definitions, stateMachines: refs, sleep: async (ms) => void sleeps?.push(ms) },
    {
      prefix: 'arthr-fir-',
      now: NOW,
      graceHours: 24,
      passIntervalHours: 23,
      deadline: Number.POSITIVE_INFINITY,
      runId: `run-${++seq}`,
      leaseMs: 16 * 60_000,
      claimStaleMs: 20 * 60_000,
      clock: () => NOW.getTime(),
      ...rest,
    },
  );
}

beforeEach(async () => {
  sfn.reset();
  // Each test starts with no pass under way and no lease.
  await doc.send(new commands.DeleteCommand({ TableName: 'janitor-unit', Key: keys.janitorCheckpoint() }));
});

describe('sweepStateMachines', () => {
  it('deletes, after claiming it, a state machine no active version of any tenant uses, and keeps the others with why', async () => {
    const [unused, inUse, young, recent, running, claimed] = ['unused', 'in-use', 'young', 'recent', 'running', 'claimed'].map(fresh);
    await putRef({ name: unused!, users: 0, generation: 0, changedAt: OLD.toISOString() });
    await putRef({ name: inUse!, users: 3, generation: 0, changedAt: OLD.toISOString() });
    await putRef({ name: young!, users: 0, generation: 0 });
    await putRef({ name: recent!, users: 0, generation: 0, changedAt: new Date(NOW.getTime() - HOUR).toISOString() });
    await putRef({ name: running!, users: 0, generation: 0, changedAt: OLD.toISOString() });
    await putRef({ name: claimed!, users: 0, generation: 2, changedAt: OLD.toISOString(), deletingSince: new Date(NOW.getTime() - 60_000).toISOString() });
    const { deleted } = stepFunctions([
      { name: unused! },
      { name: inUse! },
      { name: young!, createdAt: new Date(NOW.getTime() - HOUR) },
      { name: recent! },
      { name: running!, running: true },
      { name: claimed! },
      { name: 'arthr-gum-other-deployment' },
    ]);

    const { verdicts, passCompleted } = await run();
    expect(Object.fromEntries(verdicts)).toEqual({
      [arn(unused!)]: 'deleted',
      [arn(inUse!)]: 'in use',
      [arn(young!)]: 'young',
      [arn(recent!)]: 'recently used',
      [arn(running!)]: 'running',
      [arn(claimed!)]: 'claimed elsewhere',
    });
    expect(passCompleted).toBe(true);
    expect(deleted).toEqual([arn(unused!)]);
    // A state machine in use costs one read of its reference item: no Step Functions call.
    const asked = sfn.commandCalls(ListExecutionsCommand).map((c) => c.args[0].input.stateMachineArn);
    expect(asked).toEqual([arn(unused!), arn(running!)]);
    expect(sfn.commandCalls(ListTagsForResourceCommand)).toHaveLength(0);
    // The claim raised the generation (an activation that read the old one writes nothing) and ended with the run.
    expect(await refs.get(unused!)).toMatchObject({ users: 0, generation: 1 });
    expect((await refs.get(unused!))!.deletingSince).toBeUndefined();
    expect((await refs.get(running!))!.deletingSince).toBeUndefined();
  });

  it('judges a state machine made before they were shared by its tenant\u2019s active versions, and deletes an untagged one nothing counts', async () => {
    const [kept, inactive, archived, orphan] = ['legacy-kept', 'legacy-inactive', 'legacy-archived', 'orphan'].map(fresh);
    const tenant = `legacy${seq}`;
    await legacyVersion(tenant, 'v1', kept!, undefined);
    await legacyVersion(tenant, 'v2', inactive!, 'DEPLOYED_INACTIVE');
    await legacyVersion(tenant, 'v3', archived!, 'ARCHIVED');
    const { deleted } = stepFunctions([{ name: kept!, tenant }, { name: inactive!, tenant }, { name: archived!, tenant }, { name: orphan! }]);
    const { verdicts } = await run();
    expect(Object.fromEntries(verdicts)).toEqual({ [arn(kept!)]: 'live version', [arn(inactive!)]: 'deleted', [arn(archived!)]: 'deleted', [arn(orphan!)]: 'deleted' });
    expect(deleted).toEqual([arn(inactive!), arn(archived!), arn(orphan!)]);
  });

  it('stops at its deadline with its place saved, and the next runs go on from there until the pass is done, judging each once', async () => {
    const names = Array.from({ length: 7 }, () => fresh('paged'));
    for (const name of names) await putRef({ name, users: 0, generation: 0, changedAt: OLD.toISOString() });
    const { deleted } = stepFunctions(names.map((name) => ({ name })), 3);
    // Each look at the clock is a millisecond later: three state machines fit before the deadline.
    const clock = (() => {
      let t = NOW.getTime();
      return () => t++;
    })();

    const first = await run({ clock, deadline: NOW.getTime() + 10 });
    expect(first.stopped).toBe('deadline');
    expect(first.passCompleted).toBe(false);
    const judged = [...first.verdicts.keys()];
    expect(judged.length).toBeGreaterThan(0);
    expect(judged.length).toBeLessThan(names.length);
    const checkpoint = await doc.send(new commands.GetCommand({ TableName: 'janitor-unit', Key: keys.janitorCheckpoint() }));
    expect(checkpoint.Item).toMatchObject({ lastArn: judged[judged.length - 1], passStartedAt: NOW.toISOString() });
    expect(checkpoint.Item!.leaseRunId).toBeUndefined();

    // The next run, an hour later, asks for the page it stopped on and goes on after the last state machine it judged.
    sfn.resetHistory();
    const second = await run({ now: new Date(NOW.getTime() + HOUR), clock: () => NOW.getTime() + HOUR });
    expect(second.passCompleted).toBe(true);
    expect(sfn.commandCalls(ListStateMachinesCommand)[0]!.args[0].input.nextToken).toBe(checkpoint.Item!.pageToken);
    expect([...judged, ...second.verdicts.keys()]).toEqual(names.map(arn));
    expect(deleted).toEqual(names.map(arn));

    // The pass is done: the hourly runs of the rest of the day do nothing.
    sfn.resetHistory();
    expect(await run({ now: new Date(NOW.getTime() + 2 * HOUR) })).toMatchObject({ stopped: 'not due', passCompleted: false });
    expect(sfn.commandCalls(ListStateMachinesCommand)).toHaveLength(0);
    // A day later a new pass starts from the first page.
    const next = await run({ now: new Date(NOW.getTime() + 25 * HOUR), clock: () => NOW.getTime() + 25 * HOUR });
    expect(next.passCompleted).toBe(true);
    expect(sfn.commandCalls(ListStateMachinesCommand)[0]!.args[0].input.nextToken).toBeUndefined();
  });

  it('does nothing in a duplicate run while another holds the lease, and two runs at once delete each state machine once', async () => {
    const names = Array.from({ length: 4 }, () => fresh('dup'));
    for (const name of names) await putRef({ name, users: 0, generation: 0, changedAt: OLD.toISOString() });
    const { deleted } = stepFunctions(names.map((name) => ({ name })));
    expect(await refs.acquireJanitor('someone-else', NOW, new Date(NOW.getTime() + 15 * 60_000))).toEqual({});
    expect(await run()).toMatchObject({ stopped: 'lease held' });
    expect(sfn.commandCalls(ListStateMachinesCommand)).toHaveLength(0);
    await refs.releaseJanitor('someone-else');

    const runs = await Promise.all([run(), run()]);
    expect(runs.map((r) => r.stopped ?? 'done').sort()).toEqual(['done', 'lease held']);
    expect(deleted.sort()).toEqual(names.map(arn).sort());
  });

  it('waits out Step Functions\u2019 throttling, and when it persists stops with its place saved; the next run retries that state machine', async () => {
    const [a, b, c] = ['throttled-a', 'throttled-b', 'throttled-c'].map(fresh);
    for (const name of [a!, b!, c!]) await putRef({ name, users: 0, generation: 0, changedAt: OLD.toISOString() });
    const { deleted } = stepFunctions([{ name: a! }, { name: b! }, { name: c! }]);
    const throttle = () => Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    // a: ListExecutions throttled twice, then answers; b: DeleteStateMachine throttled every time.
    sfn.on(ListExecutionsCommand, { stateMachineArn: arn(a!) }).rejectsOnce(throttle()).rejectsOnce(throttle()).resolves({ executions: [] });
    sfn.on(DeleteStateMachineCommand, { stateMachineArn: arn(b!) }).rejects(throttle());
    const sleeps: number[] = [];

    const first = await run({ sleeps });
    expect(first.stopped).toBe('throttled');
    expect(Object.fromEntries(first.verdicts)).toEqual({ [arn(a!)]: 'deleted' });
    // 1 s and 2 s for a; 1, 2 and 4 s for b before giving up (four tries).
    expect(sleeps).toEqual([1000, 2000, 1000, 2000, 4000]);
    expect(deleted).toEqual([arn(a!)]);
    // b's claim ended with the run: an activation is not held up.
    expect((await refs.get(b!))!.deletingSince).toBeUndefined();

    sfn.on(DeleteStateMachineCommand, { stateMachineArn: arn(b!) }).callsFake(() => {
      deleted.push(arn(b!));
      return {};
    });
    const second = await run({ now: new Date(NOW.getTime() + HOUR), clock: () => NOW.getTime() + HOUR });
    expect(second.passCompleted).toBe(true);
    expect(Object.fromEntries(second.verdicts)).toEqual({ [arn(b!)]: 'deleted', [arn(c!)]: 'deleted' });
    expect(deleted).toEqual([arn(a!), arn(b!), arn(c!)]);
  });

  it('starts the pass again when the page token it saved has expired (a day old)', async () => {
    const name = fresh('expired');
    await putRef({ name, users: 2, generation: 0, changedAt: OLD.toISOString() });
    stepFunctions([{ name }]);
    expect(await refs.acquireJanitor('earlier', OLD, OLD)).toEqual({});
    expect(await refs.saveJanitor('earlier', { pageToken: 'expired-token', lastArn: arn('x'), passStartedAt: OLD.toISOString() })).toBe(true);
    const { verdicts, passCompleted } = await run();
    expect(passCompleted).toBe(true);
    expect(sfn.commandCalls(ListStateMachinesCommand).map((c) => c.args[0].input.nextToken)).toEqual(['expired-token', undefined]);
    expect(Object.fromEntries(verdicts)).toEqual({ [arn(name)]: 'in use' });
  });
});

describe('the state machine janitor on AWS', () => {
  it('pages through every state machine of the account, keeping its own deployment\u2019s', async () => {
    sfn
      .on(ListStateMachinesCommand)
      .resolvesOnce({ stateMachines: [{ name: 'arthr-fir-a', stateMachineArn: arn('arthr-fir-a'), type: 'STANDARD', creationDate: OLD }, { name: 'other', stateMachineArn: arn('other'), type: 'STANDARD', creationDate: OLD }], nextToken: 'p2' })
      .resolvesOnce({ stateMachines: [{ name: 'arthr-fir-b', stateMachineArn: arn('arthr-fir-b'), type: 'STANDARD', creationDate: OLD }] });
    const inv = inventory();
    const first = await inv.page('arthr-fir-', undefined);
    expect(first).toEqual({ machines: [{ arn: arn('arthr-fir-a'), name: 'arthr-fir-a', createdAt: OLD }], next: 'p2' });
    expect(await inv.page('arthr-fir-', first.next)).toEqual({ machines: [{ arn: arn('arthr-fir-b'), name: 'arthr-fir-b', createdAt: OLD }] });
    expect(sfn.commandCalls(ListStateMachinesCommand).map((c) => c.args[0].input)).toEqual([{ maxResults: 1000 }, { maxResults: 1000, nextToken: 'p2' }]);
  });

  it('reads the legacy tenant tag, asks for one running execution, and deletes by ARN (one already gone counts as deleted)', async () => {
    sfn.on(ListTagsForResourceCommand).resolves({ tags: [{ key: 'arthr:definition', value: 'x' }, { key: 'arthr:tenant', value: 'demo' }] });
    sfn.on(ListExecutionsCommand).resolves({ executions: [] });
    sfn.on(DeleteStateMachineCommand).resolvesOnce({}).rejectsOnce(Object.assign(new Error('gone'), { name: 'StateMachineDoesNotExist' }));
    const inv = inventory();
    expect(await inv.tenantOf(arn('arthr-fir-a'))).toBe('demo');
    expect(await inv.hasRunningExecutions(arn('arthr-fir-a'))).toBe(false);
    await inv.delete(arn('arthr-fir-a'));
    await inv.delete(arn('arthr-fir-a'));
    expect(sfn.commandCalls(ListExecutionsCommand)[0]!.args[0].input).toEqual({ stateMachineArn: arn('arthr-fir-a'), statusFilter: 'RUNNING', maxResults: 1 });
    expect(sfn.commandCalls(DeleteStateMachineCommand)[0]!.args[0].input).toEqual({ stateMachineArn: arn('arthr-fir-a') });
  });

  it('runs as a scheduled function within its time: deletes the unused state machine, keeps the used one, finishes the pass', async () => {
    const [unused, used] = [fresh('handler-unused'), fresh('handler-used')];
    await putRef({ name: unused, users: 0, generation: 0, changedAt: OLD.toISOString() });
    await putRef({ name: used, users: 1, generation: 0, changedAt: OLD.toISOString() });
    const { deleted } = stepFunctions([{ name: unused }, { name: used }]);
    expect(await handler({}, { getRemainingTimeInMillis: () => 15 * 60_000 })).toEqual({ deleted: 1, kept: 1, passCompleted: true });
    expect(deleted).toEqual([arn(unused)]);
    // Given less than its safety margin, a run judges nothing and keeps the pass for the next.
    await doc.send(new commands.DeleteCommand({ TableName: 'janitor-unit', Key: keys.janitorCheckpoint() }));
    expect(await handler({}, { getRemainingTimeInMillis: () => 60_000 })).toEqual({ deleted: 0, kept: 0, stopped: 'deadline', passCompleted: false });
  });
});
