import type { EventEnvelope } from '../../functions/shared/events.js';
import type { InstanceStatus, ProcessInstanceRecord, ProcessInstanceStore } from '../../functions/process-manager/model.js';

/**
 * The instance storage the status code needs, in memory, with the store's semantics: a status
 * change is written only over the status read, a final one takes the instance off the
 * reconciler's index, and that index lists open instances due by `reconcileAt`.
 */
export class FakeInstances implements Pick<ProcessInstanceStore, 'get' | 'setStatus' | 'dueForReconcile' | 'deferReconcile'> {
  readonly items = new Map<string, ProcessInstanceRecord>();
  /** The events written with the changes (the outbox), in order. */
  readonly events: EventEnvelope[] = [];
  /** Page size of dueForReconcile. */
  pageSize = 100;

  put(record: ProcessInstanceRecord): void {
    this.items.set(`${record.tenantId}/${record.id}`, structuredClone(record));
  }

  record(tenantId: string, id: string): ProcessInstanceRecord | undefined {
    return this.items.get(`${tenantId}/${id}`);
  }

  async get(tenantId: string, id: string) {
    const r = this.items.get(`${tenantId}/${id}`);
    return r && structuredClone(r);
  }

  async setStatus(record: ProcessInstanceRecord, from: string, to: string, now: Date, final: boolean, events: readonly EventEnvelope[]) {
    const stored = this.items.get(`${record.tenantId}/${record.id}`);
    if (!stored || stored.status !== from) return false;
    this.events.push(...events);
    stored.status = to as InstanceStatus;
    stored.lastUpdatedAt = now.toISOString();
    if (final) {
      delete stored.reconcileAt;
      delete stored.reconcileChecks;
    }
    return true;
  }

  /** Pages in a fixed order of the items (as a Scan's is its own), resumed after the last item read. */
  async dueForReconcile(now: Date, cursor?: string) {
    const all = [...this.items.entries()].sort(([a], [b]) => a.localeCompare(b));
    const rest = cursor === undefined ? all : all.filter(([k]) => k > cursor);
    const page = rest.filter(([, r]) => r.reconcileAt !== undefined).slice(0, this.pageSize);
    const due = page.filter(([, r]) => r.reconcileAt! <= now.toISOString()).map(([, r]) => ({ tenantId: r.tenantId, processInstanceId: r.id }));
    const last = page.at(-1)?.[0];
    const more = last !== undefined && rest.some(([k, r]) => k > last && r.reconcileAt !== undefined);
    return { due, ...(more ? { next: last } : {}) };
  }

  async deferReconcile(record: ProcessInstanceRecord, at: string, checks: number) {
    const stored = this.items.get(`${record.tenantId}/${record.id}`);
    if (!stored || stored.status !== record.status || stored.reconcileAt === undefined) return false;
    stored.reconcileAt = at;
    stored.reconcileChecks = checks;
    return true;
  }
}

export const STATE_MACHINE_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:arthr-d1';

export function openInstance(id: string, overrides: Partial<ProcessInstanceRecord> = {}): ProcessInstanceRecord {
  return {
    tenantId: 'acme',
    id,
    processDefnId: 'd1',
    processDefnName: 'identity-check',
    processDefnVersion: 1,
    processTokenId: 't1',
    status: 'ACTIVE',
    createdAt: '2026-06-01T12:00:00.000Z',
    lastUpdatedAt: '2026-06-01T12:00:00.000Z',
    retentionDays: 30,
    expiringDtm: '2026-07-01T12:00:00.000Z',
    expiresAt: Date.parse('2026-07-01T12:00:00.000Z') / 1000,
    parameters: {},
    capabilityHash: 'h',
    stateMachineArn: STATE_MACHINE_ARN,
    createdBy: 'apikey:k',
    reconcileAt: '2026-06-01T12:15:00.000Z',
    ...overrides,
  };
}

/** The session a journey of `record` carries (initialSession's shape). */
export function sessionOf(record: ProcessInstanceRecord, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    instance: { tenantId: record.tenantId, processInstanceId: record.id, processDefnId: record.processDefnId },
    parameters: {},
    vars: {},
    _checks: {},
    _faces: {},
    ...extra,
  };
}
