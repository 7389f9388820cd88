import { timingSafeEqual } from 'node:crypto';
import { apiError } from '../errors.js';
import { hashCapability, type ProcessInstanceRecord } from '../process-manager/instances/instances.js';
import { isFinal } from '../process-manager/instances/status.js';
import { deviceCapabilities, instances } from './deps.js';
import { StepNotWaitingError } from './steps.js';

/** One answer for an unknown instance, a wrong capability and an expired journey. */
export class JourneyNotAvailableError extends apiError('JOURNEY_NOT_AVAILABLE') {}

/**
 * The instance behind a journey link, if the capability in the link is its own (the one its
 * creation gave, or the one its resume gave: functions/journey/resume.ts; compared as hashes in
 * constant time) or a device's that a Switch Device step gave the journey to (looked up by its
 * hash), and refused once the instance is past its retention.
 */
export async function openJourney(tenantId: string, processInstanceId: string, capability: string, now: Date): Promise<ProcessInstanceRecord> {
  const record = await instances.getLive(tenantId, processInstanceId, now);
  if (!record) throw new JourneyNotAvailableError();
  const hash = hashCapability(capability);
  const given = Buffer.from(hash, 'hex');
  const matches = (stored: string | undefined) => {
    const bytes = Buffer.from(stored ?? '', 'hex');
    return given.length === bytes.length && timingSafeEqual(given, bytes);
  };
  if (matches(record.capabilityHash) || matches(record.resumeCapabilityHash)) return record;
  if (record.holder && (await deviceCapabilities.getDevice(tenantId, processInstanceId, hash, now))) return record;
  throw new JourneyNotAvailableError();
}

/**
 * The instance behind a journey link and the step a submission is for: it must be the step the
 * journey waits at now, of one of `types`; otherwise 409 (already done, timed out, or moved on).
 */
export async function openWaitingStep(
  tenantId: string,
  link: { processInstanceId: string; activityId: string; capability: string },
  types: readonly string[],
  now: Date,
): Promise<{ record: ProcessInstanceRecord; step: NonNullable<ProcessInstanceRecord['currentStep']> }> {
  const record = await openJourney(tenantId, link.processInstanceId, link.capability, now);
  const step = waitingStepOf(record, link.activityId, types);
  if (!step) throw new StepNotWaitingError(`The journey is not waiting at ${link.activityId}.`);
  return { record, step };
}

/** The step the journey waits at, if it is `activityId` and of one of `types`, and the journey has not ended. */
export function waitingStepOf(
  record: ProcessInstanceRecord,
  activityId: string,
  types: readonly string[],
): NonNullable<ProcessInstanceRecord['currentStep']> | undefined {
  const step = record.currentStep;
  return step && !isFinal(record.status) && step.activityId === activityId && types.includes(step.activityType) ? step : undefined;
}
