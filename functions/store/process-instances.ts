import type {
  CONTACT_PARAMETERS as ContactParameters,
  InstanceView,
  InstanceViewQuery,
  IdempotentResult,
  ProcessInstanceRecord,
  ProcessInstanceStore,
  StepClaim,
  StepUserData,
  WaitingStep,
} from '../process-manager/model.js';
import { itemCodec, unexpired } from './codec.js';
import { conditionally, dynamo, ownDynamo, queryAll, transactWrite } from './client.js';
import { keys } from './keys.js';
import { distinctWords, MAX_TERMS_PER_INSTANCE } from '../shared/search-terms.js';
import { OPEN_INSTANCES_INDEX } from './schema.js';
import { sessionItem } from './sessions.js';
import { outboxItem, outboxPuts } from './outbox.js';
import { orderedMerge, type OrderedSource } from './shards.js';
import { tokenUseItem, useShardCounts } from './process-tokens.js';

const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

const instances = /* @__PURE__ */ itemCodec<ProcessInstanceRecord>('ProcessInstance');
const idempotencyRecords = /* @__PURE__ */ itemCodec<IdempotentResult & { expiresAt: number }>('Idempotency');
const userData = /* @__PURE__ */ itemCodec<StepUserData & { expiresAt: number }>('UserData');
const waitingSteps = /* @__PURE__ */ itemCodec<WaitingStep & { expiresAt: number }>('WaitingStep');

/** The model's contact parameters (the store imports the model as types only; the type keeps the two equal). */
const CONTACT_PARAMETERS = ['firstName', 'lastName', 'email', 'phoneNumber'] as const satisfies typeof ContactParameters;

const views = /* @__PURE__ */ itemCodec<InstanceView & { w?: string[] }>('ProcessInstanceView');
const VIEW_KINDS = ['T', 'S', 'D'] as const;

/**
 * The search terms of an instance (functions/shared/search-terms.ts), at most
 * MAX_TERMS_PER_INSTANCE, first come first kept: the words of its id, its definition name, the
 * contact parameters, then the other parameter values (not `_redirectUrl`).
 */
export function searchTerms(record: ProcessInstanceRecord): string[] {
  const contact = CONTACT_PARAMETERS.flatMap((k) => (record.parameters[k] !== undefined ? [record.parameters[k]] : []));
  const others = Object.entries(record.parameters)
    .filter(([k]) => k !== '_redirectUrl' && !(CONTACT_PARAMETERS as readonly string[]).includes(k))
    .map(([, v]) => String(v));
  return distinctWords([record.id, record.processDefnName, ...contact, ...others], MAX_TERMS_PER_INSTANCE);
}

/** The slim view of an instance as its views store it. */
function viewOf(record: ProcessInstanceRecord): InstanceView {
  const parameters: Record<string, string> = {};
  for (const k of CONTACT_PARAMETERS) if (record.parameters[k] !== undefined) parameters[k] = record.parameters[k];
  return {
    tenantId: record.tenantId,
    id: record.id,
    processDefnId: record.processDefnId,
    processDefnName: record.processDefnName,
    processDefnVersion: record.processDefnVersion,
    processTokenId: record.processTokenId,
    status: record.status,
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    retentionDays: record.retentionDays,
    expiringDtm: record.expiringDtm,
    expiresAt: record.expiresAt,
    parameters,
    ...(record.forTest ? { forTest: true as const } : {}),
  };
}

/**
 * Every list view of an instance, each with its GSI1 keys: T, S and D, then one term view per
 * search term (carrying all the instance's terms as `w`, so a search for several words queries
 * one and filters on the others). All share the instance's TTL (`expiresAt`).
 */
export function viewItems(record: ProcessInstanceRecord): { name: string; item: Record<string, unknown> }[] {
  const view = viewOf(record);
  const sk = keys.instanceViewIndexSort(record.createdAt, record.id);
  // Each list is spread over shards by instance (hot lists: every instance writes T three times).
  const shard = keys.instanceViewShard(record.id);
  const partitions = {
    T: { kind: 'T' as const },
    S: { kind: 'S' as const, status: record.status },
    D: { kind: 'D' as const, name: record.processDefnName },
  };
  const terms = searchTerms(record);
  return [
    ...VIEW_KINDS.map((kind) => ({
      name: `view${kind}`,
      item: views.encode(view, {
        ...keys.instanceView(record.tenantId, record.id, kind),
        GSI1PK: keys.instanceViewIndexPartition(record.tenantId, partitions[kind], shard),
        GSI1SK: sk,
      }),
    })),
    ...terms.map((term, i) => ({
      name: `term${i}`,
      item: views.encode(
        { ...view, w: terms },
        {
          ...keys.instanceTermView(record.tenantId, record.id, term),
          GSI1PK: keys.instanceViewIndexPartition(record.tenantId, { kind: 'W', term }, shard),
          GSI1SK: sk,
        },
      ),
    })),
  ];
}

/** The items the creation transaction writes for an instance (for bulk loads: the bench). */
export function instanceItemsForBench(record: ProcessInstanceRecord): Record<string, unknown>[] {
  return [instances.encode(record, keys.instance(record.tenantId, record.id)), ...viewItems(record).map((v) => v.item)];
}

/**
 * The Query input of a view query in one of its list's partitions (key condition on the range,
 * the rest as filters). A cursor (`after`) narrows the range to end (or, ascending, start) at its
 * item, inclusive: the same bound holds in every shard of the list, and the cursor's own item
 * (in one of them) is dropped by the reader (`isCursorItem`).
 */
function viewQueryInput(q: InstanceViewQuery, pk: string) {
  let from = q.from ? new Date(q.from).toISOString() : '0';
  // Sort keys are `{createdAt}#{id}`: '~' sorts after every character they contain.
  let to = q.to ? `${new Date(q.to).toISOString()}~` : '~';
  if (q.after) {
    const at = keys.instanceViewIndexSort(q.after.createdAt, q.after.id);
    if (q.direction === 'asc') from = at > from ? at : from;
    else to = at < to ? at : to;
  }
  const values: Record<string, unknown> = { ':pk': pk, ':from': from, ':to': to, ':now': Math.floor(q.now.getTime() / 1000) };
  const names: Record<string, string> = {};
  // Expired instances are gone for every reader (TTL deletes them late).
  const filters = ['expiresAt > :now'];
  if (q.statuses?.length && q.partition.kind !== 'S') {
    names['#status'] = 'status';
    filters.push(`#status IN (${q.statuses.map((s, i) => ((values[`:s${i}`] = s), `:s${i}`)).join(', ')})`);
  }
  if (q.processDefnId) {
    values[':defn'] = q.processDefnId;
    filters.push('processDefnId = :defn');
  }
  if (q.processDefnName && q.partition.kind !== 'D') {
    values[':defnName'] = q.processDefnName;
    filters.push('processDefnName = :defnName');
  }
  // The other words of a search: every one must be among the instance's terms.
  (q.terms ?? []).forEach((t, i) => {
    values[`:w${i}`] = t;
    filters.push(`contains(w, :w${i})`);
  });
  return {
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK BETWEEN :from AND :to',
    FilterExpression: filters.join(' AND '),
    ExpressionAttributeValues: values,
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    ScanIndexForward: q.direction === 'asc',
  };
}

/** Whether a view is the item a cursor starts after (the inclusive bound reads it again). */
function isCursorItem(q: InstanceViewQuery, view: { createdAt: string; id: string }): boolean {
  return q.after !== undefined && view.id === q.after.id && view.createdAt === q.after.createdAt;
}

/**
 * One partition of a list, read in the query's order: first what a page asks (and one more, to
 * tell whether more match, and one for the cursor's own item), then, when the filters drop
 * items, slices of at least 100 slim views.
 */
function viewSource(q: InstanceViewQuery, pk: string, limit: number): OrderedSource<InstanceView> {
  const input = viewQueryInput(q, pk);
  let start: Record<string, unknown> | undefined;
  let calls = 0;
  let kept = 0;
  return {
    async next() {
      const { doc, tableName, commands } = await dynamo();
      const want = limit + 1 + (q.after ? 1 : 0);
      const out = await doc.send(
        new commands.QueryCommand({
          ...input,
          TableName: tableName,
          ExclusiveStartKey: start,
          Limit: calls++ === 0 ? want : Math.min(1000, Math.max(2 * (want - kept), 100)),
        }),
      );
      start = out.LastEvaluatedKey;
      const items: InstanceView[] = [];
      for (const v of views.decodeAll(out.Items ?? [])) {
        // `q` is the substring terms views held before term views (until a backfill rewrites them).
        const { w: _w, q: _q, ...view } = v as InstanceView & { w?: string[]; q?: string };
        if (!isCursorItem(q, view)) items.push(view);
      }
      kept += items.length;
      return { items, done: !start };
    },
  };
}

/**
 * An item written whole through UpdateItem (SET of every attribute): the same item a Put would
 * write, with the one action the instance's writers are granted (no PutItem or DeleteItem on
 * instances for journey functions).
 */
export function updateWhole(item: Record<string, unknown>, extra: { ConditionExpression?: string; values?: Record<string, unknown>; remove?: string[] } = {}) {
  const { PK, SK, ...rest } = item;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ...extra.values };
  const sets = Object.entries(rest).map(([k, v], i) => {
    names[`#a${i}`] = k;
    values[`:a${i}`] = v;
    return `#a${i} = :a${i}`;
  });
  return {
    Key: { PK: PK as string, SK: SK as string },
    UpdateExpression: `SET ${sets.join(', ')}${extra.remove?.length ? ` REMOVE ${extra.remove.join(', ')}` : ''}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ...(extra.ConditionExpression ? { ConditionExpression: extra.ConditionExpression } : {}),
  };
}

/** What a done step leaves: its item without content (`taskToken` gone), deleted by its TTL. */
const STEP_DONE = 'REMOVE taskToken, activityId, activityType, inputs, #state, outputs, since, refusals';

/** `lastUpdatedAt` on an instance that exists (a transaction item). */
function stamp(tenantId: string, id: string, now: Date) {
  return {
    Update: {
      Key: keys.instance(tenantId, id),
      UpdateExpression: 'SET lastUpdatedAt = :now',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':now': now.toISOString() },
    },
  };
}
const stepClaims = /* @__PURE__ */ itemCodec<StepClaim & { expiresAt: number }>('StepClaim');

export const processInstanceStore: ProcessInstanceStore = {
  /**
   * One transaction: the token's use (a conditional increment of one of its use shards, chosen
   * at random, that also checks its status and validity window; a token made before shards: of
   * its own item), the instance, and the idempotency record if any. Concurrent creations on one
   * shard conflict inside DynamoDB and are retried, so every request ends as exactly one
   * instance or one clear refusal. A spent shard sends the creation to the others that still
   * have uses (read anew, consistently): the token is refused only when every shard is spent,
   * and never used more often than its shards' shares add up to (`maxCount`).
   */
  async createWithToken(record, token, now, event, idempotency, session) {
    const nowEpoch = Math.floor(now.getTime() / 1000);
    const rest = {
      instance: {
        Put: {
          // No GSI1 keys: lists read the slim views, never the instance item.
          Item: instances.encode(record, {
            ...keys.instance(record.tenantId, record.id),
            // On the reconciler's index until its status is final.
            ...(record.reconcileAt !== undefined ? keys.instanceOpen(record.tenantId, record.reconcileAt, record.id) : {}),
          }),
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      session: session && { Put: { Item: sessionItem(record.tenantId, record.id, 0, session, record.expiresAt) } },
      // The outbox: no instance without its `created` event, and no event without the instance.
      event: { Put: { Item: outboxItem(event) } },
      // The list views and term views (at most 3 + MAX_TERMS_PER_INSTANCE: with the five
      // items above, far under a transaction's 100).
      ...Object.fromEntries(viewItems(record).map((v) => [v.name, { Put: { Item: v.item } }])),
      idempotency: idempotency && {
        Put: {
          Item: idempotencyRecords.encode(
            { ...idempotency.result, expiresAt: nowEpoch + IDEMPOTENCY_TTL_SECONDS },
            keys.idempotency(record.tenantId, idempotency.key),
          ),
          // A record past its TTL that DynamoDB has not deleted yet no longer counts.
          ConditionExpression: 'attribute_not_exists(PK) OR expiresAt <= :nowEpoch',
          ExpressionAttributeValues: { ':nowEpoch': nowEpoch },
        },
      },
    };
    const pick = (from: readonly number[]) => from[Math.floor(Math.random() * from.length)]!;
    const spent = new Set<number>();
    let shard = token.useShards === undefined ? undefined : pick(Array.from({ length: token.useShards }, (_, s) => s));
    for (;;) {
      const outcome = await transactWrite(
        { tokenUse: tokenUseItem(token, now, shard), ...rest },
        // Another transaction held the shard: back off with jitter and try again.
        { retryConflicts: 20 },
      );
      if (outcome.written) return { outcome: 'created' };
      if (!outcome.failed.includes('tokenUse')) {
        if (outcome.failed.includes('idempotency')) return { outcome: 'idempotencyKeyTaken' };
        throw outcome.error;
      }
      if (shard === undefined) return { outcome: 'tokenRefused' };
      // This shard is spent (shards only fill up, so it stays spent): the others that have uses left, if any.
      spent.add(shard);
      const open = (await useShardCounts(token)).filter((u) => !spent.has(u.shard) && (u.limit === undefined || u.used < u.limit)).map((u) => u.shard);
      if (!open.length) return { outcome: 'tokenRefused' };
      shard = pick(open);
    }
  },

  /**
   * A page of a list: every partition of the list (its shards and its partition from before
   * shards) read in the query's order and merged by creation time, then id.
   */
  async queryViews(tenantId, query, limit) {
    const merged = orderedMerge(
      keys.instanceViewIndexPartitions(tenantId, query.partition).map((pk) => viewSource(query, pk, limit)),
      (v) => keys.instanceViewIndexSort(v.createdAt, v.id),
      query.direction !== 'asc',
    );
    const page = await merged.take(limit);
    return { views: page.items, more: page.more };
  },

  /** The matches of every partition of the list, one after another, within one cap and one read budget. */
  async countViews(tenantId, query, cap, readBudget) {
    const { doc, tableName, commands } = await dynamo();
    let count = 0;
    let read = 0;
    let exhausted = false;
    for (const pk of keys.instanceViewIndexPartitions(tenantId, query.partition)) {
      if (count >= cap) break;
      if (read >= readBudget) {
        exhausted = true;
        break;
      }
      const input = viewQueryInput(query, pk);
      let start: Record<string, unknown> | undefined;
      do {
        // Limit bounds what a call reads (before the filter): never past the budget, nor past the cap when nothing is filtered out.
        const out = await doc.send(
          new commands.QueryCommand({
            ...input,
            TableName: tableName,
            ExclusiveStartKey: start,
            Select: 'COUNT',
            Limit: Math.max(1, Math.min(cap - count, readBudget - read)),
          }),
        );
        count += out.Count ?? 0;
        read += out.ScannedCount ?? 0;
        start = out.LastEvaluatedKey;
      } while (start && count < cap && read < readBudget);
      if (start !== undefined && count < cap) exhausted = true;
    }
    return { count: Math.min(count, cap), exhausted: exhausted && count < cap };
  },

  async scanInstances(tenantId, cursor) {
    const { doc, tableName, commands } = await dynamo();
    const values: Record<string, unknown> = { ':pi': 'PI' };
    const filters = ['SK = :pi'];
    if (tenantId !== undefined) {
      // The instance item's key (`TNT#{tenant}#PI#{id}`) without its id: keys.ts builds it.
      values[':prefix'] = keys.instancePartition(tenantId, '');
      filters.push('begins_with(PK, :prefix)');
    }
    const out = await doc.send(
      new commands.ScanCommand({
        TableName: tableName,
        FilterExpression: filters.join(' AND '),
        ExpressionAttributeValues: values,
        ...(cursor !== undefined ? { ExclusiveStartKey: JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown> } : {}),
      }),
    );
    return {
      records: instances.decodeAll(out.Items ?? []),
      ...(out.LastEvaluatedKey ? { next: Buffer.from(JSON.stringify(out.LastEvaluatedKey), 'utf8').toString('base64url') } : {}),
    };
  },

  async rewriteViews(record) {
    const { tenantId, id } = record;
    const current = viewItems(record);
    const kept = new Set(current.map((v) => v.item.SK as string));
    // Term views of an earlier derivation (another tokenizer, another cap) go.
    const stale = (await queryAll(keys.instancePartition(tenantId, id), keys.instanceTermViewPrefix)).filter((item) => !kept.has(String(item.SK)));
    const outcome = await transactWrite({
      instance: {
        ConditionCheck: {
          Key: keys.instance(tenantId, id),
          ConditionExpression: '#status = :status',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':status': record.status },
        },
      },
      // At most 3 + MAX_TERMS_PER_INSTANCE puts, the check, and stale deletes up to a transaction's 100 (a rerun takes any left).
      ...Object.fromEntries(current.map((v) => [v.name, { Put: { Item: v.item } }])),
      ...Object.fromEntries(stale.slice(0, 99 - current.length).map((item, i) => [`stale${i}`, { Delete: { Key: { PK: String(item.PK), SK: String(item.SK) } } }])),
    });
    if (outcome.written) return true;
    if (outcome.failed.includes('instance')) return false;
    throw outcome.error;
  },

  /** The instance unless it is past its retention: expired instances are gone for every reader. */
  async getLive(tenantId, id, now) {
    return unexpired(await processInstanceStore.get(tenantId, id), now);
  },

  /** The instance item alone, one consistent GetItem (a status read right after creation sees it). */
  async getLiveRecord(tenantId, id, now) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.instance(tenantId, id), ConsistentRead: true }));
    const record = unexpired(instances.decode(out.Item), now);
    if (!record) return undefined;
    // Instances stored before the step moved to its own item carry it inline: not part of this read.
    const { currentStep: _step, ...rest } = record;
    return rest;
  },

  /**
   * The instance and the step it waits at (its own item, `PISTEP`), two consistent GetItems;
   * readers see the step as `currentStep`, as before it moved.
   *
   * The step first, then the instance, not both at once: reads outside a transaction may see
   * one item of a committed transaction and not yet the other. A step's finish empties the step
   * and sets the instance's `lastStep` in one transaction; read at once, a repeated submission
   * could see the step gone and `lastStep` not yet there, and be refused (409) though it was the
   * one taken. Once the emptied step is seen the transaction has committed, so the instance read
   * after it sees `lastStep`; a step still seen (with its claim) sends the reader to the claim,
   * which is read again.
   */
  async get(tenantId, id) {
    const { doc, tableName, commands } = await dynamo();
    const read = (Key: { PK: string; SK: string }) => doc.send(new commands.GetCommand({ TableName: tableName, Key, ConsistentRead: true }));
    const stepOut = await read(keys.instanceStep(tenantId, id));
    const instanceOut = await read(keys.instance(tenantId, id));
    const record = instances.decode(instanceOut.Item);
    if (!record) return undefined;
    // Instances stored before the step moved out carry it inline; a step item wins over it.
    const step = waitingSteps.decode(stepOut.Item);
    if (step?.taskToken) {
      const { expiresAt: _ttl, ...currentStep } = step;
      return { ...record, currentStep };
    }
    return record;
  },

  async getIdempotent(tenantId, key, now) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.idempotency(tenantId, key), ConsistentRead: true }));
    const kept = unexpired(idempotencyRecords.decode(out.Item), now);
    return kept && { fingerprint: kept.fingerprint, status: kept.status, body: kept.body };
  },

  /**
   * The user step the journey now waits at: its own item (its task token stays in the table,
   * never leaves it), with the instance's TTL, and its `step-changed` event, in one transaction
   * with the instance's `lastUpdatedAt`, which also checks the instance exists.
   */
  async setWaitingStep(record, step, event) {
    const { tenantId, id } = record;
    // The whole step, replacing whatever the item held (a done step's husk, a previous step).
    const update = updateWhole(waitingSteps.encode({ ...step, expiresAt: record.expiresAt }, keys.instanceStep(tenantId, id)));
    // A new step starts with no refusals counted or kept, and unclaimed.
    const gone = [
      ...(step.refusals === undefined ? ['refusals'] : []),
      ...(step.refused === undefined ? ['refused'] : []),
      ...(step.claim === undefined ? ['claim'] : []),
    ];
    const outcome = await transactWrite({
      instance: {
        Update: {
          Key: keys.instance(tenantId, id),
          // An instance stored before the step moved out loses its inline copy here.
          UpdateExpression: 'SET lastUpdatedAt = :now REMOVE currentStep',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':now': step.since },
        },
      },
      step: { Update: { ...update, UpdateExpression: update.UpdateExpression + (gone.length ? ` REMOVE ${gone.join(', ')}` : '') } },
      event: { Put: { Item: outboxItem(event) } },
    });
    if (outcome.written) return true;
    if (outcome.failed.includes('instance')) return false;
    throw outcome.error;
  },

  /**
   * One transaction: the waiting step (its own item) is marked claimed, only if it is still the
   * one with this token and no other submission claimed it, and the claim is kept in its own
   * item, so the step item does not grow by a second copy of the result.
   */
  async claimStep(tenantId, id, claim, expiresAt) {
    const ref = { at: claim.at, outcome: 'complete' in claim.outcome ? 'complete' : 'fail', ...(claim.digest ? { digest: claim.digest } : {}) };
    const outcome = await transactWrite({
      step: {
        Update: {
          Key: keys.instanceStep(tenantId, id),
          UpdateExpression: 'SET claim = :claim',
          ConditionExpression: 'taskToken = :token AND attribute_not_exists(claim)',
          ExpressionAttributeValues: { ':token': claim.taskToken, ':claim': ref },
        },
      },
      claim: { Put: { Item: stepClaims.encode({ ...claim, expiresAt }, keys.instanceStepClaim(tenantId, id, claim.activityId)) } },
    });
    if (outcome.written) return true;
    if (outcome.failed.includes('step')) return false;
    throw outcome.error;
  },

  async getStepClaim(tenantId, id, activityId) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.instanceStepClaim(tenantId, id, activityId), ConsistentRead: true }));
    const claim = stepClaims.decode(out.Item);
    if (!claim) return undefined;
    const { expiresAt: _ttl, ...rest } = claim;
    return rest;
  },

  /**
   * One transaction: the claim goes (only if it is still there: a second finisher changes
   * nothing), a completion's user data is kept, the instance records `lastStep`, and the waiting
   * step's item is emptied if it is still this one. When the execution already waits at its next
   * step (Step Functions moved on before this write), the same without touching the step item.
   */
  async finishStep(tenantId, id, claim, expiresAt, now) {
    const stamp = now.toISOString();
    const last = { activityId: claim.activityId, at: stamp, ...(claim.digest ? { digest: claim.digest } : {}) };
    const data = 'complete' in claim.outcome ? claim.outcome.complete.data : undefined;
    const items = (withStep: boolean) => ({
      claim: {
        Delete: {
          Key: keys.instanceStepClaim(tenantId, id, claim.activityId),
          ConditionExpression: 'taskToken = :token',
          ExpressionAttributeValues: { ':token': claim.taskToken },
        },
      },
      userData: data && { Put: { Item: userData.encode({ ...data, expiresAt }, keys.instanceUserData(tenantId, id, data.activityId)) } },
      instance: {
        Update: {
          Key: keys.instance(tenantId, id),
          UpdateExpression: 'SET lastStep = :last, lastUpdatedAt = :now',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':last': last, ':now': stamp },
        },
      },
      step: withStep ? {
        Update: {
          Key: keys.instanceStep(tenantId, id),
          UpdateExpression: `${STEP_DONE}, claim`,
          ConditionExpression: 'taskToken = :token',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':token': claim.taskToken },
        },
      } : undefined,
    });
    const first = await transactWrite(items(true));
    if (first.written) return true;
    if (first.failed.includes('claim')) return false;
    if (!first.failed.includes('step')) throw first.error;
    const moved = await transactWrite(items(false));
    if (moved.written) return true;
    if (moved.failed.includes('claim')) return false;
    throw moved.error;
  },

  async releaseClaim(tenantId, id, claim) {
    // When either condition fails, the claim was finished by another submission or the execution
    // moved on: there is nothing to release (transactWrite throws any other failure).
    await transactWrite({
      claim: {
        Delete: {
          Key: keys.instanceStepClaim(tenantId, id, claim.activityId),
          ConditionExpression: 'taskToken = :token',
          ExpressionAttributeValues: { ':token': claim.taskToken },
        },
      },
      step: {
        Update: {
          Key: keys.instanceStep(tenantId, id),
          UpdateExpression: 'REMOVE claim',
          ConditionExpression: 'taskToken = :token',
          ExpressionAttributeValues: { ':token': claim.taskToken },
        },
      },
    });
  },

  /** An atomic counter on the waiting step, so two refusals at once both count. */
  async countRefusal(tenantId, id, taskToken) {
    const { doc, tableName, commands } = await dynamo();
    let count: number | undefined;
    const counted = await conditionally(async () => {
      const out = await doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.instanceStep(tenantId, id),
          UpdateExpression: 'ADD refusals :one',
          ConditionExpression: 'taskToken = :token',
          ExpressionAttributeValues: { ':token': taskToken, ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      count = Number((out.Attributes as { refusals?: number } | undefined)?.refusals);
    });
    return counted && count !== undefined && Number.isFinite(count) ? count : undefined;
  },

  /** On the waiting step's item, so the page after the refused post reads it with the step; the next visit's item has none. */
  async noteRefusal(tenantId, id, taskToken, refusal) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.instanceStep(tenantId, id),
          UpdateExpression: 'SET refused = :refused',
          ConditionExpression: 'taskToken = :token',
          ExpressionAttributeValues: { ':token': taskToken, ':refused': refusal },
        }),
      ),
    );
  },

  async listUserData(tenantId, id) {
    const items = await queryAll(keys.instancePartition(tenantId, id), keys.instanceUserDataPrefix);
    return userData.decodeAll(items).map(({ expiresAt: _ttl, ...data }) => data);
  },

  async putUserData(tenantId, id, data, expiresAt) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(new commands.PutCommand({ TableName: tableName, Item: userData.encode({ ...data, expiresAt }, keys.instanceUserData(tenantId, id, data.activityId)) }));
  },

  /** One attribute of the instance item, only where the instance exists; the other writers update other attributes. */
  async setRedirect(tenantId, id, redirect) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.instance(tenantId, id),
          UpdateExpression: 'SET #redirect = :redirect',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: { '#redirect': 'redirect' },
          ExpressionAttributeValues: { ':redirect': redirect },
        }),
      ),
    );
  },

  /**
   * ADD on the activity's own item, only when the last attempt counted was another: a run Step
   * Functions retries after the count was written reads the count instead of adding again.
   */
  async countFailedAttempt(tenantId, id, activityId, attemptId, expiresAt) {
    const { doc, tableName, commands } = await dynamo();
    const key = keys.instanceAttempts(tenantId, id, activityId);
    let count: number | undefined;
    const counted = await conditionally(async () => {
      const out = await doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: 'SET lastAttempt = :attempt, expiresAt = :ttl ADD failures :one',
          ConditionExpression: 'attribute_not_exists(lastAttempt) OR lastAttempt <> :attempt',
          ExpressionAttributeValues: { ':attempt': attemptId, ':ttl': expiresAt, ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      count = Number((out.Attributes as { failures?: number } | undefined)?.failures);
    });
    if (!counted) {
      const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
      count = Number((out.Item as { failures?: number } | undefined)?.failures);
    }
    return Number.isFinite(count) ? count! : 0;
  },

  /**
   * A status change, written only over the status it read, in one transaction with its events
   * (the outbox) and the instance's views and term views put anew (the status view moves
   * partition; an instance stored before the views or term views gets them here). A final status takes the instance off
   * the reconciler's index in the same write.
   */
  async setStatus(record, from, to, now, final, events) {
    const changed = { ...record, status: to as ProcessInstanceRecord['status'], lastUpdatedAt: now.toISOString() };
    const outcome = await transactWrite({
      instance: {
        Update: {
          Key: keys.instance(record.tenantId, record.id),
          // A final status also records when the journey ended (`completedAt`, kept as it is: a
          // later step write moves `lastUpdatedAt` only).
          UpdateExpression: `SET #status = :to, lastUpdatedAt = :now${final ? ', completedAt = :now REMOVE GSI2PK, GSI2SK, reconcileAt, reconcileChecks' : ''}`,
          ConditionExpression: '#status = :from',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':to': to, ':from': from, ':now': changed.lastUpdatedAt },
        },
      },
      // Every view anew (at most 3 + MAX_TERMS_PER_INSTANCE items, with the instance far under a
      // transaction's 100); `q`, the substring terms of views written before term views, goes.
      ...Object.fromEntries(viewItems(changed).map((v) => [v.name, { Update: updateWhole(v.item, { remove: ['q'] }) }])),
      ...outboxPuts(events),
    });
    if (outcome.written) return true;
    if (outcome.failed.includes('instance')) return false;
    throw outcome.error;
  },

  /**
   * A Scan of the reconciler's sparse index (keys only): it holds only open instances, so a page
   * reads those and nothing else. The index's sort key starts with `reconcileAt`, so the filter
   * keeps those due (a Scan reads, and is billed for, the page before the filter).
   */
  async dueForReconcile(now, cursor) {
    // Across tenants, on the function's own role (keys only); each instance is then handled in its tenant's scope.
    const { doc, tableName, commands } = await ownDynamo();
    const out = await doc.send(
      new commands.ScanCommand({
        TableName: tableName,
        IndexName: OPEN_INSTANCES_INDEX,
        // '~' sorts after every character of an instance id, so every key due at `now` is below it.
        FilterExpression: 'GSI2SK <= :due',
        ExpressionAttributeValues: { ':due': `${now.toISOString()}#~` },
        ...(cursor !== undefined ? { ExclusiveStartKey: JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown> } : {}),
      }),
    );
    const due = (out.Items ?? []).flatMap((item) => keys.parseInstance({ PK: String(item.PK), SK: String(item.SK) }) ?? []);
    return {
      due,
      ...(out.LastEvaluatedKey ? { next: Buffer.from(JSON.stringify(out.LastEvaluatedKey), 'utf8').toString('base64url') } : {}),
    };
  },

  async deferReconcile(record, at, checks) {
    const { doc, tableName, commands } = await dynamo();
    const open = keys.instanceOpen(record.tenantId, at, record.id);
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.instance(record.tenantId, record.id),
          UpdateExpression: 'SET GSI2SK = :sk, reconcileAt = :at, reconcileChecks = :checks',
          ConditionExpression: '#status = :status AND attribute_exists(GSI2PK)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':sk': open.GSI2SK, ':at': at, ':checks': checks, ':status': record.status },
        }),
      ),
    );
  },
};
