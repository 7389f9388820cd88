/**
 * Data forms named by name and version in a definition (the Data Form activity's `Data form
 * name` / `Data form version`, and the Passcode Authentication Form's): finding the version a
 * journey shows, and the publish-time check that every version named exists.
 *
 * Which statuses a journey may show: every one but ARCHIVED. A version's content never changes,
 * so a DRAFT is as fixed as a DEPLOYED one, and a form can be tried in a journey before it is
 * deployed; ARCHIVED is final, the form's owner took it out of use. DEPLOYED_INACTIVE is still
 * shown: deactivating stops a version being chosen for new definitions, not journeys that name it.
 */
import type { ErrorDetail } from '../../errors.js';
import { parseCustomDataFormResource, type DataForm } from '../../../statemachines/forms.js';
import type { CustomDataFormRecord, CustomDataFormStore } from '../model.js';

/** The activity types that name a data form by `Data form name` and `Data form version`. */
export const FORM_REFERENCING_TYPES: readonly string[] = ['DATA_FORM', 'PASSCODE_AUTHENTICATION_FORM'];

export const FORM_NAME_INPUT = 'Data form name';
export const FORM_VERSION_INPUT = 'Data form version';

export type FormLookup =
  | { outcome: 'found'; record: CustomDataFormRecord; form: DataForm }
  | { outcome: 'missing' }
  | { outcome: 'archived'; record: CustomDataFormRecord }
  /** Stored before the format's current checks and no longer readable by them. */
  | { outcome: 'unreadable'; record: CustomDataFormRecord; problems: string[] };

/**
 * The form a journey shows for (tenant, name, version): two consistent reads, the version's item
 * then the form. Without a version (the family's empty `Data form version`), the latest
 * DEPLOYED_ACTIVE version, newest first a page at a time (usually the first read).
 */
export async function findFormVersion(
  forms: Pick<CustomDataFormStore, 'get' | 'getVersion' | 'versionsOf'>,
  tenantId: string,
  name: string,
  version: number | undefined,
): Promise<FormLookup> {
  if (version !== undefined) return findNamedVersion(forms, tenantId, name, version);
  return lookup(forms, tenantId, await latestActive(forms, tenantId, name));
}

/** The form of one named version (any status but ARCHIVED). */
export async function findNamedVersion(forms: Pick<CustomDataFormStore, 'get' | 'getVersion'>, tenantId: string, name: string, version: number): Promise<FormLookup> {
  return lookup(forms, tenantId, await forms.getVersion(tenantId, name, version));
}

async function lookup(forms: Pick<CustomDataFormStore, 'get'>, tenantId: string, summary: { id: string } | undefined): Promise<FormLookup> {
  const record = summary && (await forms.get(tenantId, summary.id));
  if (!record) return { outcome: 'missing' };
  if (record.status === 'ARCHIVED') return { outcome: 'archived', record };
  const parsed = parseCustomDataFormResource(record.resource);
  if (!parsed.ok) return { outcome: 'unreadable', record, problems: parsed.issues.map((i) => `${i.path.join('.') || 'resource'} ${i.message}`) };
  return { outcome: 'found', record, form: parsed.form };
}

async function latestActive(forms: Pick<CustomDataFormStore, 'versionsOf'>, tenantId: string, name: string) {
  const versions = forms.versionsOf(tenantId, name);
  let after: string | undefined;
  for (;;) {
    const page = await versions.read({ after, limit: 25, descending: true });
    const active = page.rows.find((r) => r.record.status === 'DEPLOYED_ACTIVE')?.record;
    after = page.rows.at(-1)?.at;
    if (active || page.done || after === undefined) return active;
  }
}

/**
 * The (name, version) an activity names, when it names one with literal values (a `${...}`
 * reference is known only at run time); `version` undefined when it names the latest active one.
 */
export function formReferenceOf(activity: { type: string; inputs: Record<string, unknown> }): { name: string; version: number | undefined } | undefined {
  if (!FORM_REFERENCING_TYPES.includes(activity.type)) return undefined;
  const name = activity.inputs[FORM_NAME_INPUT];
  const raw = activity.inputs[FORM_VERSION_INPUT] ?? (activity.type === 'PASSCODE_AUTHENTICATION_FORM' ? 1 : undefined);
  const version = typeof raw === 'string' && /^\d{1,9}$/.test(raw) ? Number(raw) : raw;
  if (typeof name !== 'string' || name.includes('${')) return undefined;
  if (version === undefined) return { name, version: undefined };
  if (typeof version !== 'number' || !Number.isSafeInteger(version)) return undefined;
  return { name, version };
}

/**
 * The publish-time check: for every activity that names a data form by name and version, one
 * detail when that version does not exist for the tenant or is ARCHIVED (or can no longer be
 * read). Each distinct form is read once. A name or version given as a `${...}` reference is
 * checked when the step starts instead; so is the latest active version, when none is named
 * (the name must exist now).
 */
export async function missingFormReferences(
  forms: Pick<CustomDataFormStore, 'get' | 'getVersion' | 'latestVersion'>,
  tenantId: string,
  activities: Record<string, { type: string; inputs: Record<string, unknown> }>,
): Promise<ErrorDetail[]> {
  const lookups = new Map<string, Promise<FormLookup>>();
  const details: ErrorDetail[] = [];
  for (const [id, activity] of Object.entries(activities)) {
    const ref = formReferenceOf(activity);
    if (!ref) continue;
    if (ref.version === undefined) {
      // The latest active version is chosen when the step starts: the name must have versions now.
      if ((await forms.latestVersion(tenantId, ref.name)) === undefined) {
        details.push({ location: `activities.${id}.inputs.${FORM_NAME_INPUT}`, message: `Activity ${id} (${activity.type}) names data form "${ref.name}", which does not exist.` });
      }
      continue;
    }
    const key = JSON.stringify([ref.name, ref.version]);
    if (!lookups.has(key)) lookups.set(key, findNamedVersion(forms, tenantId, ref.name, ref.version));
    const found = await lookups.get(key)!;
    if (found.outcome === 'found') continue;
    const why =
      found.outcome === 'missing'
        ? 'does not exist'
        : found.outcome === 'archived'
          ? 'is ARCHIVED'
          : `cannot be read (${found.problems.slice(0, 3).join('; ')})`;
    details.push({
      location: `activities.${id}.inputs.${FORM_NAME_INPUT}`,
      message: `Activity ${id} (${activity.type}) names data form "${ref.name}" version ${ref.version}, which ${why}.`,
    });
  }
  return details;
}
