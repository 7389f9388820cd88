import { timingSafeEqual } from 'node:crypto';
import { NotFoundError } from '../errors.js';
import { processInstanceStore } from '../store/process-instances.js';
import { hashCapability, type ProcessInstanceRecord } from '../process-manager/instances.js';

/** One answer for an unknown instance, a wrong capability and an expired journey. */
export class JourneyNotAvailableError extends NotFoundError {
  override readonly code = 'JOURNEY_NOT_AVAILABLE';
  constructor() {
    super('This journey link is not valid or has expired.');
  }
}

/**
 * The instance behind a journey link, if the capability in the link is its own: compared as
 * hashes in constant time, and refused once the instance is past its retention.
 */
export async function openJourney(tenantId: string, processInstanceId: string, capability: string, now: Date): Promise<ProcessInstanceRecord> {
  const record = await processInstanceStore.getLive(tenantId, processInstanceId, now);
  if (!record) throw new JourneyNotAvailableError();
  const given = Buffer.from(hashCapability(capability), 'hex');
  const stored = Buffer.from(record.capabilityHash, 'hex');
  if (given.length !== stored.length || !timingSafeEqual(given, stored)) throw new JourneyNotAvailableError();
  return record;
}
