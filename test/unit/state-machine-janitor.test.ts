import {
  DeleteStateMachineCommand,
  ListExecutionsCommand,
  ListStateMachinesCommand,
  ListTagsForResourceCommand,
  SFNClient,
} from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../functions/config.js';
import type { DefinitionStatus, ProcessDefinitionRecord } from '../../functions/process-manager/model.js';
import { sweepStateMachines, type StateMachineEntry, type StateMachineInventory } from '../../functions/process-manager/executions/state-machine-janitor.js';
import { stepFunctionsInventory } from '../../functions/process-manager/executions/step-functions-inventory.js';
import { handler } from '../../functions/process-manager/executions/sweep-state-machines.js';
import { definitionStore } from '../../functions/store/process-definitions.js';

const NOW = new Date('2026-06-01T00:00:00Z');
const OLD = new Date('2026-05-01T00:00:00Z');
const arn = (name: string) => `arn:aws:states:eu-west-1:111122223333:stateMachine:${name}`;

function version(tenantId: string, id: string, stateMachine: string, status: DefinitionStatus | undefined): ProcessDefinitionRecord {
  return {
    tenantId,
    id,
    name: `journey-${id}`,
    version: 1,
    description: '',
    retentionDays: 30,
    stateMachineArn: arn(stateMachine),
    ...(status ? { status } : {}),
    createdDtm: OLD.toISOString(),
    createdBy: 'apikey:k',
  };
}

/** Step Functions as the janitor sees it, in memory. */
function inventory(machines: (StateMachineEntry & { tenant?: string; running?: boolean })[]): StateMachineInventory & { deleted: string[] } {
  const deleted: string[] = [];
  return {
    deleted,
    async *list() {
      yield* machines;
    },
    async tenantOf(a) {
      return machines.find((m) => m.arn === a)?.tenant;
    },
    async hasRunningExecutions(a) {
      return !!machines.find((m) => m.arn === a)?.running;
    },
    async delete(a) {
      deleted.push(a);
    },
  };
}
const machine = (name: string, extra: { tenant?: string; running?: boolean; createdAt?: Date } = {}) => ({ arn: arn(name), name, createdAt: OLD, tenant: 'demo', ...extra });

describe('sweepStateMachines', () => {
  const definitionsOf = (records: ProcessDefinitionRecord[]) => ({ list: async (t: string) => records.filter((r) => r.tenantId === t) });
  const sweep = (machines: Parameters<typeof inventory>[0], records: ProcessDefinitionRecord[]) => {
    const inv = inventory(machines);
    return sweepStateMachines({ inventory: inv, definitions: definitionsOf(records) }, { prefix: 'arthr-fir-', now: NOW, graceHours: 24 }).then((v) => ({ verdicts: v, deleted: inv.deleted }));
  };

  it('deletes a state machine whose versions are all archived and which runs nothing', async () => {
    const { deleted, verdicts } = await sweep([machine('arthr-fir-a')], [version('demo', 'v1', 'arthr-fir-a', 'ARCHIVED')]);
    expect(deleted).toEqual([arn('arthr-fir-a')]);
    expect(verdicts.get(arn('arthr-fir-a'))).toBe('deleted');
  });

  it('deletes one no version names (a publication that failed after making it), once past the grace period', async () => {
    const { deleted } = await sweep([machine('arthr-fir-orphan'), machine('arthr-fir-new', { createdAt: new Date(NOW.getTime() - 3_600_000) })], []);
    expect(deleted).toEqual([arn('arthr-fir-orphan')]);
  });

  it.each<[DefinitionStatus | undefined]>([['DRAFT'], ['DEPLOYED_ACTIVE'], ['DEPLOYED_INACTIVE'], [undefined]])('keeps one a %s version needs', async (status) => {
    const { deleted, verdicts } = await sweep([machine('arthr-fir-a')], [version('demo', 'v1', 'arthr-fir-a', status)]);
    expect(deleted).toEqual([]);
    expect(verdicts.get(arn('arthr-fir-a'))).toBe('live version');
  });

  it('keeps one shared by an archived version and a live one (versions that compile alike share it)', async () => {
    const { deleted } = await sweep(
      [machine('arthr-fir-a')],
      [version('demo', 'v1', 'arthr-fir-a', 'ARCHIVED'), version('demo', 'v2', 'arthr-fir-a', 'DEPLOYED_ACTIVE')],
    );
    expect(deleted).toEqual([]);
  });

  it('keeps one whose archived version still has journeys running on it', async () => {
    const { deleted, verdicts } = await sweep([machine('arthr-fir-a', { running: true })], [version('demo', 'v1', 'arthr-fir-a', 'ARCHIVED')]);
    expect(deleted).toEqual([]);
    expect(verdicts.get(arn('arthr-fir-a'))).toBe('running');
  });

  it('looks only at its tenant\u2019s versions, keeps what it cannot attribute, and leaves other deployments\u2019 state machines alone', async () => {
    const { deleted, verdicts } = await sweep(
      [machine('arthr-fir-a', { tenant: 'acme' }), machine('arthr-fir-untagged', { tenant: undefined }), machine('arthr-gum-x')],
      // demo's live version names the same ARN, but the state machine is acme's.
      [version('demo', 'v1', 'arthr-fir-a', 'DEPLOYED_ACTIVE'), version('acme', 'v9', 'arthr-fir-a', 'ARCHIVED')],
    );
    expect(deleted).toEqual([arn('arthr-fir-a')]);
    expect(verdicts.get(arn('arthr-fir-untagged'))).toBe('untagged');
    expect(verdicts.has(arn('arthr-gum-x'))).toBe(false);
  });
});

describe('the state machine janitor on AWS', () => {
  const sfn = mockClient(SFNClient);
  const ddb = mockClient(DynamoDBDocumentClient);
  const saved = { ...process.env };
  beforeEach(() => {
    sfn.reset();
    ddb.reset();
    resetConfigForTests();
    process.env = {
      ...saved,
      TABLE_NAME: 'unit',
      SERVICE_REGION: 'fir',
      SERVICE_DOMAIN: 'example.com',
      TOKEN_ISSUER: 'https://issuer.example.com',
      TOKEN_AUDIENCE: 'arthr-api',
      SIGNING_KEY: 'kms:k',
    };
  });
  afterAll(() => {
    process.env = saved;
    resetConfigForTests();
  });

  it('pages through every state machine of the account, keeping its own deployment\u2019s', async () => {
    sfn
      .on(ListStateMachinesCommand)
      .resolvesOnce({ stateMachines: [{ name: 'arthr-fir-a', stateMachineArn: arn('arthr-fir-a'), type: 'STANDARD', creationDate: OLD }, { name: 'other', stateMachineArn: arn('other'), type: 'STANDARD', creationDate: OLD }], nextToken: 'p2' })
      .resolvesOnce({ stateMachines: [{ name: 'arthr-fir-b', stateMachineArn: arn('arthr-fir-b'), type: 'STANDARD', creationDate: OLD }] });
    const seen: string[] = [];
    for await (const m of stepFunctionsInventory().list('arthr-fir-')) seen.push(m.name);
    expect(seen).toEqual(['arthr-fir-a', 'arthr-fir-b']);
    expect(sfn.commandCalls(ListStateMachinesCommand).map((c) => c.args[0].input.nextToken)).toEqual([undefined, 'p2']);
  });

  it('reads the tenant tag, asks for one running execution, and deletes by ARN', async () => {
    sfn.on(ListTagsForResourceCommand).resolves({ tags: [{ key: 'arthr:definition', value: 'x' }, { key: 'arthr:tenant', value: 'demo' }] });
    sfn.on(ListExecutionsCommand).resolves({ executions: [] });
    sfn.on(DeleteStateMachineCommand).resolves({});
    const inv = stepFunctionsInventory();
    expect(await inv.tenantOf(arn('arthr-fir-a'))).toBe('demo');
    expect(await inv.hasRunningExecutions(arn('arthr-fir-a'))).toBe(false);
    await inv.delete(arn('arthr-fir-a'));
    expect(sfn.commandCalls(ListExecutionsCommand)[0]!.args[0].input).toEqual({ stateMachineArn: arn('arthr-fir-a'), statusFilter: 'RUNNING', maxResults: 1 });
    expect(sfn.commandCalls(DeleteStateMachineCommand)[0]!.args[0].input).toEqual({ stateMachineArn: arn('arthr-fir-a') });
  });

  it('runs as a scheduled function: deletes the archived version\u2019s state machine, keeps the active one\u2019s', async () => {
    // The tenant's versions as the store writes them, read back by its Query.
    ddb.on(TransactWriteCommand).resolves({});
    const items: Record<string, unknown>[] = [];
    for (const r of [version('demo', 'v1', 'arthr-fir-old', 'ARCHIVED'), version('demo', 'v2', 'arthr-fir-new', 'DEPLOYED_ACTIVE')]) {
      ddb.resetHistory();
      await definitionStore.create(r, { definition: { name: r.name, version: 1, description: '', retentionDays: 30, startActivityId: 'd', activities: { d: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } } } } as never });
      items.push(...ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!.map((t) => t.Put!.Item as Record<string, unknown>).filter((i) => i.itemType === 'ProcessDefinition'));
    }
    ddb.on(QueryCommand).resolves({ Items: items });
    sfn.on(ListStateMachinesCommand).resolves({
      stateMachines: ['arthr-fir-old', 'arthr-fir-new'].map((name) => ({ name, stateMachineArn: arn(name), type: 'STANDARD', creationDate: OLD })),
    });
    sfn.on(ListTagsForResourceCommand).resolves({ tags: [{ key: 'arthr:tenant', value: 'demo' }] });
    sfn.on(ListExecutionsCommand).resolves({ executions: [] });
    sfn.on(DeleteStateMachineCommand).resolves({});

    expect(await handler()).toEqual({ deleted: 1, kept: 1 });
    expect(sfn.commandCalls(DeleteStateMachineCommand).map((c) => c.args[0].input.stateMachineArn)).toEqual([arn('arthr-fir-old')]);
  });
});
