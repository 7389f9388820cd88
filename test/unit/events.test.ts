import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  EVENTBRIDGE_MAX_ENTRY_BYTES,
  eventBus,
  installEventBus,
  putEventsEntry,
  putEventsEntrySize,
  type EventBus,
} from '../../functions/events/bus.js';
import { EVENT_ID_PATTERN, EVENT_SCHEMAS, EVENT_SUMMARIES, EVENT_TYPES, IDENTITY_STORE_EVENT_TYPES, instanceEvents } from '../../functions/events/catalogue.js';
import { matchesFilter, OUTBOX_STREAM_FILTER, relayRecords, type StreamRecord } from '../../functions/events/relay.js';
import { handler as onTableStream } from '../../functions/webhooks/on-table-stream.js';
import { identityStoreEvent, newEventId, type EventEnvelope } from '../../functions/shared/events.js';
import { IDENTITY_EVENT_TYPES } from '../../functions/identity-store/model.js';
import { keys } from '../../functions/store/keys.js';
import { outboxItem } from '../../functions/store/outbox.js';
import { resetConfigForTests } from '../../functions/config.js';
import { localBus, localEventBus } from '../../lib/local/events.js';
import * as z from '../../functions/shared/zod.js';

const record = { tenantId: 'demo', id: 'pi-1', processDefnId: 'def', processDefnName: 'identity-check', processDefnVersion: 1, processTokenId: 'pt-1' };
// Recent: an event past its 30 days reads as gone.
const at = new Date(Date.now() - 60_000);

/** An event whose PutEvents entry is exactly `bytes` long (the definition's name carries the padding). */
function eventOfEntrySize(bytes: number): EventEnvelope {
  const event = instanceEvents.created({ ...record, processDefnName: '' }, at);
  const pad = bytes - putEventsEntrySize(putEventsEntry(event));
  return instanceEvents.created({ ...record, processDefnName: 'n'.repeat(pad) }, at);
}

/** The stream record DynamoDB writes for an item (KEYS_ONLY). */
function streamRecord(key: { PK: string; SK: string }, seq: number, eventName = 'INSERT'): StreamRecord {
  return { eventName, dynamodb: { Keys: { PK: { S: key.PK }, SK: { S: key.SK } }, SequenceNumber: String(seq) } };
}
const keyOf = (e: EventEnvelope) => keys.outboxEvent(e.tenantId, e.timestamp, e.id, e.subject.id);

beforeAll(() => {
  process.env.TABLE_NAME = 'unit';
  resetConfigForTests();
});

describe('the event catalogue', () => {
  it('has a schema and a summary for every type, and every identity store event type maps into it', () => {
    for (const type of EVENT_TYPES) {
      expect(EVENT_SCHEMAS[type]).toBeDefined();
      expect(EVENT_SUMMARIES[type]).toBeTruthy();
    }
    for (const type of IDENTITY_EVENT_TYPES) {
      const e = identityStoreEvent({ eventId: 'L', tenantId: 'demo', type, storeName: 's', userId: 'u', at: at.toISOString(), actor: 'apikey:k', details: {} });
      expect(IDENTITY_STORE_EVENT_TYPES).toContain(e.type);
      expect(z.safeParse(EVENT_SCHEMAS[e.type as (typeof EVENT_TYPES)[number]], e).success).toBe(true);
    }
  });

  it('makes events that match their schemas, with ids that are unique and sort by time', () => {
    const made = [
      instanceEvents.created(record, at),
      ...instanceEvents.statusChanged(record, 'ACTIVE', 'COMPLETED_ENDED_SUCCESS', at, true),
      instanceEvents.stepChanged(record, { activityId: 'form', activityType: 'DATA_FORM' }, at),
    ];
    expect(made.map((e) => e.type)).toEqual(['process-instance.created', 'process-instance.status-changed', 'process-instance.completed', 'process-instance.step-changed']);
    for (const e of made) {
      expect(e.id).toMatch(EVENT_ID_PATTERN);
      expect(z.safeParse(EVENT_SCHEMAS[e.type as (typeof EVENT_TYPES)[number]], e).success).toBe(true);
    }
    expect(new Set(made.map((e) => e.id)).size).toBe(made.length);
    // A status that is not final makes one event, not two.
    expect(instanceEvents.statusChanged(record, 'PENDING', 'ACTIVE', at, false)).toHaveLength(1);
    expect(newEventId(new Date(at.getTime() + 1)) > newEventId(at)).toBe(true);
  });
});

describe('putEventsEntrySize', () => {
  it('counts as EventBridge does: UTF-8 bytes of Source, DetailType, Detail and Resources, 14 for Time', () => {
    expect(putEventsEntrySize({ Source: 'a.b', DetailType: 'Änderung', Detail: '{"x":"€"}' })).toBe(3 + 9 + 11);
    expect(putEventsEntrySize({ Time: new Date(), Source: 's', DetailType: 'd', Resources: ['arn:1', 'arn:22'] })).toBe(14 + 1 + 1 + 5 + 6);
  });
});

describe('localEventBus', () => {
  const seen: EventEnvelope[] = [];
  const listener = (e: EventEnvelope) => seen.push(e);
  beforeEach(() => {
    seen.length = 0;
    localBus.on('event', listener);
  });
  afterEach(() => localBus.off('event', listener));

  it('delivers a request of exactly 256 KB', async () => {
    expect(await localEventBus().put([eventOfEntrySize(EVENTBRIDGE_MAX_ENTRY_BYTES)])).toBeUndefined();
    expect(seen).toHaveLength(1);
  });

  it('refuses a request over 256 KB or of more than 10 entries, as PutEvents does, and delivers nothing of it', async () => {
    await expect(localEventBus().put([eventOfEntrySize(EVENTBRIDGE_MAX_ENTRY_BYTES + 1)])).rejects.toMatchObject({ name: 'ValidationException' });
    const small = eventOfEntrySize(1000);
    await expect(localEventBus().put(Array.from({ length: 11 }, () => small))).rejects.toMatchObject({ name: 'ValidationException' });
    expect(seen).toEqual([]);
  });
});

// One mock per client class in a file (aws-sdk-client-mock replaces the class's send).
const eventBridge = mockClient(EventBridgeClient);
const ddb = mockClient(DynamoDBDocumentClient);

describe('eventBus on AWS', () => {
  beforeEach(() => {
    eventBridge.reset();
    installEventBus(undefined as never);
    process.env.EVENT_BUS_NAME = 'arthr-fir-events';
    resetConfigForTests();
  });
  afterEach(() => {
    installEventBus(undefined as never);
    delete process.env.EVENT_BUS_NAME;
    resetConfigForTests();
  });

  it("puts events on the stack's bus as the entries the local bus checks, the event whole in Detail", async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: '1' }] });
    const event = instanceEvents.created(record, at);
    expect(await (await eventBus()).put([event])).toBeUndefined();
    const entries = eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries!;
    expect(entries).toEqual([putEventsEntry(event)]);
    expect(entries[0]).toMatchObject({ EventBusName: 'arthr-fir-events', Source: 'arthr.events', DetailType: 'process-instance.created', Time: at });
    expect(JSON.parse(entries[0]!.Detail!)).toEqual(event);
  });

  it('says which entry EventBridge refused first, so the relay resumes there', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 1, Entries: [{ EventId: '1' }, { ErrorCode: 'ThrottlingException', ErrorMessage: 'x' }, { EventId: '3' }] });
    const three = [1, 2, 3].map(() => instanceEvents.created(record, at));
    expect(await (await eventBus()).put(three)).toBe(1);
  });
});

describe('relayRecords', () => {
  const events = Array.from({ length: 23 }, (_, i) => instanceEvents.created({ ...record, id: `pi-${i}` }, new Date(at.getTime() + i)));
  const stored = new Map(events.map((e) => [keyOf(e).SK, e]));
  let puts: EventEnvelope[][];
  let bus: EventBus;
  const deps = (over: Partial<Parameters<typeof relayRecords>[0]> = {}) => ({
    outbox: { get: async (k: { SK: string }) => stored.get(k.SK) },
    bus: async () => bus,
    ...over,
  });
  beforeEach(() => {
    puts = [];
    bus = { put: async (e) => (puts.push([...e]), undefined) };
  });

  it('relays only new outbox items, in stream order, ten to a PutEvents', async () => {
    const records = [
      streamRecord(keys.instance('demo', 'pi-0'), 1),
      ...events.map((e, i) => streamRecord(keyOf(e), 10 + i)),
      // A TTL deletion of an event item (DynamoDB Local names it UNKNOWN_TO_SDK_VERSION), and a REMOVE.
      streamRecord(keyOf(events[0]!), 50, 'UNKNOWN_TO_SDK_VERSION'),
      streamRecord(keyOf(events[1]!), 51, 'REMOVE'),
    ];
    const out = await relayRecords(deps(), records);
    expect(out.failedAt).toBeUndefined();
    expect(out.relayed.map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(puts.map((p) => p.length)).toEqual([10, 10, 3]);
  });

  it('stops at the first chunk the bus fails, and names its first record to retry from', async () => {
    let calls = 0;
    bus = { put: async (e) => (++calls === 2 ? Promise.reject(new Error('throttled')) : (puts.push([...e]), undefined)) };
    const out = await relayRecords(deps(), events.map((e, i) => streamRecord(keyOf(e), 10 + i)));
    expect(out.relayed).toHaveLength(10);
    expect(out.failedAt).toBe('20');
    expect(puts).toHaveLength(1);
  });

  it('resumes at the entry the bus refused, not after it', async () => {
    bus = { put: async (e) => (puts.push([...e]), 4) };
    const out = await relayRecords(deps(), events.slice(0, 6).map((e, i) => streamRecord(keyOf(e), 10 + i)));
    expect(out.relayed.map((e) => e.id)).toEqual(events.slice(0, 4).map((e) => e.id));
    expect(out.failedAt).toBe('14');
  });

  it('sends what it read before an item it could not read, and retries from that item', async () => {
    const failing = keyOf(events[3]!).SK;
    const out = await relayRecords(
      deps({ outbox: { get: async (k: { SK: string }) => (k.SK === failing ? Promise.reject(new Error('ProvisionedThroughputExceededException')) : stored.get(k.SK)) } }),
      events.slice(0, 6).map((e, i) => streamRecord(keyOf(e), 10 + i)),
    );
    expect(out.relayed).toHaveLength(3);
    expect(out.failedAt).toBe('13');
  });

  it('passes over an event item that is gone and one too large for EventBridge, which could never be sent', async () => {
    const big = eventOfEntrySize(EVENTBRIDGE_MAX_ENTRY_BYTES + 1);
    stored.set(keyOf(big).SK, big);
    const gone = instanceEvents.created(record, at);
    const out = await relayRecords(deps(), [streamRecord(keyOf(gone), 1), streamRecord(keyOf(big), 2), streamRecord(keyOf(events[0]!), 3)]);
    expect(out).toEqual({ relayed: [events[0]] });
  });
});

describe('OUTBOX_STREAM_FILTER', () => {
  it("matches new outbox items only, as Lambda's filter does", () => {
    const e = instanceEvents.created(record, at);
    expect(matchesFilter(OUTBOX_STREAM_FILTER, streamRecord(keyOf(e), 1))).toBe(true);
    expect(matchesFilter(OUTBOX_STREAM_FILTER, streamRecord(keyOf(e), 1, 'MODIFY'))).toBe(false);
    expect(matchesFilter(OUTBOX_STREAM_FILTER, streamRecord(keys.instance('demo', 'x'), 1))).toBe(false);
    expect(matchesFilter(OUTBOX_STREAM_FILTER, { eventName: 'INSERT' })).toBe(false);
  });
});

describe('the table stream handler on AWS', () => {
  beforeEach(() => {
    ddb.reset();
    eventBridge.reset();
    installEventBus(undefined as never);
  });
  afterEach(() => installEventBus(undefined as never));

  it('reads each event item strongly consistently and puts it on the bus', async () => {
    const e = instanceEvents.created(record, at);
    ddb.on(GetCommand).resolves({ Item: outboxItem(e) });
    // The tenant has no webhooks: nothing is queued.
    ddb.on(QueryCommand).resolves({ Items: [] });
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: '1' }] });
    expect(await onTableStream({ Records: [streamRecord(keyOf(e), 7)] })).toEqual({ batchItemFailures: [] });
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input).toMatchObject({ Key: keyOf(e), ConsistentRead: true });
    expect(JSON.parse(eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!.Detail!)).toEqual(e);
  });

  it('reports the record to retry from when EventBridge throttles, so Lambda checkpoints nothing after it', async () => {
    const [a, b] = [instanceEvents.created(record, at), instanceEvents.created({ ...record, id: 'pi-2' }, at)];
    ddb.on(GetCommand, { Key: keyOf(a) }).resolves({ Item: outboxItem(a) });
    ddb.on(GetCommand, { Key: keyOf(b) }).resolves({ Item: outboxItem(b) });
    eventBridge.on(PutEventsCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    expect(await onTableStream({ Records: [streamRecord(keyOf(a), 7), streamRecord(keyOf(b), 8)] })).toEqual({ batchItemFailures: [{ itemIdentifier: '7' }] });
  });

  it('reports the first record whose item a throttled read could not get, and relays the ones before it', async () => {
    const [a, b] = [instanceEvents.created(record, at), instanceEvents.created({ ...record, id: 'pi-3' }, at)];
    ddb.on(GetCommand, { Key: keyOf(a) }).resolves({ Item: outboxItem(a) });
    ddb.on(GetCommand, { Key: keyOf(b) }).rejects(Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ProvisionedThroughputExceededException' }));
    ddb.on(QueryCommand).resolves({ Items: [] });
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: '1' }] });
    expect(await onTableStream({ Records: [streamRecord(keyOf(a), 7), streamRecord(keyOf(b), 8)] })).toEqual({ batchItemFailures: [{ itemIdentifier: '8' }] });
    expect(JSON.parse(eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!.Detail!)).toEqual(a);
  });

  it('never reads an item the stream names outside the outbox', async () => {
    expect(await onTableStream({ Records: [{ eventName: 'INSERT', dynamodb: { Keys: { PK: { S: 'TNT#demo#PI#x' }, SK: { S: 'EVT#forged' } }, SequenceNumber: '1' } }] })).toEqual({
      batchItemFailures: [],
    });
    expect(ddb.commandCalls(GetCommand)).toEqual([]);
    expect(eventBridge.commandCalls(PutEventsCommand)).toEqual([]);
  });
});
