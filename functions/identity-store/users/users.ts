import { apiError } from '../../errors.js';
import { newId26 } from '../../shared/ids.js';
import { newEvent } from '../events/events.js';
import { IdentityStoreNotFoundError } from '../stores/stores.js';
import type { IdentityStoreStore, IdentityUserRecord, IdentityUserStore, UserRef } from '../model.js';
import { own } from '../../shared/own.js';

export type { IdentityUserRecord, IdentityUserStore, UserRef } from '../model.js';

export class UserNotFoundError extends apiError('USER_NOT_FOUND') {}

export class ExternalIdNotUniqueError extends apiError('EXTERNAL_ID_NOT_UNIQUE') {
  constructor(externalId: string) {
    super(`Another user of this store has the external id ${JSON.stringify(externalId)}.`);
  }
}

export function newUser(input: { tenantId: string; storeName: string; externalId: string; actor: string; now: Date }): IdentityUserRecord {
  const at = input.now.toISOString();
  return {
    tenantId: input.tenantId,
    storeName: input.storeName,
    id: newId26(),
    externalId: input.externalId,
    status: 'ACTIVE',
    passcodes: {},
    createdDtm: at,
    createdBy: input.actor,
    lastUpdatedDtm: at,
  };
}

/** The user as the API shows it (the `user` of passcode responses, user reads, the Add User output). */
export function userView(u: IdentityUserRecord) {
  return {
    id: u.id,
    externalId: u.externalId,
    storeName: u.storeName,
    status: u.status,
    passcodes: Object.entries(u.passcodes)
      .map(([policyName, p]) => ({ policyName, registeredDtm: p.registeredDtm }))
      .sort((a, b) => a.policyName.localeCompare(b.policyName)),
    createdDtm: u.createdDtm,
    lastUpdatedDtm: u.lastUpdatedDtm,
  };
}

export type UserView = ReturnType<typeof userView>;

/** Adds a user to a store (the API and the Add User activity). */
export async function addUser(
  s: { stores: IdentityStoreStore; users: IdentityUserStore },
  input: { tenantId: string; storeName: string; externalId: string; actor: string; now: Date },
) {
  if (!(await s.stores.get(input.tenantId, input.storeName))) throw new IdentityStoreNotFoundError(input.storeName);
  const user = newUser(input);
  const event = newEvent({
    tenantId: input.tenantId,
    type: 'USER_ADDED',
    storeName: input.storeName,
    userId: user.id,
    externalId: user.externalId,
    actor: input.actor,
    details: {},
    now: input.now,
  });
  if ((await s.users.create(user, event)).outcome === 'externalIdTaken') throw new ExternalIdNotUniqueError(input.externalId);
  return user;
}

/** A user by id or external id, and its store: 404 for either missing. */
export async function findUser(s: { stores: IdentityStoreStore; users: IdentityUserStore }, tenantId: string, storeName: string, ref: UserRef) {
  const store = await s.stores.get(tenantId, storeName);
  if (!store) throw new IdentityStoreNotFoundError(storeName);
  const user = await s.users.get(tenantId, storeName, ref);
  if (!user) throw new UserNotFoundError();
  return { store, user };
}

/**
 * The user an activity names: the one kept under User Key earlier in the flow, else User ID,
 * else User External ID; undefined when none is given.
 */
export function userRefFrom(inputs: Record<string, unknown>, vars: Record<string, unknown> | undefined): UserRef | undefined {
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
  const keyName = str(inputs['User Key']);
  const kept = keyName ? (own(vars, keyName) as { id?: unknown } | undefined) : undefined;
  const id = str(inputs['User ID']) ?? str(kept?.id);
  if (id) return { userId: id };
  const ext = str(inputs['User External ID']);
  return ext ? { externalId: ext } : undefined;
}
