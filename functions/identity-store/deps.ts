import { identityEventStore, identityStoreStore, identityUserStore, passcodeStore, passkeyStore } from '../store/identity-store.js';
import type { IdentityEventStore, IdentityStores, PasskeyStore } from './model.js';

/**
 * The identity store's storage, put together here and only here: handlers, activities and
 * journey steps take it from this module and hand it to the domain functions.
 */
export const identityStores: IdentityStores & { events: IdentityEventStore; passkeys: PasskeyStore } = {
  stores: identityStoreStore,
  users: identityUserStore,
  passcodes: passcodeStore,
  events: identityEventStore,
  passkeys: passkeyStore,
};
