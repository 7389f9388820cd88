import type { ProcessInstanceRecord, ReviewStore } from '../process-manager/model.js';
import { conditionally, dynamo, transactWrite } from './client.js';
import { keys } from './keys.js';
import { outboxPuts } from './outbox.js';
import { updateWhole, viewItems } from './process-instances.js';

/**
 * An instance's review (its `review` attribute): required by the journey, decided by a reviewer.
 * Its own store, beside the instance store whose items it writes, so that only the review steps
 * and the reviewer's route carry it.
 */
export const reviewStore: ReviewStore = {
  /** One conditional UpdateItem: over no review or a decided one, never over one pending. */
  async requireReview(tenantId, id, review) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.instance(tenantId, id),
          UpdateExpression: 'SET #r = :r',
          ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(#r) OR #r.#s <> :p)',
          ExpressionAttributeNames: { '#r': 'review', '#s': 'status' },
          ExpressionAttributeValues: { ':r': review, ':p': 'PENDING' },
        }),
      ),
    );
  },

  /** One transaction over the status and the review (its id) as read; the views move with a changed status, as any status change's do. */
  async decideReview(record, change, now, events) {
    const { tenantId, id } = record;
    const stamp = now.toISOString();
    const outcome = await transactWrite({
      instance: {
        Update: {
          Key: keys.instance(tenantId, id),
          UpdateExpression: 'SET #status = :to, #r = :r, lastUpdatedAt = :now REMOVE GSI2PK, GSI2SK, reconcileAt, reconcileChecks',
          ConditionExpression: `#status = :from AND ${record.review ? '#r.#id = :id' : 'attribute_not_exists(#r)'}`,
          ExpressionAttributeNames: { '#status': 'status', '#r': 'review', ...(record.review ? { '#id': 'id' } : {}) },
          ExpressionAttributeValues: { ':to': change.to, ':from': change.from, ':r': change.review, ':now': stamp, ...(record.review ? { ':id': record.review.id } : {}) },
        },
      },
      ...(change.from !== change.to
        ? Object.fromEntries(
            viewItems({ ...record, status: change.to as ProcessInstanceRecord['status'], lastUpdatedAt: stamp }).map((v) => [v.name, { Update: updateWhole(v.item, { remove: ['q'] }) }]),
          )
        : {}),
      ...outboxPuts(events),
    });
    if (outcome.written) return true;
    if (outcome.failed.includes('instance')) return false;
    throw outcome.error;
  },
};
