import type { SessionStore } from '../process-manager/model.js';
import { itemCodec, unexpired } from './codec.js';
import { dynamo } from './client.js';
import { keys } from './keys.js';

/**
 * A session version's item: the session as JSON text (it round-trips exactly, whatever its
 * nesting or numbers), with the instance's TTL. At most SESSION_MAX_BYTES of JSON
 * (functions/shared/session-limit.ts), well inside DynamoDB's 400 KB item limit.
 */
const sessions = /* @__PURE__ */ itemCodec<{ data: string; expiresAt: number }>('Session');

export function sessionItem(tenantId: string, id: string, v: number, session: Record<string, unknown>, expiresAt: number): Record<string, unknown> {
  return sessions.encode({ data: JSON.stringify(session), expiresAt }, keys.instanceSession(tenantId, id, v));
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
  async put(tenantId, id, v, session, expiresAt) {
    const { doc, tableName, commands } = await dynamo();
    await Promise.all([
      doc.send(new commands.PutCommand({ TableName: tableName, Item: sessionItem(tenantId, id, v, session, expiresAt) })),
      // Not worth failing the step over (its retry would write the same again): the TTL removes a version left behind.
      v >= 2 ? doc.send(new commands.DeleteCommand({ TableName: tableName, Key: keys.instanceSession(tenantId, id, v - 2) })).catch(() => undefined) : undefined,
    ]);
  },
};
