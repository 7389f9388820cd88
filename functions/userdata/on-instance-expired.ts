import { images, instanceOfKey } from './deps.js';
import { log } from '../http/log.js';

/** The part of a DynamoDB stream record read here (the event source mapping filters for TTL removals). */
interface StreamRecord {
  eventID?: string;
  eventName?: string;
  userIdentity?: { type?: string; principalId?: string };
  dynamodb?: { Keys?: Record<string, { S?: string }>; SequenceNumber?: string };
}

/** Whether a stream record is DynamoDB's TTL deleting an instance's main item (not a person or a function deleting it). */
export function expiredInstance(record: StreamRecord): { tenantId: string; processInstanceId: string } | undefined {
  if (record.eventName !== 'REMOVE') return undefined;
  if (record.userIdentity?.type !== 'Service' || record.userIdentity.principalId !== 'dynamodb.amazonaws.com') return undefined;
  const PK = record.dynamodb?.Keys?.PK?.S;
  const SK = record.dynamodb?.Keys?.SK?.S;
  return PK && SK ? instanceOfKey({ PK, SK }) : undefined;
}

/**
 * An instance's retention ended and DynamoDB's TTL removed it: its images in S3 go too. On AWS
 * the table's stream feeds this function (filtered to TTL removals of instance items); the
 * local sweeper calls `imageStore.deleteInstance` for what it sweeps. A record that fails is
 * reported back, so Lambda retries it (and then sends it to the dead-letter queue).
 */
export async function handler(event: { Records: StreamRecord[] }): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const batchItemFailures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    const expired = expiredInstance(record);
    if (!expired) continue;
    try {
      const deleted = await images.deleteInstance(expired.tenantId, expired.processInstanceId);
      log().info('expired instance images deleted', { ...expired, deleted });
    } catch (error) {
      log().error('could not delete expired instance images', { ...expired, error: error as Error });
      // For a stream source, Lambda reads the failure by the record's sequence number.
      if (record.dynamodb?.SequenceNumber) batchItemFailures.push({ itemIdentifier: record.dynamodb.SequenceNumber });
    }
  }
  return { batchItemFailures };
}
