import type { JSONWebKeySet } from 'jose';
import { MissingPermissionError } from '../../functions/errors.js';
import { qualify } from '../../functions/auth/permissions.js';
import { verifyBearer } from '../../functions/auth/jwt.js';
import type { RouteDef } from '../../functions/http/route.js';

export interface JwtAuthorizerContext {
  jwt: { claims: Record<string, string>; scopes: string[] };
}

/**
 * Emulates the API Gateway HTTP API JWT authorizer: bearer scheme, RS256 signature against the
 * JWKS, exact issuer and audience, expiry, and the route's scope. Claims reach the function
 * flattened to strings as API Gateway flattens them (arrays become "[a b]").
 */
export async function authorizeJwt(
  route: RouteDef,
  authorization: string | undefined,
  opts: { jwks: JSONWebKeySet; issuer: string; audience: string; tenantHint: string },
): Promise<JwtAuthorizerContext> {
  const claims = await verifyBearer(authorization, opts);
  const scopes = claims.scope.split(' ').filter(Boolean);
  if (route.permission && !scopes.includes(route.permission)) {
    throw new MissingPermissionError(qualify(opts.tenantHint || '{tenantId}' as string, route.permission));
  }
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(claims)) {
    flat[k] = Array.isArray(v) ? `[${v.join(' ')}]` : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return { jwt: { claims: flat, scopes } };
}
