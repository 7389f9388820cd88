import { stringify } from 'csv-stringify/sync';
import { ValidationError } from '../errors.js';
import { parseSort, sortBy, toPage } from '../shared/page.js';
import { INSTANCE_SORTABLE } from './instance-schemas.js';
import { CONTACT_PARAMETERS, instanceView, isExpired, type ProcessInstanceRecord } from './instances.js';

export interface InstanceFilters {
  searchString?: string | undefined;
  startDateTime?: string | undefined;
  endDateTime?: string | undefined;
  processDefinitionName?: string | undefined;
  processDefinitionId?: string | undefined;
  processInstanceStatus?: string[] | undefined;
}

/** The instances a reader may see that match the filters (expired ones are gone for everyone). */
export function filterInstances(records: ProcessInstanceRecord[], f: InstanceFilters, now: Date): ProcessInstanceRecord[] {
  const text = f.searchString?.trim().toLowerCase();
  const from = f.startDateTime ? new Date(f.startDateTime).getTime() : undefined;
  const to = f.endDateTime ? new Date(f.endDateTime).getTime() : undefined;
  const statuses = f.processInstanceStatus?.length ? new Set(f.processInstanceStatus) : undefined;
  return records.filter((r) => {
    if (isExpired(r, now)) return false;
    const created = new Date(r.createdAt).getTime();
    if (from !== undefined && created < from) return false;
    if (to !== undefined && created > to) return false;
    if (f.processDefinitionName && r.processDefnName !== f.processDefinitionName) return false;
    if (f.processDefinitionId && r.processDefnId !== f.processDefinitionId) return false;
    if (statuses && !statuses.has(r.status)) return false;
    if (text) {
      const haystack = [r.id, r.processDefnName, r.status, ...Object.values(r.parameters)].join('\n').toLowerCase();
      if (!haystack.includes(text)) return false;
    }
    return true;
  });
}

export function sortInstances(records: ProcessInstanceRecord[], sort: string[], where = 'query.sort'): { sorted: boolean; records: ProcessInstanceRecord[] } {
  const { orders, errors } = parseSort(sort, INSTANCE_SORTABLE);
  if (errors.length) throw new ValidationError('Invalid sort.', errors.map((message) => ({ location: where, message })));
  const ordered = sortBy(
    records,
    [...(orders.length ? orders : [{ property: 'createdAt' as const, direction: 'desc' as const }]), { property: 'createdAt', direction: 'desc' }],
    (r, k) => r[k],
  );
  return { sorted: orders.length > 0, records: ordered };
}

export function instanceListItem(r: ProcessInstanceRecord) {
  return {
    ...instanceView(r),
    // Every instance is deleted after its retention; archiving (which would keep one) comes later.
    scheduledExpiry: true,
    extendedSearchField: null,
    extendedSearchTerms: [] as string[],
  };
}

export function instancePage(records: ProcessInstanceRecord[], query: { page: number; size: number; sort: string[] }) {
  const { sorted, records: ordered } = sortInstances(records, query.sort);
  return toPage(ordered.map(instanceListItem), query.page, query.size, sorted);
}

const CSV_COLUMNS = [
  'id',
  'processDefnId',
  'processDefnName',
  'processDefnVersion',
  'status',
  'createdAt',
  'lastUpdatedAt',
  'retentionDays',
  'expiringDtm',
  ...CONTACT_PARAMETERS,
] as const;

/**
 * Spreadsheet programs run a cell that starts with = + - @ (or tab / CR) as a formula; the
 * parameters come from relying parties' own users, so such cells get a leading apostrophe.
 */
function cell(value: unknown): string {
  const s = value === undefined || value === null ? '' : String(value);
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
}

export function instancesCsv(records: ProcessInstanceRecord[]): string {
  const rows = records.map((r) => {
    const v = instanceView(r) as Record<string, unknown>;
    return CSV_COLUMNS.map((c) => cell(v[c]));
  });
  return stringify([[...CSV_COLUMNS], ...rows], { record_delimiter: '\r\n' });
}
