import type { AuthContext } from '../http/wrapper.js';
import type { Actor } from './domain.js';

/** The acting key, from a bearer auth context the wrapper has already checked. */
export function keyActorOf(tenantId: string, auth: AuthContext): Actor {
  if (auth.kind !== 'bearer') throw new Error('API key management runs on bearer routes only');
  return { tenantId, id: auth.actor, apiKeyId: auth.apiKeyId, permissions: auth.permissions };
}
