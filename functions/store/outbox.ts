import { eventExpiresAt, type EventEnvelope } from '../shared/events.js';
import { dynamo } from './client.js';
import { itemCodec, unexpired, type Item } from './codec.js';
import { keys, type ItemKey } from './keys.js';

/**
 * The transactional outbox: an event is an item written in the same transaction as the change it
 * reports (so there is no change without its event and no event without its change), and leaves
 * through the table's stream (functions/events/relay.ts). Kept 30 days for reading and replay,
 * then DynamoDB's TTL deletes it.
 */
const outboxEvents = itemCodec<EventEnvelope & { expiresAt: number }>('OutboxEvent');

/** The outbox item of an event, for a transaction's `Put`. */
export function outboxItem(e: EventEnvelope): Item {
  return outboxEvents.encode(
    { ...e, expiresAt: eventExpiresAt(e) },
    keys.outboxEvent(e.tenantId, e.timestamp, e.id),
  );
}

/** The named `Put`s of a transaction for `events` (`event0`, `event1`, ...). */
export function outboxPuts(events: readonly EventEnvelope[], name = 'event'): Record<string, { Put: { Item: Item } }> {
  return Object.fromEntries(events.map((e, i) => [`${name}${i}`, { Put: { Item: outboxItem(e) } }]));
}

export interface OutboxStore {
  /** The event under a key the table's stream named; undefined when the key is not an outbox item's or the item is gone. */
  get(key: ItemKey): Promise<EventEnvelope | undefined>;
  /** A tenant's event by its time and id; undefined when gone (kept 30 days). */
  getEvent(tenantId: string, timestamp: string, id: string): Promise<EventEnvelope | undefined>;
  /** An event that goes with no other change (a webhook's test event). */
  put(event: EventEnvelope): Promise<void>;
  /** A tenant's events made from `from` to `to` (ISO instants, both included), oldest first, at most `limit`. */
  range(tenantId: string, from: string, to: string, limit: number): Promise<EventEnvelope[]>;
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
  getEvent(tenantId, timestamp, id) {
    return outboxStore.get(keys.outboxEvent(tenantId, timestamp, id));
  },
  async put(event) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(new commands.PutCommand({ TableName: tableName, Item: outboxItem(event) }));
  },
  async range(tenantId, from, to, limit) {
    const { doc, tableName, commands } = await dynamo();
    const found: EventEnvelope[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await doc.send(
        new commands.QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': keys.outboxPartition(tenantId), ':from': `${keys.outboxSortPrefix}${from}`, ':to': `${keys.outboxSortPrefix}${to}#~` },
          Limit: limit - found.length,
          ExclusiveStartKey: start,
        }),
      );
      found.push(...outboxEvents.decodeAll(out.Items ?? []).flatMap((r) => withoutTtl(r) ?? []));
      start = out.LastEvaluatedKey;
    } while (start && found.length < limit);
    return found;
  },
};
