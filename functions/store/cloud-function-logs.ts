import type { CloudFunctionLogRecord, CloudFunctionLogStore } from '../cloud-functions/model.js';
import { itemCodec, unexpired } from './codec.js';
import { dynamo, queryAll } from './client.js';
import { keys } from './keys.js';

const logs = /* @__PURE__ */ itemCodec<CloudFunctionLogRecord>('CloudFunctionLog');

/** Run logs in the instance's partition, expiring with it (`expiresAt`, the table's TTL attribute). */
export const cloudFunctionLogStore: CloudFunctionLogStore = {
  async put(record) {
    const { doc, tableName, commands } = await dynamo();
    await doc.send(
      new commands.PutCommand({
        TableName: tableName,
        Item: logs.encode(record, keys.cloudFunctionLog(record.tenantId, record.processInstanceId, record.activityId, record.at)),
      }),
    );
  },

  async list(tenantId, processInstanceId, now) {
    const items = await queryAll(keys.instance(tenantId, processInstanceId).PK, keys.cloudFunctionLogPrefix);
    return logs.decodeAll(items).flatMap((r) => unexpired(r, now) ?? []);
  },
};
