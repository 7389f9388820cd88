import type { DeliveryHolds, DeliveryLocation, DeliveryRecord, DeliveryStore, LinePlace, WebhookHealthStore, WebhookRecord, WebhookStore } from '../webhooks/model.js';
import { conditionally, dynamo, ownDynamo, queryAll, transactWrite } from './client.js';
import { itemCodec, type Item } from './codec.js';
import { keys } from './keys.js';
import { DUE_DELIVERIES_INDEX } from './schema.js';
import { getMany } from './ranges.js';
import { orderedMerge, type OrderedSource } from './shards.js';

type Located = Pick<DeliveryRecord, 'tenantId' | 'webhookId' | 'eventTimestamp' | 'eventId' | 'subjectId' | 'beforeShards'>;

/**
 * Where a delivery is kept: its subject's shard (WEBHOOK_DELIVERY_SHARDS), or, for one read from
 * there, the webhook's partition from before shards.
 */
function deliveryKey(d: Located) {
  return keys.webhookDelivery(d.tenantId, d.webhookId, d.eventTimestamp, d.eventId, d.beforeShards ? undefined : keys.webhookDeliveryShard(d.subjectId));
}

/** A PENDING delivery's entry in the due index, from its `sweepAt`: in its subject's shard of the index (old deliveries too). */
function dueKeys(d: Located, sweepAt: string) {
  return keys.webhookDeliveryDue(d.tenantId, sweepAt, d.webhookId, d.eventTimestamp, d.eventId, keys.webhookDeliveryShard(d.subjectId));
}

const webhooks = itemCodec<WebhookRecord>('Webhook');
const deliveryCodec = itemCodec<DeliveryRecord>('WebhookDelivery');
/** A delivery as read: marked when it lies in the partition from before shards (its writes go back there). */
const deliveries = {
  decode(item: Item | undefined): DeliveryRecord | undefined {
    const record = deliveryCodec.decode(item);
    if (!record) return undefined;
    const { beforeShards: _stored, ...rest } = record;
    return item!.PK === keys.webhookDeliveryPartition(record.tenantId, record.webhookId) ? { ...rest, beforeShards: true } : rest;
  },
  decodeAll(items: readonly Item[]): DeliveryRecord[] {
    return items.flatMap((item) => deliveries.decode(item) ?? []);
  },
};

/** A new delivery's item, in its subject's shard (and on the due index while it has a `sweepAt`). */
export function deliveryItem(record: DeliveryRecord): Item {
  const { beforeShards: _b, ...fields } = record;
  return deliveryCodec.encode(fields, { ...deliveryKey(fields), ...(record.sweepAt ? dueKeys(fields, record.sweepAt) : {}) });
}

/** Delivery list cursors: the last listed delivery's sort key (event time, then id), the same in every partition. */
const DELIVERY_POSITION = /^\d{4}-\d\d-\d\dT[\d:.]+Z#evt_[0-9A-Z]{26}$/;

export const webhookStore: WebhookStore = {
  /** The webhook and the tenant's count in one transaction: the limit holds however many create at once. */
  async create(record, max) {
    const outcome = await transactWrite(
      {
        count: {
          Update: {
            Key: keys.webhookCount(record.tenantId),
            UpdateExpression: 'ADD webhooks :one',
            ConditionExpression: 'attribute_not_exists(webhooks) OR webhooks < :max',
            ExpressionAttributeValues: { ':one': 1, ':max': max },
          },
        },
        webhook: { Put: { Item: webhooks.encode(record, keys.webhook(record.tenantId, record.id)), ConditionExpression: 'attribute_not_exists(PK)' } },
      },
      { retryConflicts: 5 },
    );
    if (outcome.written) return 'created';
    if (outcome.failed.includes('count')) return 'full';
    throw outcome.error;
  },

  async get(tenantId, id) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.webhook(tenantId, id), ConsistentRead: true }));
    return webhooks.decode(out.Item);
  },

  async list(tenantId) {
    return webhooks.decodeAll(await queryAll(keys.webhookPartition(tenantId), 'WH#'));
  },

  async update(record, previousUpdatedDtm) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.PutCommand({
          TableName: tableName,
          Item: webhooks.encode(record, keys.webhook(record.tenantId, record.id)),
          ConditionExpression: 'attribute_exists(PK) AND updatedDtm = :read',
          ExpressionAttributeValues: { ':read': previousUpdatedDtm },
        }),
      ),
    );
  },

  async delete(tenantId, id) {
    const outcome = await transactWrite(
      {
        webhook: { Delete: { Key: keys.webhook(tenantId, id), ConditionExpression: 'attribute_exists(PK)' } },
        count: { Update: { Key: keys.webhookCount(tenantId), UpdateExpression: 'ADD webhooks :minus', ExpressionAttributeValues: { ':minus': -1 } } },
      },
      { retryConflicts: 5 },
    );
    if (outcome.written) return true;
    if (outcome.failed.includes('webhook')) return false;
    throw outcome.error;
  },
};

export const deliveryStore: DeliveryStore = {
  async start(record) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.PutCommand({
          TableName: tableName,
          Item: deliveryItem(record),
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
  },

  async restart(record) {
    const { doc, tableName, commands } = await dynamo();
    const { attempts: _a, createdAt, tenantId, webhookId, eventId, eventTimestamp, sweepAt, parkedAt: _p, leaseUntil: _l, beforeShards: _b, ...fields } = record;
    // The retry schedule starts again after the attempts made before (they stay in the log). A
    // delivery from before shards is made PENDING again where it is, so it is never listed twice.
    const earlier = await deliveryStore.get(tenantId, webhookId, eventTimestamp, eventId, { subjectId: record.subjectId });
    const before = earlier?.attempts.length ?? 0;
    const where: Located = { ...record, ...(earlier?.beforeShards ? { beforeShards: true } : {}) };
    const rest = { ...fields, attemptsBefore: before, ...(sweepAt ? { sweepAt, ...dueKeys(where, sweepAt) } : {}) };
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':none': [], ':created': createdAt, ':type': 'WebhookDelivery' };
    const sets = Object.entries({ tenantId, webhookId, eventId, eventTimestamp, ...rest }).map(([k, v], i) => {
      names[`#a${i}`] = k;
      values[`:a${i}`] = v;
      return `#a${i} = :a${i}`;
    });
    await doc.send(
      new commands.UpdateCommand({
        TableName: tableName,
        Key: deliveryKey(where),
        // A claim or parking of before the replay is over: the replay's message makes the next attempt.
        UpdateExpression: `SET ${sets.join(', ')}, attempts = if_not_exists(attempts, :none), createdAt = if_not_exists(createdAt, :created), itemType = :type REMOVE nextAttemptAt, leaseUntil, parkedAt`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return before;
  },

  async get(tenantId, webhookId, eventTimestamp, eventId, location: DeliveryLocation) {
    const { doc, tableName, commands } = await dynamo();
    const read = async (shard: number | undefined) =>
      deliveries.decode(
        (await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.webhookDelivery(tenantId, webhookId, eventTimestamp, eventId, shard), ConsistentRead: true })))
          .Item,
      );
    if ('shard' in location) return read(location.shard === 'beforeShards' ? undefined : location.shard);
    // Its subject's shard, where every delivery made since shards is; else one from before them.
    return (await read(keys.webhookDeliveryShard(location.subjectId))) ?? (await read(undefined));
  },

  async record(delivery, attempt, status, nextAttemptAt, sweepAt) {
    const { doc, tableName, commands } = await dynamo();
    const pending = status === 'PENDING' && sweepAt !== undefined;
    const sets = ['attempts = list_append(if_not_exists(attempts, :none), :attempt)', '#status = :status', 'updatedAt = :at'];
    const removes = ['leaseUntil', 'parkedAt'];
    const values: Record<string, unknown> = { ':none': [], ':attempt': [attempt], ':status': status, ':at': attempt.at };
    if (nextAttemptAt) {
      sets.push('nextAttemptAt = :next');
      values[':next'] = nextAttemptAt;
    } else removes.push('nextAttemptAt');
    if (pending) {
      const due = dueKeys(delivery, sweepAt);
      sets.push('sweepAt = :sweep', 'GSI3PK = :dpk', 'GSI3SK = :dsk');
      Object.assign(values, { ':sweep': sweepAt, ':dpk': due.GSI3PK, ':dsk': due.GSI3SK });
    } else removes.push('sweepAt', 'GSI3PK', 'GSI3SK');
    await doc.send(
      new commands.UpdateCommand({
        TableName: tableName,
        Key: deliveryKey(delivery),
        UpdateExpression: `SET ${sets.join(', ')} REMOVE ${removes.join(', ')}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: values,
      }),
    );
  },

  async settle(delivery, status) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(
      new commands.UpdateCommand({
        TableName: tableName,
        Key: deliveryKey(delivery),
        // Settled: off the due index, no claim, not parked.
        UpdateExpression: 'SET #status = :status, updatedAt = :at REMOVE nextAttemptAt, sweepAt, GSI3PK, GSI3SK, leaseUntil, parkedAt',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': status, ':at': new Date().toISOString() },
      }),
    );
  },

  async claim(delivery, attempts, leaseUntil, now) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: deliveryKey(delivery),
          UpdateExpression: 'SET leaseUntil = :lease',
          ConditionExpression: `#status = :pending AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)${attempts === undefined ? '' : ' AND size(attempts) = :n'}`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':lease': leaseUntil, ':pending': 'PENDING', ':now': now.toISOString(), ...(attempts === undefined ? {} : { ':n': attempts }) },
        }),
      ),
    );
  },

  async park(delivery, parkedAt, sweepAt) {
    const { doc, tableName, commands } = await dynamo();
    const due = dueKeys(delivery, sweepAt);
    await conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: deliveryKey(delivery),
          UpdateExpression: `SET sweepAt = :sweep, GSI3PK = :dpk, GSI3SK = :dsk${parkedAt ? ', parkedAt = :parked' : ' REMOVE parkedAt'}`,
          // Only while PENDING: a delivery settled meanwhile stays off the due index.
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':sweep': sweepAt, ':dpk': due.GSI3PK, ':dsk': due.GSI3SK, ':pending': 'PENDING', ...(parkedAt ? { ':parked': parkedAt } : {}) },
        }),
      ),
    );
  },

  async reschedule(delivery, seenSweepAt, sweepAt) {
    const { doc, tableName, commands } = await dynamo();
    const due = dueKeys(delivery, sweepAt);
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: deliveryKey(delivery),
          UpdateExpression: 'SET sweepAt = :sweep, GSI3PK = :dpk, GSI3SK = :dsk',
          ConditionExpression: '#status = :pending AND sweepAt = :seen',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':sweep': sweepAt, ':dpk': due.GSI3PK, ':dsk': due.GSI3SK, ':pending': 'PENDING', ':seen': seenSweepAt },
        }),
      ),
    );
  },

  async dueForSweep(before, cursor) {
    // Across tenants, on the function's own role (keys only); each delivery is then handled in its tenant's scope.
    const { doc, tableName, commands } = await ownDynamo();
    const out = await doc.send(
      new commands.ScanCommand({
        TableName: tableName,
        IndexName: DUE_DELIVERIES_INDEX,
        // The sort key starts with `sweepAt`: '#' sorts below every character after it.
        FilterExpression: 'GSI3SK < :before',
        ExpressionAttributeValues: { ':before': `${before.toISOString()}#` },
        ...(cursor !== undefined ? { ExclusiveStartKey: JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown> } : {}),
      }),
    );
    const due = (out.Items ?? []).flatMap((item) => {
      const parsed = keys.parseWebhookDeliveryDue({ PK: String(item.PK), SK: String(item.SK), GSI3SK: String(item.GSI3SK) });
      if (!parsed) return [];
      const location: DeliveryLocation = { shard: parsed.shard ?? 'beforeShards' };
      return [{ tenantId: parsed.tenantId, webhookId: parsed.webhookId, eventTimestamp: parsed.eventTimestamp, eventId: parsed.eventId, location }];
    });
    return { due, ...(out.LastEvaluatedKey ? { next: Buffer.from(JSON.stringify(out.LastEvaluatedKey), 'utf8').toString('base64url') } : {}) };
  },

  /**
   * Newest first across the webhook's shards and its partition from before shards, merged by the
   * sort key (event time, then id). The cursor is the last listed delivery's sort key, a position
   * that means the same in every partition (a cursor handed out before shards still works).
   */
  async page(tenantId, webhookId, size, cursor) {
    let after: string | undefined;
    if (cursor) {
      after = Buffer.from(cursor, 'base64url').toString('utf8');
      // Only a sort key of a delivery's shape: a cursor cannot point elsewhere.
      if (!DELIVERY_POSITION.test(after)) return 'invalidToken';
    }
    const { doc, tableName, commands } = await dynamo();
    const source = (pk: string): OrderedSource<Item> => {
      let start: Record<string, unknown> | undefined;
      let first = true;
      return {
        async next() {
          const out = await doc.send(
            new commands.QueryCommand({
              TableName: tableName,
              KeyConditionExpression: after ? 'PK = :pk AND SK < :after' : 'PK = :pk',
              ExpressionAttributeValues: { ':pk': pk, ...(after ? { ':after': after } : {}) },
              ScanIndexForward: false,
              // The first page asks for what the whole page could take; each further one for as much.
              Limit: first ? size + 1 : size,
              ExclusiveStartKey: start,
            }),
          );
          first = false;
          start = out.LastEvaluatedKey;
          return { items: out.Items ?? [], done: !start };
        },
      };
    };
    const merged = orderedMerge(keys.webhookDeliveryPartitions(tenantId, webhookId).map(source), (item) => String(item.SK), true);
    const page = await merged.take(size);
    const last = page.items.at(-1)?.SK;
    return {
      deliveries: deliveries.decodeAll(page.items),
      ...(page.more && typeof last === 'string' ? { next: Buffer.from(last, 'utf8').toString('base64url') } : {}),
    };
  },

  async many(tenantId, at) {
    // Only the shards: deliveries from before shards are of events older than the instance events index.
    return deliveries.decodeAll(
      await getMany(at.map((p) => keys.webhookDelivery(tenantId, p.webhookId, p.eventTimestamp, p.eventId, keys.webhookDeliveryShard(p.subjectId)))),
    );
  },
};

const holdCodec = itemCodec<{ tenantId: string; webhookId: string; subjectId: string; at: string; eventTimestamp: string; eventId: string; parked: boolean; expiresAt: number }>('WebhookHold');

/**
 * Webhooks whose subject lines from before shards are all gone (their old partition is empty),
 * as this container found: nothing writes there any more, so once empty it stays empty and is
 * read no more. Until then each look at a line reads that partition too (lines held at the
 * deploy: a failing endpoint's, which drain with their retries within about 28 hours).
 */
const oldLinesGone = new Set<string>();
const oldLinesChecked = new Map<string, number>();
const OLD_LINES_RECHECK_MS = 60_000;

async function oldLinesMayRemain(tenantId: string, webhookId: string): Promise<boolean> {
  const id = `${tenantId}#${webhookId}`;
  if (oldLinesGone.has(id)) return false;
  const checked = oldLinesChecked.get(id);
  if (checked !== undefined && Date.now() - checked < OLD_LINES_RECHECK_MS) return true;
  const { doc, tableName, commands } = await dynamo();
  const out = await doc.send(
    new commands.QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.webhookHoldPartition(tenantId, webhookId) },
      ConsistentRead: true,
      Limit: 1,
      ProjectionExpression: 'PK',
    }),
  );
  if (!out.Items?.length) {
    oldLinesGone.add(id);
    return false;
  }
  oldLinesChecked.set(id, Date.now());
  return true;
}

async function lineEnd(tenantId: string, webhookId: string, subjectId: string, forward: boolean): Promise<LinePlace | undefined> {
  const { doc, tableName, commands } = await dynamo();
  const end = async (shard: number | undefined) => {
    const out = await doc.send(
      new commands.QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :subject)',
        ExpressionAttributeValues: { ':pk': keys.webhookHoldPartition(tenantId, webhookId, shard), ':subject': keys.webhookHoldSubjectPrefix(subjectId) },
        ConsistentRead: true,
        ScanIndexForward: forward,
        Limit: 1,
      }),
    );
    const hold = holdCodec.decode(out.Items?.[0]);
    return hold && { at: hold.at, eventTimestamp: hold.eventTimestamp, eventId: hold.eventId, parked: hold.parked, ...(shard === undefined ? { heldBeforeShards: true as const } : {}) };
  };
  const ends = await Promise.all([end(keys.webhookDeliveryShard(subjectId)), (await oldLinesMayRemain(tenantId, webhookId)) ? end(undefined) : undefined]);
  // A line begun before shards goes on in the subject's shard: its ends are the earliest and the latest of both.
  const found = ends.filter((e): e is LinePlace => e !== undefined);
  return found.reduce<LinePlace | undefined>((best, e) => (!best || (forward ? e.at < best.at : e.at > best.at) ? e : best), undefined);
}

export const deliveryHolds: DeliveryHolds = {
  first: (tenantId, webhookId, subjectId) => lineEnd(tenantId, webhookId, subjectId, true),
  last: (tenantId, webhookId, subjectId) => lineEnd(tenantId, webhookId, subjectId, false),

  async put(d, at, parked) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(
      new commands.PutCommand({
        TableName: tableName,
        Item: holdCodec.encode(
          // Gone with the delivery's log at the latest (TTL), should nothing take it out before.
          { tenantId: d.tenantId, webhookId: d.webhookId, subjectId: d.subjectId, at, eventTimestamp: d.eventTimestamp, eventId: d.eventId, parked, expiresAt: d.expiresAt },
          keys.webhookHold(d.tenantId, d.webhookId, d.subjectId, at, d.eventTimestamp, d.eventId),
        ),
      }),
    );
  },

  async remove(d) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(
      new commands.DeleteCommand({ TableName: tableName, Key: keys.webhookHold(d.tenantId, d.webhookId, d.subjectId, d.at, d.eventTimestamp, d.eventId, d.heldBeforeShards === true) }),
    );
  },

  async unpark(d) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.webhookHold(d.tenantId, d.webhookId, d.subjectId, d.at, d.eventTimestamp, d.eventId, d.heldBeforeShards === true),
          UpdateExpression: 'SET parked = :no',
          ConditionExpression: 'parked = :yes',
          ExpressionAttributeValues: { ':no': false, ':yes': true },
        }),
      ),
    );
  },
};

export const webhookHealthStore: WebhookHealthStore = {
  async get(tenantId, webhookId) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.webhookHealth(tenantId, webhookId), ConsistentRead: true }));
    const item = out.Item;
    if (item?.itemType !== 'WebhookHealth') return undefined;
    return { failures: Number(item.failures ?? 0), ...(typeof item.probeAt === 'string' ? { probeAt: item.probeAt } : {}) };
  },

  async failed(tenantId, webhookId, threshold, probeAt) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(
      new commands.UpdateCommand({
        TableName: tableName,
        Key: keys.webhookHealth(tenantId, webhookId),
        UpdateExpression: 'ADD failures :one SET itemType = :type',
        ExpressionAttributeValues: { ':one': 1, ':type': 'WebhookHealth' },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const failures = Number(out.Attributes?.failures ?? 1);
    if (failures >= threshold) {
      // The failure that makes it failing sets when it is next tried; later ones leave that alone.
      await conditionally(() =>
        doc.send(
          new commands.UpdateCommand({
            TableName: tableName,
            Key: keys.webhookHealth(tenantId, webhookId),
            UpdateExpression: 'SET probeAt = :probe',
            ConditionExpression: 'attribute_not_exists(probeAt)',
            ExpressionAttributeValues: { ':probe': probeAt },
          }),
        ),
      );
    }
    return failures;
  },

  async succeeded(tenantId, webhookId) {
    const { doc, tableName, commands } = await dynamo();
    // Only when there is something to clear: a healthy endpoint's deliveries cost no write here.
    await conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.webhookHealth(tenantId, webhookId),
          UpdateExpression: 'SET failures = :zero REMOVE probeAt',
          ConditionExpression: 'failures > :zero',
          ExpressionAttributeValues: { ':zero': 0 },
        }),
      ),
    );
  },

  async takeProbe(tenantId, webhookId, seenProbeAt, probeAt) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.webhookHealth(tenantId, webhookId),
          UpdateExpression: 'SET probeAt = :next',
          ConditionExpression: 'probeAt = :seen',
          ExpressionAttributeValues: { ':next': probeAt, ':seen': seenProbeAt },
        }),
      ),
    );
  },
};
