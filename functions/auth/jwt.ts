import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import type { TokenSigner } from './signer.js';
import { InvalidTokenError } from '../errors.js';

/**
 * Access tokens follow RFC 9068 (`typ: at+jwt`): iss, aud, sub and client_id (the API key id),
 * iat, nbf, exp, jti, and `scope` (bare permission names, space separated). `tid` names the
 * tenant: `TNT#{tid}#{name}` for each name in `scope` is the key's permission. There is no
 * `permissions` claim repeating them with the prefix: it made a token grow by the tenant id
 * once per permission, for nothing a reader cannot build from `tid` and `scope`.
 */
export const TOKEN_TYPE = 'at+jwt';
export const TOKEN_ALG = 'RS256';

export interface AccessTokenClaims extends JWTPayload {
  iss: string;
  aud: string;
  sub: string;
  client_id: string;
  tid: string;
  rgn: string;
  scope: string;
  iat: number;
  nbf: number;
  exp: number;
  jti: string;
}

function b64u(data: string | Uint8Array): string {
  return Buffer.from(data).toString('base64url');
}

/**
 * Compact JWS assembled here because the KMS signer exposes only a sign operation (no key
 * material for a JOSE library to hold); verification always goes through `jose`.
 */
export async function signAccessToken(signer: TokenSigner, claims: AccessTokenClaims): Promise<string> {
  const header = { alg: TOKEN_ALG, typ: TOKEN_TYPE, kid: await signer.keyId() };
  const input = `${b64u(JSON.stringify(header))}.${b64u(JSON.stringify(claims))}`;
  const signature = await signer.sign(Buffer.from(input, 'ascii'));
  return `${input}.${b64u(signature)}`;
}

export interface VerifyOptions {
  jwks: JSONWebKeySet;
  issuer: string;
  audience: string;
  /** Seconds since the epoch; defaults to the clock. */
  now?: number;
}

/**
 * Strict verification, as the API Gateway JWT authorizer does it and a little stricter: only
 * RS256 (so `none` and HMAC-with-the-public-key confusion fail), the exact issuer and audience,
 * `typ: at+jwt`, and the claims every route relies on.
 */
export async function verifyAccessToken(token: string, opts: VerifyOptions): Promise<AccessTokenClaims> {
  const keys = createLocalJWKSet(opts.jwks);
  const { payload } = await jwtVerify(token, keys, {
    algorithms: [TOKEN_ALG],
    issuer: opts.issuer,
    audience: opts.audience,
    typ: TOKEN_TYPE,
    requiredClaims: ['exp', 'iat', 'sub', 'tid', 'scope', 'jti'],
    clockTolerance: 5,
    ...(opts.now !== undefined ? { currentDate: new Date(opts.now * 1000) } : {}),
  });
  if (typeof payload.tid !== 'string' || typeof payload.scope !== 'string') {
    throw new Error('token claims have the wrong types');
  }
  return payload as AccessTokenClaims;
}

export function buildAccessTokenClaims(input: {
  issuer: string;
  audience: string;
  region: string;
  tenantId: string;
  apiKeyId: string;
  permissions: string[];
  now: Date;
  ttlSeconds: number;
  jti: string;
}): AccessTokenClaims {
  const iat = Math.floor(input.now.getTime() / 1000);
  const prefix = `TNT#${input.tenantId}#`;
  return {
    iss: input.issuer,
    aud: input.audience,
    sub: input.apiKeyId,
    client_id: input.apiKeyId,
    tid: input.tenantId,
    rgn: input.region,
    scope: input.permissions.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length)).join(' '),
    iat,
    nbf: iat,
    exp: iat + input.ttlSeconds,
    jti: input.jti,
  };
}

/**
 * `Authorization: Bearer <token>` verified as strictly as verifyAccessToken does; any failure is
 * the one InvalidTokenError, its reason kept out of the response as API Gateway keeps it.
 */
export async function verifyBearer(authorization: string | undefined, opts: VerifyOptions): Promise<AccessTokenClaims> {
  const m = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization?.trim() ?? '');
  if (!m) throw new InvalidTokenError('Send a bearer token: Authorization: Bearer <token>.');
  try {
    return await verifyAccessToken(m[1]!, opts);
  } catch {
    throw new InvalidTokenError();
  }
}
