import { apiError, ConcurrentUpdateError, ValidationError } from '../../errors.js';
import type { PasscodeRequirements } from '../passcodes/passcode-rules.js';
import type { IdentityStoreRecord, IdentityStoreStore, PasscodePolicy, PasskeyRpConfig, StoreType } from '../model.js';
import { keyedPage } from '../../shared/keyed-list.js';

// The model's types, for callers that import them with the functions that use them.
export type { IdentityStoreRecord, IdentityStoreStore, PasscodePolicy, StoreType } from '../model.js';
export type { PasscodeRegex, PasscodeRequirements } from '../passcodes/passcode-rules.js';

export class IdentityStoreNotFoundError extends apiError('STORE_NOT_FOUND') {
  constructor(name: string) {
    super(`Identity store ${name} was not found.`);
  }
}

export class IdentityStoreExistsError extends apiError('STORE_EXISTS') {}

export class PolicyNotFoundError extends apiError('POLICY_NOT_FOUND') {}

/** The most earlier passcodes a policy can refuse (each user keeps this many verifiers per policy). */
export const MAX_PASSCODE_HISTORY = 24;

export const DEFAULT_REQUIREMENTS: PasscodeRequirements = {
  minimumLength: 8,
  maximumLength: 64,
  digitCount: 0,
  symbolCount: 0,
  lowerCaseCount: 0,
  upperCaseCount: 0,
  characterVariety: 0,
  passcodeHistory: 0,
  requiredRegExes: [],
  allowedRegExes: [],
  disallowedRegExes: [],
};

/**
 * Checks that a policy can be met and that its expressions are safe to run: each compiles as a
 * JavaScript expression with the `u` flag (the browser checks them as the end user types), and
 * the counts fit inside the maximum length.
 */
export function checkPasscodePolicy(name: string, policy: PasscodePolicy): void {
  const r = policy.requirements;
  const at = `body.passcodePolicies.${name}.requirements`;
  const problems: { location: string; message: string }[] = [];
  if (r.minimumLength > r.maximumLength) problems.push({ location: `${at}.minimumLength`, message: 'must not be more than maximumLength' });
  const counted = r.digitCount + r.symbolCount + r.lowerCaseCount + r.upperCaseCount;
  if (counted > r.maximumLength) problems.push({ location: at, message: `the character counts (${counted}) exceed maximumLength` });
  // These rules run only in the end user's browser, as they type (SRP: the service never sees a
  // passcode), so JavaScript's engine is the one to satisfy, and a backreference rule such as
  // `(.)\1\1` stays possible. Patterns the service itself runs on end users' input (data form
  // fields) are held to RE2 instead (shared/tenant-regex.ts).
  for (const list of ['requiredRegExes', 'allowedRegExes', 'disallowedRegExes'] as const) {
    r[list].forEach((rule, i) => {
      try {
        new RegExp(rule.pattern, 'u');
      } catch (err) {
        problems.push({ location: `${at}.${list}.${i}.pattern`, message: `not a valid expression: ${(err as Error).message}` });
      }
    });
  }
  if (problems.length) throw new ValidationError(`Passcode policy ${name} cannot be used.`, problems);
}

export function storeView(r: IdentityStoreRecord) {
  return {
    name: r.name,
    description: r.description,
    type: r.type,
    passcodePolicies: r.passcodePolicies,
    passkeyConfig: r.passkeyConfig ?? {},
    createdDtm: r.createdDtm,
    createdBy: r.createdBy,
    lastUpdatedDtm: r.lastUpdatedDtm,
    lastUpdatedBy: r.lastUpdatedBy,
  };
}

export function newStore(input: {
  tenantId: string;
  name: string;
  description?: string | undefined;
  type?: StoreType | undefined;
  passcodePolicies?: Record<string, PasscodePolicy> | undefined;
  actor: string;
  now: Date;
}): IdentityStoreRecord {
  const policies = input.passcodePolicies ?? {};
  for (const [name, policy] of Object.entries(policies)) checkPasscodePolicy(name, policy);
  const at = input.now.toISOString();
  return {
    tenantId: input.tenantId,
    name: input.name,
    description: input.description ?? '',
    type: input.type ?? 'STANDARD',
    passcodePolicies: policies,
    passkeyConfig: {},
    createdDtm: at,
    createdBy: input.actor,
    lastUpdatedDtm: at,
    lastUpdatedBy: input.actor,
    version: 1,
  };
}

/** A partial update: what is given replaces what was (a policy map replaces the whole map). */
export function updatedStore(
  current: IdentityStoreRecord,
  change: { description?: string | undefined; passcodePolicies?: Record<string, PasscodePolicy> | undefined },
  actor: string,
  now: Date,
): IdentityStoreRecord {
  if (change.passcodePolicies) for (const [name, policy] of Object.entries(change.passcodePolicies)) checkPasscodePolicy(name, policy);
  return {
    ...current,
    ...(change.description !== undefined ? { description: change.description } : {}),
    ...(change.passcodePolicies ? { passcodePolicies: change.passcodePolicies } : {}),
    lastUpdatedDtm: now.toISOString(),
    lastUpdatedBy: actor,
    version: current.version + 1,
  };
}

/** Sets (adds or replaces) the passkey configuration of one relying party. */
export function withPasskeyConfig(current: IdentityStoreRecord, config: PasskeyRpConfig, actor: string, now: Date): IdentityStoreRecord {
  return {
    ...current,
    passkeyConfig: { ...(current.passkeyConfig ?? {}), [config.rpId]: config },
    lastUpdatedDtm: now.toISOString(),
    lastUpdatedBy: actor,
    version: current.version + 1,
  };
}

/** Reads a store, changes it, and writes it over the version read (404 when absent, 409 when it changed meanwhile). */
export async function changeStore(
  stores: IdentityStoreStore,
  tenantId: string,
  name: string,
  change: (current: IdentityStoreRecord) => IdentityStoreRecord,
): Promise<IdentityStoreRecord> {
  const current = await stores.get(tenantId, name);
  if (!current) throw new IdentityStoreNotFoundError(name);
  const next = change(current);
  if (!(await stores.replace(next, current.version))) throw new ConcurrentUpdateError();
  return next;
}

/** Creates a store (409 when the name is taken). */
export async function createStore(stores: IdentityStoreStore, record: IdentityStoreRecord): Promise<IdentityStoreRecord> {
  if (!(await stores.create(record))) throw new IdentityStoreExistsError(`An identity store named ${record.name} exists.`);
  return record;
}

/** A store by name (404 when absent). */
export async function getStore(stores: IdentityStoreStore, tenantId: string, name: string): Promise<IdentityStoreRecord> {
  const record = await stores.get(tenantId, name);
  if (!record) throw new IdentityStoreNotFoundError(name);
  return record;
}

/**
 * A page of the tenant's stores by name (docs/lists.md): one Query of the page's own items, by
 * `cursor` or by number; `totalElements` counted by the first page and carried in its cursor.
 */
export async function storesPage(stores: Pick<IdentityStoreStore, 'byName'>, tenantId: string, query: { page: number; size: number; cursor?: string | undefined }) {
  return keyedPage(stores.byName(tenantId), {
    binding: { tenantId, list: 'identityStores' },
    page: query.page,
    size: query.size,
    cursor: query.cursor,
    descending: false,
    sorted: true,
    view: (records) => records.map(storeView),
  });
}
