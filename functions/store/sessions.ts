import type { SessionStore } from '../process-manager/model.js';
import { itemCodec, unexpired } from './codec.js';
import { conditionally, dynamo } from './client.js';
import { keys } from './keys.js';

/**
 * A session version's item: the session as JSON text (it round-trips exactly, whatever its
 * nesting or numbers), with the instance's TTL. At most SESSION_MAX_BYTES of JSON
 * (functions/shared/session-limit.ts), well inside DynamoDB's 400 KB item limit.
 */
const sessions = /* @__PURE__ */ itemCodec<{ data: string; expiresAt: number; writer?: string }>('Session');

export function sessionItem(
  tenantId: string,
  id: string,
  v: number,
  session: Record<string, unknown>,
  expiresAt: number,
  writer?: string,
): Record<string, unknown> {
  return sessions.encode({ data: JSON.stringify(session), expiresAt, ...(writer ? { writer } : {}) }, keys.instanceSession(tenantId, id, v));
}

export const sessionStore: SessionStore = {
  async get(tenantId, id, v, now) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.instanceSession(tenantId, id, v), ConsistentRead: true }));
    const item = unexpired(sessions.decode(out.Item), now);
    return item && { session: JSON.parse(item.data) as Record<string, unknown>, expiresAt: item.expiresAt };
  },

  /**
   * Version `v` written whole (a retried attempt writes it again: nothing consumed the first
   * write), and `v - 2` deleted at the same time. Two versions stay because a Task that wrote
   * `v` may still be retried by Step Functions (its answer was lost, Lambda failed after the
   * write), and the retry reads `v - 1` again; nothing can ever read `v - 2` any more. The
   * delete may fail without harm: the TTL removes what is left.
   */
  async put(tenantId, id, v, session, expiresAt, writer) {
    const { doc, tableName, commands } = await dynamo();
    const item = sessionItem(tenantId, id, v, session, expiresAt, writer);
    // A user step's submission writes only where no one else has: an activity that wrote the
    // version is the execution's own, which has moved on without the step.
    const put = writer
      ? conditionally(() =>
          doc.send(
            new commands.PutCommand({
              TableName: tableName,
              Item: item,
              ConditionExpression: 'attribute_not_exists(PK) OR writer = :writer',
              ExpressionAttributeValues: { ':writer': writer },
            }),
          ),
        )
      : doc.send(new commands.PutCommand({ TableName: tableName, Item: item })).then(() => true);
    const [written] = await Promise.all([
      put,
      // Not worth failing the step over (its retry would write the same again): the TTL removes a version left behind.
      v >= 2 ? doc.send(new commands.DeleteCommand({ TableName: tableName, Key: keys.instanceSession(tenantId, id, v - 2) })).catch(() => undefined) : undefined,
    ]);
    return written;
  },
};
