import type { JanitorCheckpoint, StateMachineRef, StateMachineRefStore, StateMachineUse } from '../process-manager/model.js';
import { itemCodec } from './codec.js';
import { conditionally, dynamo, isConditionFailure, type TransactItem } from './client.js';
import { serviceKeys } from './keys.js';

/**
 * The state machines' reference items (`SVC#SM#{name}`), which count the DEPLOYED_ACTIVE
 * versions of every tenant that use each state machine, and the janitor's checkpoint
 * (`SVC#JANITOR`). A version's status change raises or lowers the count in its own transaction
 * (useItem, unuseItem, written by the definition store), so the count moves exactly when the
 * status does: the version's write is conditional on the status it read.
 *
 * The race with the janitor is closed by conditions on this one item: the janitor claims it
 * (`deletingSince`, a new `generation`) only while `users` is 0, and an activation writes only
 * over the generation it read before its CreateStateMachine. So either the activation's write
 * comes first (the claim then fails: the state machine is in use), or the claim does (the
 * activation's write fails, and it reads and creates again, after the deletion).
 */
const refs = /* @__PURE__ */ itemCodec<StateMachineRef>('StateMachineRef');
const checkpoints = /* @__PURE__ */ itemCodec<JanitorCheckpoint & { leaseRunId?: string; leaseUntil?: string }>('JanitorCheckpoint');

/** Attribute names, all through placeholders (`name` and `users` are DynamoDB reserved words). */
const NAMES = { '#name': 'name', '#users': 'users', '#changed': 'changedAt', '#gen': 'generation', '#deleting': 'deletingSince' } as const;

/** A transaction item: the version `use` describes starts using its state machine (see the file's comment). */
export function useItem(use: StateMachineUse, now: Date): TransactItem {
  return {
    Update: {
      Key: serviceKeys.stateMachineRef(use.name),
      UpdateExpression:
        'SET #users = if_not_exists(#users, :zero) + :one, #changed = :now, #gen = if_not_exists(#gen, :zero), #name = :name, itemType = :type REMOVE #deleting',
      // Generation 0 is also an item no claim ever touched (written by an earlier activation).
      ConditionExpression: `${use.generation === 0 ? '(attribute_not_exists(#gen) OR #gen = :gen)' : '#gen = :gen'} AND (attribute_not_exists(#deleting) OR #deleting < :stale)`,
      ExpressionAttributeNames: NAMES,
      ExpressionAttributeValues: {
        ':zero': 0,
        ':one': 1,
        ':now': now.toISOString(),
        ':name': use.name,
        ':type': refs.itemType,
        ':stale': use.staleClaimBefore,
        ':gen': use.generation,
      },
    },
  };
}

/** A transaction item: a version that used state machine `name` leaves DEPLOYED_ACTIVE. */
export function unuseItem(name: string, now: Date): TransactItem {
  return {
    Update: {
      Key: serviceKeys.stateMachineRef(name),
      // No condition: the version's own conditional write makes this happen once per change.
      UpdateExpression: 'SET #users = if_not_exists(#users, :one) - :one, #changed = :now',
      ExpressionAttributeNames: { '#users': NAMES['#users'], '#changed': NAMES['#changed'] },
      ExpressionAttributeValues: { ':one': 1, ':now': now.toISOString() },
    },
  };
}

const CHECKPOINT_FIELDS = ['pageToken', 'lastArn', 'passStartedAt', 'passCompletedAt'] as const;

async function getRef(name: string): Promise<StateMachineRef | undefined> {
  const { doc, tableName, commands } = await dynamo();
  const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: serviceKeys.stateMachineRef(name), ConsistentRead: true }));
  return refs.decode(out.Item);
}

/** What an activation reads (a route's bundle carries only this, not the janitor's writes). */
export const stateMachineRefReader: Pick<StateMachineRefStore, 'get'> = { get: getRef };

/** Everything the janitor does with the service's items. */
export const stateMachineRefStore: StateMachineRefStore = {
  get: getRef,

  async claim(name, at) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: serviceKeys.stateMachineRef(name),
          UpdateExpression: 'SET #deleting = :now, #gen = if_not_exists(#gen, :zero) + :one, #users = if_not_exists(#users, :zero), #name = :name, itemType = :type',
          ConditionExpression:
            '(attribute_not_exists(#users) OR #users <= :zero) AND (attribute_not_exists(#changed) OR #changed <= :unused) ' +
            'AND (attribute_not_exists(#deleting) OR #deleting <= :stale)',
          ExpressionAttributeNames: NAMES,
          ExpressionAttributeValues: {
            ':now': at.now.toISOString(),
            ':zero': 0,
            ':one': 1,
            ':name': name,
            ':type': refs.itemType,
            ':unused': at.unusedBefore.toISOString(),
            ':stale': at.staleClaimBefore.toISOString(),
          },
        }),
      ),
    );
  },

  async release(name, claimedAt) {
    const { doc, tableName, commands } = await dynamo();
    // Only this claim's: an activation may have taken a stale claim back, or another run claimed since.
    await conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: serviceKeys.stateMachineRef(name),
          UpdateExpression: 'REMOVE #deleting',
          ConditionExpression: '#deleting = :at',
          ExpressionAttributeNames: { '#deleting': NAMES['#deleting'] },
          ExpressionAttributeValues: { ':at': claimedAt.toISOString() },
        }),
      ),
    );
  },

  async acquireJanitor(runId, now, until) {
    const { doc, tableName, commands } = await dynamo();
    try {
      const out = await doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: serviceKeys.janitorCheckpoint(),
          UpdateExpression: 'SET leaseRunId = :run, leaseUntil = :until, itemType = :type',
          ConditionExpression: 'attribute_not_exists(leaseUntil) OR leaseUntil <= :now',
          ExpressionAttributeValues: { ':run': runId, ':until': until.toISOString(), ':now': now.toISOString(), ':type': checkpoints.itemType },
          ReturnValues: 'ALL_NEW',
        }),
      );
      const { leaseRunId: _r, leaseUntil: _u, ...checkpoint } = checkpoints.decode(out.Attributes) ?? {};
      return checkpoint;
    } catch (err) {
      if (isConditionFailure(err)) return undefined;
      throw err;
    }
  },

  async saveJanitor(runId, checkpoint) {
    const { doc, tableName, commands } = await dynamo();
    const set = CHECKPOINT_FIELDS.filter((f) => checkpoint[f] !== undefined);
    const remove = CHECKPOINT_FIELDS.filter((f) => checkpoint[f] === undefined);
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: serviceKeys.janitorCheckpoint(),
          UpdateExpression: [`SET ${['leaseRunId = :run', ...set.map((f) => `${f} = :${f}`)].join(', ')}`, remove.length ? `REMOVE ${remove.join(', ')}` : '']
            .join(' ')
            .trim(),
          ConditionExpression: 'leaseRunId = :run',
          ExpressionAttributeValues: { ':run': runId, ...Object.fromEntries(set.map((f) => [`:${f}`, checkpoint[f]])) },
        }),
      ),
    );
  },

  async releaseJanitor(runId) {
    const { doc, tableName, commands } = await dynamo();
    await conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: serviceKeys.janitorCheckpoint(),
          UpdateExpression: 'REMOVE leaseRunId, leaseUntil',
          ConditionExpression: 'leaseRunId = :run',
          ExpressionAttributeValues: { ':run': runId },
        }),
      ),
    );
  },
};
