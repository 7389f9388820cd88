/**
 * One instance's webhook deliveries: found by key from a page of its events (instanceDeliveries,
 * with its stores in memory), and the delivery store's read by key (over a mocked DynamoDB).
 */
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventPosition, newEventId, type InstanceEventEnvelope } from '../../../functions/shared/events.js';
import type { InstanceEventReader } from '../../../functions/process-manager/instances/instance-events.js';
import type { ProcessInstanceRecord } from '../../../functions/process-manager/model.js';
import type { DeliveryPlace, DeliveryRecord, WebhookRecord } from '../../../functions/webhooks/model.js';
import { instanceDeliveries } from '../../../functions/webhooks/instance-deliveries.js';
import { deliveryItem, deliveryStore } from '../../../functions/store/webhooks.js';
import { keys } from '../../../functions/store/keys.js';

const NOW = new Date('2026-11-28T06:00:00Z');
const ID = '0f6b2a64-3c1e-4d7a-9b8e-5a2f1c7d9e30';
const HOOKS = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222'];

function eventOf(n: number): InstanceEventEnvelope {
  const at = new Date(NOW.getTime() - 3_600_000 + n * 1000);
  return { id: newEventId(at), type: n === 0 ? 'process-instance.created' : 'process-instance.status-changed', tenantId: 'acme', timestamp: at.toISOString(), subject: { type: 'process-instance', id: ID }, data: {} };
}

function deliveryOf(webhookId: string, e: InstanceEventEnvelope, status: DeliveryRecord['status'] = 'DELIVERED'): DeliveryRecord {
  return {
    tenantId: 'acme', webhookId, eventId: e.id, eventType: e.type, eventTimestamp: e.timestamp, subjectId: ID, status,
    attempts: [{ at: e.timestamp, status: 200, latencyMs: 12 }], createdAt: e.timestamp, updatedAt: e.timestamp, expiresAt: 1, sweepAt: 'x', leaseUntil: 'y',
  };
}

const hook = (id: string) => ({ tenantId: 'acme', id, description: '', eventTypes: ['*'], processDefnNames: [], enabled: true, secrets: [], createdDtm: '', createdBy: '', updatedDtm: '' }) as WebhookRecord;

function fakes(eventCount: number, kept: (webhookId: string, n: number) => boolean) {
  const events = Array.from({ length: eventCount }, (_, n) => eventOf(n));
  const asked: DeliveryPlace[][] = [];
  const reader: InstanceEventReader = {
    async instanceEvents(tenantId, instanceId, limit, after) {
      const all = events.filter((e) => tenantId === 'acme' && instanceId === ID && (!after || eventPosition(e) > after));
      return { events: all.slice(0, limit), more: all.length > limit };
    },
  };
  const deps = {
    instances: { getLiveRecord: async (tenantId: string, id: string) => (tenantId === 'acme' && id === ID ? ({ tenantId, id } as ProcessInstanceRecord) : undefined) },
    events: reader,
    webhooks: { list: async () => HOOKS.map(hook) },
    deliveries: {
      async many(_tenantId: string, at: readonly DeliveryPlace[]) {
        asked.push([...at]);
        return at.flatMap((p) => {
          const n = events.findIndex((e) => e.id === p.eventId);
          return kept(p.webhookId, n) ? [deliveryOf(p.webhookId, events[n]!)] : [];
        });
      },
    },
  };
  return { deps, events, asked };
}

describe('instanceDeliveries', () => {
  it("finds each event's delivery to each webhook by key, oldest event first, with its webhook and without the queues' bookkeeping", async () => {
    // The second webhook took only the first event.
    const { deps, events, asked } = fakes(3, (w, n) => w === HOOKS[0] || n === 0);
    const page = await instanceDeliveries(deps, 'acme', ID, { size: 20 }, NOW);
    expect(page.nextToken).toBeUndefined();
    expect(page.deliveries.map((d) => [d.eventId, d.webhookId])).toEqual([
      [events[0]!.id, HOOKS[0]],
      [events[0]!.id, HOOKS[1]],
      [events[1]!.id, HOOKS[0]],
      [events[2]!.id, HOOKS[0]],
    ]);
    expect(page.deliveries[0]).toEqual({ webhookId: HOOKS[0], eventId: events[0]!.id, eventType: 'process-instance.created', eventTimestamp: events[0]!.timestamp, subjectId: ID, status: 'DELIVERED', attempts: [{ at: events[0]!.timestamp, status: 200, latencyMs: 12 }] });
    // One read by key: every event of the page against every webhook.
    expect(asked).toHaveLength(1);
    expect(asked[0]).toHaveLength(6);
  });

  it('pages by events: each page reads at most size × webhooks keys, and the token goes on after its last event', async () => {
    const { deps, events, asked } = fakes(5, () => true);
    const first = await instanceDeliveries(deps, 'acme', ID, { size: 2 }, NOW);
    expect(new Set(first.deliveries.map((d) => d.eventId))).toEqual(new Set(events.slice(0, 2).map((e) => e.id)));
    const second = await instanceDeliveries(deps, 'acme', ID, { size: 2, nextToken: first.nextToken! }, NOW);
    expect(new Set(second.deliveries.map((d) => d.eventId))).toEqual(new Set(events.slice(2, 4).map((e) => e.id)));
    const third = await instanceDeliveries(deps, 'acme', ID, { size: 2, nextToken: second.nextToken! }, NOW);
    expect(third.nextToken).toBeUndefined();
    expect(asked.map((a) => a.length)).toEqual([4, 4, 2]);
  });

  it("rejects when the instance is another tenant's: 404, nothing read", async () => {
    const { deps, asked } = fakes(2, () => true);
    await expect(instanceDeliveries(deps, 'beta', ID, { size: 20 }, NOW)).rejects.toMatchObject({ statusCode: 404, code: 'PROCESS_INSTANCE_NOT_FOUND' });
    expect(asked).toEqual([]);
  });

  it("rejects an events read's token: the two lists' tokens are not interchangeable (400 INVALID_CURSOR)", async () => {
    const { deps } = fakes(3, () => true);
    const { instanceEventsPage } = await import('../../../functions/process-manager/instances/instance-events.js');
    const eventsToken = (await instanceEventsPage(deps, 'acme', ID, { size: 1, list: 'processInstanceEvents', where: 'query.nextToken' }, NOW)).nextToken!;
    await expect(instanceDeliveries(deps, 'acme', ID, { size: 1, nextToken: eventsToken }, NOW)).rejects.toMatchObject({ statusCode: 400, code: 'INVALID_CURSOR' });
  });
});

describe('deliveryStore.many', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  beforeAll(() => {
    process.env.TABLE_NAME = 'unit';
  });
  beforeEach(() => ddb.reset());

  it("reads each place in its subject's shard, consistently, 100 keys a call, and answers in the order asked, leaving out what is not there", async () => {
    const events = Array.from({ length: 60 }, (_, n) => eventOf(n));
    const at = events.flatMap((e) => HOOKS.map((webhookId) => ({ webhookId, eventTimestamp: e.timestamp, eventId: e.id, subjectId: ID })));
    // Every other place has a delivery; DynamoDB answers them out of order.
    const stored = new Map(at.filter((_, i) => i % 2 === 0).map((p) => {
      const item = deliveryItem(deliveryOf(p.webhookId, events.find((e) => e.id === p.eventId)!));
      return [`${String(item.PK)}|${String(item.SK)}`, item] as const;
    }));
    ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: { PK: string; SK: string }[]; ConsistentRead: boolean }> }) => {
      const ask = input.RequestItems.unit!;
      expect(ask.ConsistentRead).toBe(true);
      return { Responses: { unit: ask.Keys.flatMap((k) => stored.get(`${k.PK}|${k.SK}`) ?? []).reverse() } };
    });
    const found = await deliveryStore.many('acme', at);
    expect(found.map((d) => `${d.eventId}/${d.webhookId}`)).toEqual(at.filter((_, i) => i % 2 === 0).map((p) => `${p.eventId}/${p.webhookId}`));
    const calls = ddb.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems!.unit!.Keys!);
    expect(calls.map((k) => k.length)).toEqual([100, 20]);
    const shard = keys.webhookDeliveryPartition('acme', HOOKS[0]!, keys.webhookDeliveryShard(ID));
    expect(calls[0]![0]).toEqual({ PK: shard, SK: `${events[0]!.timestamp}#${events[0]!.id}` });
  });

  it('reads nothing for no places', async () => {
    expect(await deliveryStore.many('acme', [])).toEqual([]);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(0);
  });
});
