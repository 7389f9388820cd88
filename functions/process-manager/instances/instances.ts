import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { apiError, ConflictError } from '../../errors.js';
import type { FaceUploadSlot } from './face-uploads.js';
import {
  FINAL_INSTANCE_STATUSES,
  statusMappedOf,
  type InstanceView,
  type JourneyTheme,
  type ProcessDefinitionRecord,
  type ProcessInstanceRecord,
  type ProcessInstanceStore,
  type ProcessTokenRecord,
} from '../model.js';
import { firstReconcileAt } from '../executions/reconcile-schedule.js';

export { INSTANCE_STATUSES, type InstanceStatus, type ProcessInstanceRecord } from '../model.js';

import { CONTACT_PARAMETERS } from '../model.js';

export { CONTACT_PARAMETERS };

export class ProcessTokenUnusableError extends ConflictError {
  constructor(
    override readonly code: 'PROCESS_TOKEN_INACTIVE' | 'PROCESS_TOKEN_EXHAUSTED' | 'PROCESS_TOKEN_NOT_YET_VALID' | 'PROCESS_TOKEN_EXPIRED',
    message: string,
  ) {
    super(message);
  }
}

export class ProcessInstanceNotFoundError extends apiError('PROCESS_INSTANCE_NOT_FOUND') {
  constructor(id: string) {
    super(`Process instance ${id} was not found.`);
  }
}

export class IdempotencyKeyReusedError extends apiError('IDEMPOTENCY_KEY_REUSED') {}

/** Why a token cannot create an instance now, or undefined when it can. */
export function tokenRefusal(token: ProcessTokenRecord, now: Date): ProcessTokenUnusableError | undefined {
  if (token.status !== 'ACTIVE') return new ProcessTokenUnusableError('PROCESS_TOKEN_INACTIVE', 'The process token is INACTIVE.');
  if (token.validFromDtm && new Date(token.validFromDtm) > now) {
    return new ProcessTokenUnusableError('PROCESS_TOKEN_NOT_YET_VALID', `The process token is valid from ${token.validFromDtm}.`);
  }
  if (token.validToDtm && new Date(token.validToDtm) <= now) {
    return new ProcessTokenUnusableError('PROCESS_TOKEN_EXPIRED', `The process token was valid until ${token.validToDtm}.`);
  }
  if (token.maxCount !== null && token.counter >= token.maxCount) {
    return new ProcessTokenUnusableError('PROCESS_TOKEN_EXHAUSTED', `The process token has been used its ${token.maxCount} time(s).`);
  }
  return undefined;
}

/**
 * A new instance and the end user's capability: 256 random bits, stored only as a hash, bound
 * to this instance and expiring with it.
 */
export function newInstance(
  token: ProcessTokenRecord,
  definition: ProcessDefinitionRecord,
  ctx: { tenantId: string; actor: string; now: Date; extraParameters?: Record<string, string>; origin?: string; theme?: JourneyTheme | undefined },
): { record: ProcessInstanceRecord; capability: string } {
  // Every version that is or was DEPLOYED_ACTIVE records its state machine; only an active one starts journeys.
  if (!definition.stateMachineArn) throw new Error(`process definition ${definition.id} has no state machine: it was never active`);
  const stateMachineArn = definition.stateMachineArn;
  const capability = randomBytes(32).toString('base64url');
  const created = ctx.now;
  const expiring = new Date(created.getTime() + definition.retentionDays * 86_400_000);
  return {
    capability,
    record: {
      tenantId: ctx.tenantId,
      id: randomUUID(),
      processDefnId: definition.id,
      processDefnName: definition.name,
      processDefnVersion: definition.version,
      processTokenId: token.id,
      status: 'PENDING',
      createdAt: created.toISOString(),
      lastUpdatedAt: created.toISOString(),
      retentionDays: definition.retentionDays,
      // What the journey's pages show beside its steps: the version's, as it was published, and its theme as it is now.
      ...(definition.pages || ctx.theme ? { pages: { ...definition.pages, ...(ctx.theme ? { theme: ctx.theme } : {}) } } : {}),
      expiringDtm: expiring.toISOString(),
      expiresAt: Math.floor(expiring.getTime() / 1000),
      parameters: { ...token.parameters, ...ctx.extraParameters },
      capabilityHash: hashCapability(capability),
      stateMachineArn,
      createdBy: ctx.actor,
      // On the reconciler's index until its status is final.
      reconcileAt: firstReconcileAt(created),
      // Where the journey link points: links the journey makes later (a resume URL) point there too.
      ...(ctx.origin ? { origin: ctx.origin } : {}),
      // Test mode is the token's, fixed at creation: nothing the journey does can turn it on or off.
      ...(token.forTest ? { forTest: true as const, ...(token.sandbox ? { sandbox: token.sandbox } : {}) } : {}),
    },
  };
}

export function hashCapability(capability: string): string {
  return createHash('sha256').update(capability, 'utf8').digest('hex');
}

/** Expired instances are gone for every reader, before DynamoDB's TTL sweep catches up. */
export function isExpired(record: { expiresAt: number }, now: Date): boolean {
  return record.expiresAt * 1000 <= now.getTime();
}

export function redirectUrl(origin: string, record: ProcessInstanceRecord, capability: string): string {
  return `${origin}/journey/${record.id}?c=${capability}`;
}

/** The execution's input: the session data the compiled state machine works on. */
export function initialSession(record: ProcessInstanceRecord, externalSources?: { faceUploads: Record<string, FaceUploadSlot> }) {
  return {
    // Where the face images uploaded from outside go (face-uploads.ts), for the face match step.
    ...(externalSources ? { _externalSources: externalSources } : {}),
    instance: {
      tenantId: record.tenantId,
      processInstanceId: record.id,
      processDefnId: record.processDefnId,
      processDefnName: record.processDefnName,
      processDefnVersion: record.processDefnVersion,
    },
    parameters: record.parameters,
    // The process variables start as the token's parameters (statemachines/variables.ts).
    vars: { ...record.parameters },
    _checks: {},
    _faces: {},
    // Where the steps that make checks find what a test-mode token forces (functions/process-manager/sandbox.ts).
    ...(record.forTest ? { _sandbox: { forTest: true, ...record.sandbox } } : {}),
  };
}

/**
 * How long the journey has taken, in whole milliseconds: from its creation to its end (the final
 * status's change: `completedAt`, or `lastUpdatedAt` where that was not kept, which a list view
 * holds as of its last status change), or to `now` while it has not ended. Never negative.
 */
export function elapsedMilliseconds(r: Pick<ProcessInstanceRecord, 'status' | 'createdAt' | 'lastUpdatedAt' | 'completedAt'>, now: Date): number {
  const ended = FINAL_INSTANCE_STATUSES.includes(r.status);
  const end = ended ? Date.parse(r.completedAt ?? r.lastUpdatedAt) : now.getTime();
  const elapsed = end - Date.parse(r.createdAt);
  return Number.isFinite(elapsed) ? Math.max(0, Math.round(elapsed)) : 0;
}

/**
 * An instance as its reads and list rows show it. Clients of the family that map this strictly
 * exist (DESIGN.md): a field is added here deliberately, never by accident; `statusMapped` and
 * `elapsedMilliseconds` were, as the family's reads carry them.
 */
export function instanceView(r: InstanceView & { completedAt?: string }, now: Date) {
  const contact: Record<string, string> = {};
  for (const k of CONTACT_PARAMETERS) if (r.parameters[k] !== undefined) contact[k] = r.parameters[k]!;
  return {
    id: r.id,
    tenantId: r.tenantId,
    processDefnId: r.processDefnId,
    processDefnName: r.processDefnName,
    processDefnVersion: r.processDefnVersion,
    processTokenId: r.processTokenId,
    status: r.status,
    statusMapped: statusMappedOf(r.status),
    createdAt: r.createdAt,
    lastUpdatedAt: r.lastUpdatedAt,
    elapsedMilliseconds: elapsedMilliseconds(r, now),
    ...contact,
    retentionDays: r.retentionDays,
    expiringDtm: r.expiringDtm,
    // Deliberately added, and only on a test-mode instance: a live instance's read is as it was.
    ...(r.forTest ? { forTest: true as const } : {}),
  };
}

/**
 * The instance read (GET .../processInstances/{id}): its view, and `review` once a reviewer
 * decided (only then: strict clients map the read field by field; a pending review shows as the
 * status REVIEW, not as a field).
 */
export function instanceRead(r: Omit<ProcessInstanceRecord, 'currentStep'>, now: Date) {
  const review = r.review;
  return {
    ...instanceView(r, now),
    ...(review && review.status !== 'PENDING'
      ? { review: { status: review.status, comment: review.comment ?? '', reviewedBy: review.reviewedBy ?? '', reviewedAt: review.reviewedAt ?? r.lastUpdatedAt } }
      : {}),
  };
}

export function instanceWithParametersView(r: ProcessInstanceRecord, now: Date) {
  const { expiringDtm: _e, ...view } = instanceView(r, now);
  return { ...view, processTokenParameters: r.parameters };
}

/** An instance within its retention (404 otherwise, and for another tenant's), without the step it waits at: one read. */
export async function getLiveInstance(
  instances: Pick<ProcessInstanceStore, 'getLiveRecord'>,
  tenantId: string,
  id: string,
  now: Date,
): Promise<Omit<ProcessInstanceRecord, 'currentStep'>> {
  const record = await instances.getLiveRecord(tenantId, id, now);
  if (!record) throw new ProcessInstanceNotFoundError(id);
  return record;
}
