import type { SwitchDeviceRecord, SwitchDeviceStore, SwitchLinkRecord } from '../journey/model.js';
import { itemCodec, unexpired } from './codec.js';
import { conditionally, dynamo, transactWrite } from './client.js';
import { keys } from './keys.js';

const devices = /* @__PURE__ */ itemCodec<SwitchDeviceRecord>('SwitchDevice');
const links = /* @__PURE__ */ itemCodec<SwitchLinkRecord>('SwitchLink');

const getDevice: SwitchDeviceStore['getDevice'] = async (tenantId, id, capabilityHash, now) => {
  const { doc, tableName, commands } = await dynamo();
  const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.instanceDevice(tenantId, id, capabilityHash), ConsistentRead: true }));
  return unexpired(devices.decode(out.Item), now);
};

/**
 * A device by its capability hash: the one read every journey route makes (a phone's link is
 * checked there), kept apart so that their bundles carry none of the rest.
 */
export const switchDeviceReader: Pick<SwitchDeviceStore, 'getDevice'> = { getDevice };

/**
 * The devices and switch links of Switch Device steps, in the instance's partition with its TTL,
 * and the instance's holder (an attribute of the instance item).
 */
export const switchDeviceStore: SwitchDeviceStore = {
  getDevice,

  async putLink(tenantId, id, link) {
    const { doc, tableName, commands } = await dynamo();
    // The same link shown again is the same item: the first write stands (it may have been opened since).
    await conditionally(() =>
      doc.send(
        new commands.PutCommand({
          TableName: tableName,
          Item: links.encode(link, keys.instanceSwitchLink(tenantId, id, link.secretHash)),
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
  },

  async getLink(tenantId, id, secretHash, now) {
    const { doc, tableName, commands } = await dynamo();
    const out = await doc.send(new commands.GetCommand({ TableName: tableName, Key: keys.instanceSwitchLink(tenantId, id, secretHash), ConsistentRead: true }));
    return unexpired(links.decode(out.Item), now);
  },

  async openLink(tenantId, id, secretHash, taskToken, at) {
    const outcome = await transactWrite({
      link: {
        Update: {
          Key: keys.instanceSwitchLink(tenantId, id, secretHash),
          UpdateExpression: 'SET openedAt = :at',
          ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(openedAt)',
          ExpressionAttributeValues: { ':at': at },
        },
      },
      step: {
        ConditionCheck: {
          Key: keys.instanceStep(tenantId, id),
          ConditionExpression: 'taskToken = :token AND attribute_not_exists(claim)',
          ExpressionAttributeValues: { ':token': taskToken },
        },
      },
    });
    if (outcome.written) return true;
    if (outcome.failed.length) return false;
    throw outcome.error;
  },

  async grantDevice(tenantId, id, { secretHash, device, holder, previousHolder }) {
    const outcome = await transactWrite({
      link: {
        Update: {
          Key: keys.instanceSwitchLink(tenantId, id, secretHash),
          UpdateExpression: 'SET #device = :device',
          ConditionExpression: 'attribute_exists(openedAt) AND attribute_not_exists(#device)',
          ExpressionAttributeNames: { '#device': 'device' },
          ExpressionAttributeValues: { ':device': device.capabilityHash },
        },
      },
      device: { Put: { Item: devices.encode(device, keys.instanceDevice(tenantId, id, device.capabilityHash)), ConditionExpression: 'attribute_not_exists(PK)' } },
      instance: {
        Update: {
          Key: keys.instance(tenantId, id),
          UpdateExpression: 'SET #holder = :holder',
          ExpressionAttributeNames: { '#holder': 'holder' },
          ...(previousHolder === undefined
            ? { ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#holder)', ExpressionAttributeValues: { ':holder': holder } }
            : { ConditionExpression: '#holder.capabilityHash = :previous', ExpressionAttributeValues: { ':holder': holder, ':previous': previousHolder } }),
        },
      },
    });
    if (outcome.written) return true;
    if (outcome.failed.length) return false;
    throw outcome.error;
  },

  async moveHolder(tenantId, id, holder, expected) {
    const { doc, tableName, commands } = await dynamo();
    return conditionally(() =>
      doc.send(
        new commands.UpdateCommand({
          TableName: tableName,
          Key: keys.instance(tenantId, id),
          UpdateExpression: 'SET #holder = :holder',
          ConditionExpression: '#holder.capabilityHash = :expected',
          ExpressionAttributeNames: { '#holder': 'holder' },
          ExpressionAttributeValues: { ':holder': holder, ':expected': expected },
        }),
      ),
    );
  },
};
