import { identityEventStore, identityStoreStore, identityUserStore, passcodeStore, passkeyStore } from '../store/identity-store.js';
import type { IdentityStores } from './passcodes.js';

/** The identity store's storage, as the domain functions take it. */
export const identityStores: IdentityStores & { events: typeof identityEventStore; passkeys: typeof passkeyStore } = {
  stores: identityStoreStore,
  users: identityUserStore,
  passcodes: passcodeStore,
  events: identityEventStore,
  passkeys: passkeyStore,
};
