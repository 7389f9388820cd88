import type { InstancePauseStore } from '../process-manager/model.js';
import { conditionally, dynamo, transactWrite } from './client.js';
import { keys } from './keys.js';
import { outboxPuts } from './outbox.js';
import { processInstanceStore, updateWhole, viewItems } from './process-instances.js';

/**
 * Pauses and resumes (Pause Instance, Waiting for Resume, the resume URL and API), on the
 * instance item: its `pause` member, its status with the status's views and events (the
 * outbox), and the capability the resume gives the end user. Each write is conditional, so a
 * pause is resumed at most once however many resumes race.
 */
export const instancePauseStore: InstancePauseStore = {
  getRecord: (tenantId, id, now) => processInstanceStore.getLiveRecord(tenantId, id, now),

  async pause(record, pause, now, events) {
    const at = now.toISOString();
    const moves = record.status !== 'PAUSED';
    const changed = { ...record, status: 'PAUSED' as const, lastUpdatedAt: at };
    const outcome = await transactWrite({
      instance: {
        Update: {
          Key: keys.instance(record.tenantId, record.id),
          UpdateExpression: 'SET #status = :to, #pause = :pause, lastUpdatedAt = :now',
          ConditionExpression: '#status = :from',
          ExpressionAttributeNames: { '#status': 'status', '#pause': 'pause' },
          ExpressionAttributeValues: { ':to': 'PAUSED', ':from': record.status, ':pause': pause, ':now': at },
        },
      },
      // The status view moves partition, and every view shows the new status (setStatus does the same).
      ...(moves ? Object.fromEntries(viewItems(changed).map((v) => [v.name, { Update: updateWhole(v.item, { remove: ['q'] }) }])) : {}),
      ...outboxPuts(events),
    });
    if (outcome.written) return true;
    if (outcome.failed.includes('instance')) return false;
    throw outcome.error;
  },

  async markWaiting(tenantId, id, waiting) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.instance(tenantId, id),
          UpdateExpression: 'SET #pause.waitingAt = :at',
          ConditionExpression: 'attribute_exists(#pause) AND attribute_not_exists(#pause.resumedAt)',
          ExpressionAttributeNames: { '#pause': 'pause' },
          ExpressionAttributeValues: { ':at': waiting },
        }),
      ),
    );
  },

  async resume(record, mark, to, capabilityHash, now, events) {
    const at = now.toISOString();
    const moves = record.status !== to;
    const changed = { ...record, status: to, lastUpdatedAt: at };
    const outcome = await transactWrite({
      instance: {
        Update: {
          Key: keys.instance(record.tenantId, record.id),
          UpdateExpression:
            'SET #status = :to, lastUpdatedAt = :now, resumeCapabilityHash = :cap, ' +
            '#pause.resumedAt = :resumedAt, #pause.resumedBy = :by, #pause.resumedTask = :task ' +
            // Whoever opens the resume link (any device) goes on: no device holds the journey any more.
            'REMOVE holder',
          ConditionExpression: '#status = :from AND #pause.secretHash = :hash AND attribute_not_exists(#pause.resumedAt)',
          ExpressionAttributeNames: { '#status': 'status', '#pause': 'pause' },
          ExpressionAttributeValues: {
            ':to': to,
            ':from': record.status,
            ':now': at,
            ':cap': capabilityHash,
            ':resumedAt': mark.resumedAt,
            ':by': mark.resumedBy,
            ':task': mark.resumedTask,
            ':hash': mark.secretHash,
          },
        },
      },
      ...(moves ? Object.fromEntries(viewItems(changed).map((v) => [v.name, { Update: updateWhole(v.item, { remove: ['q'] }) }])) : {}),
      ...outboxPuts(events),
    });
    if (outcome.written) return true;
    if (outcome.failed.includes('instance')) return false;
    throw outcome.error;
  },

  async redrive(tenantId, id, resumedTask, capabilityHash) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.instance(tenantId, id),
          UpdateExpression: 'SET resumeCapabilityHash = :cap REMOVE holder',
          ConditionExpression: '#pause.resumedTask = :task',
          ExpressionAttributeNames: { '#pause': 'pause' },
          ExpressionAttributeValues: { ':cap': capabilityHash, ':task': resumedTask },
        }),
      ),
    );
  },
};
