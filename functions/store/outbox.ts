import { eventExpiresAt, type EventEnvelope, type InstanceEventEnvelope } from '../shared/events.js';
import { dynamo } from './client.js';
import { itemCodec, unexpired, type Item } from './codec.js';
import { keys, type ItemKey } from './keys.js';
import { orderedMerge, type OrderedSource } from './shards.js';
import { INSTANCE_EVENTS_INDEX } from './schema.js';

/**
 * The transactional outbox: an event is an item written in the same transaction as the change it
 * reports (so there is no change without its event and no event without its change), and leaves
 * through the table's stream (functions/events/relay.ts). Kept 30 days for reading and replay,
 * then DynamoDB's TTL deletes it.
 *
 * A tenant's events are spread over OUTBOX_SHARDS partitions by their subject (keys.outboxEvent),
 * so one tenant's 500 journeys a second do not all write one partition; a subject's events stay
 * together, in order. Readers read every shard and merge by time, and also read the partition the
 * outbox had before shards (events written there stay until their 30 days are out: no backfill).
 */
const outboxEvents = itemCodec<EventEnvelope & { expiresAt: number }>('OutboxEvent');

/**
 * The outbox item of an event, for a transaction's `Put`. An instance's event also carries its
 * entry on the instance's events index (GSI1, `keys.instanceEventIndex`), in the same item, so
 * the index holds every instance event written since, with nothing to keep in step.
 */
export function outboxItem(e: EventEnvelope): Item {
  return outboxEvents.encode(
    { ...e, expiresAt: eventExpiresAt(e) },
    {
      ...keys.outboxEvent(e.tenantId, e.timestamp, e.id, e.subject.id),
      ...(e.subject.type === 'process-instance' ? keys.instanceEventIndex(e.tenantId, e.subject.id, e.timestamp, e.id) : {}),
    },
  );
}

/** The named `Put`s of a transaction for `events` (`event0`, `event1`, ...). */
export function outboxPuts(events: readonly EventEnvelope[], name = 'event'): Record<string, { Put: { Item: Item } }> {
  return Object.fromEntries(events.map((e, i) => [`${name}${i}`, { Put: { Item: outboxItem(e) } }]));
}

export interface OutboxStore {
  /** The event under a key the table's stream named; undefined when the key is not an outbox item's or the item is gone. */
  get(key: ItemKey): Promise<EventEnvelope | undefined>;
  /**
   * A tenant's event by its time and id; undefined when gone (kept 30 days). With its subject's
   * id (a delivery knows it), one read of its shard; without (a replay by id), a read of every shard.
   */
  getEvent(tenantId: string, timestamp: string, id: string, subjectId?: string): Promise<EventEnvelope | undefined>;
  /** An event that goes with no other change (a webhook's test event). */
  put(event: EventEnvelope): Promise<void>;
  /**
   * A tenant's events made from `from` to `to` (ISO instants, both included), oldest first (by
   * time, then id), at most `limit`: every shard read a page at a time and merged.
   */
  range(tenantId: string, from: string, to: string, limit: number): Promise<EventEnvelope[]>;
  /**
   * An instance's events, oldest first (by time, then id), after position `after` (exclusive;
   * `eventPosition` of the last one read, functions/shared/events.ts), at most `limit`, from the instance's partition
   * of the events index; `more` when events follow. Events past their 30 days are skipped. Only
   * events written since the index (see keys.instanceEventIndex) are found.
   */
  instanceEvents(tenantId: string, instanceId: string, limit: number, after?: string): Promise<{ events: InstanceEventEnvelope[]; more: boolean }>;
}

/** The event without the table's TTL attribute; undefined past its retention (TTL deletes late, reads treat it as gone). */
function withoutTtl(record: (EventEnvelope & { expiresAt: number }) | undefined): EventEnvelope | undefined {
  const live = unexpired(record, new Date());
  if (!live) return undefined;
  const { expiresAt: _ttl, ...event } = live;
  return event;
}

export const outboxStore: OutboxStore = {
  async get(key) {
    // Only an outbox key is read: a stream record names any item of the table.
    if (!keys.parseOutboxEvent(key)) return undefined;
    const { doc, tableName, commands } = await dynamo();
    // Strongly consistent: the record is in the stream because the write committed.
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: { PK: key.PK, SK: key.SK }, ConsistentRead: true }));
    return withoutTtl(outboxEvents.decode(out.Item));
  },
  async getEvent(tenantId, timestamp, id, subjectId) {
    if (subjectId !== undefined) {
      // Its shard, then (an event written before shards) the old partition.
      return (await outboxStore.get(keys.outboxEvent(tenantId, timestamp, id, subjectId))) ?? outboxStore.get(keys.legacyOutboxEvent(tenantId, timestamp, id));
    }
    // GetItems at once rather than a BatchGetItem: the same read units, and no grant beyond GetItem.
    const sk = keys.outboxSort(timestamp, id);
    const found = await Promise.all(keys.outboxPartitions(tenantId).map((PK) => outboxStore.get({ PK, SK: sk })));
    return found.find((e) => e !== undefined);
  },
  async put(event) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(new commands.PutCommand({ TableName: tableName, Item: outboxItem(event) }));
  },
  async range(tenantId, from, to, limit) {
    if (limit < 1) return [];
    const partitions = keys.outboxPartitions(tenantId);
    // A page of each shard: its share of the limit, twice over (shards fill unevenly), at least 10.
    const page = Math.min(limit, Math.max(10, Math.ceil((2 * limit) / partitions.length)));
    const merged = orderedMerge(
      partitions.map((pk) => shardRange(pk, from, to, page)),
      (e) => keys.outboxSort(e.timestamp, e.id),
    );
    const found: EventEnvelope[] = [];
    // Events past their retention (TTL deletes late) are skipped, and the page filled on.
    for (;;) {
      const next = await merged.take(limit - found.length);
      for (const r of next.items) {
        const live = withoutTtl(r);
        if (live) found.push(live);
      }
      if (!next.more || found.length >= limit) return found;
    }
  },
  async instanceEvents(tenantId, instanceId, limit, after) {
    const { doc, tableName, commands } = await dynamo();
    const now = Math.floor(Date.now() / 1000);
    const found: (EventEnvelope & { expiresAt: number })[] = [];
    let start: Record<string, unknown> | undefined;
    // One more than asked tells whether events follow. The filter drops events past their
    // retention that TTL has not deleted yet (the oldest, so they come first): read on past them.
    do {
      const out = await doc.send(
        new commands.QueryCommand({
          TableName: tableName,
          IndexName: INSTANCE_EVENTS_INDEX,
          KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK > :after',
          FilterExpression: 'expiresAt > :now',
          ExpressionAttributeValues: { ':pk': keys.instanceEventIndexPartition(tenantId, instanceId), ':after': after ?? keys.outboxSortPrefix, ':now': now },
          Limit: limit + 1 - found.length,
          ExclusiveStartKey: start,
        }),
      );
      found.push(...outboxEvents.decodeAll(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start && found.length <= limit);
    const events = found.slice(0, limit).flatMap(({ expiresAt: _ttl, ...e }) => (isInstanceEvent(e) ? [e] : []));
    return { events, more: found.length > limit };
  },
};

/** Only instance events carry the index's keys (outboxItem); the type says so to readers. */
function isInstanceEvent(e: EventEnvelope): e is InstanceEventEnvelope {
  return e.subject.type === 'process-instance';
}

/** One outbox partition's events in a time range, oldest first, `page` at a time (the sources keep their place between merges). */
function shardRange(pk: string, from: string, to: string, page: number): OrderedSource<EventEnvelope & { expiresAt: number }> {
  let start: Record<string, unknown> | undefined;
  let done = false;
  return {
    async next() {
      if (done) return { items: [], done };
      const { doc, tableName, commands } = await dynamo();
      const out = await doc.send(
        new commands.QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': pk, ':from': `${keys.outboxSortPrefix}${from}`, ':to': `${keys.outboxSortPrefix}${to}#~` },
          Limit: page,
          ExclusiveStartKey: start,
        }),
      );
      start = out.LastEvaluatedKey;
      done = !start;
      return { items: outboxEvents.decodeAll(out.Items ?? []), done };
    },
  };
}
