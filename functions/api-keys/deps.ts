import type { ApiKeyStore } from './domain.js';
import { apiKeyStore } from '../store/api-keys.js';

/**
 * The API key area's storage, put together here and only here: handlers (and the direct-key
 * authentication) take it from this module and hand it to the domain functions.
 */
export const apiKeys: ApiKeyStore = apiKeyStore;
