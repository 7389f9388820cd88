import { identityEventStore, identityStoreStore, identityUserStore, passcodeStore, passkeyStore } from '../store/identity-store.js';
import type { IdentityEventStore, IdentityStoreStore, IdentityStores, IdentityUserStore, PasscodeStore, PasskeyStore } from './model.js';

/**
 * The identity store's storage, put together here and only here: handlers, activities and
 * journey steps take it from this module and hand it to the domain functions. A handler that
 * needs one store imports that one binding, so its bundle carries only that store.
 */
export const stores: IdentityStoreStore = identityStoreStore;
export const users: IdentityUserStore = identityUserStore;
export const passcodes: PasscodeStore = passcodeStore;
export const events: IdentityEventStore = identityEventStore;
export const passkeys: PasskeyStore = passkeyStore;

/** All of it, for the domain functions that work across stores, users and credentials. */
export const identityStores: IdentityStores & { events: IdentityEventStore; passkeys: PasskeyStore } = { stores, users, passcodes, events, passkeys };
