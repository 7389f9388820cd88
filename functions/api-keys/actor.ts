import type { AuthContext } from '../http/wrapper.js';
import type { Actor } from './domain.js';

/** The acting key, from a bearer auth context the wrapper has already checked. */
export function actorOf(tenantId: string, auth: AuthContext): Actor {
  if (auth.kind !== 'bearer') throw new Error('API key management runs on bearer routes only');
  return { tenantId, principal: auth.principal, apiKeyId: auth.apiKeyId, permissions: auth.permissions };
}
