import type { JSONWebKeySet, JWTPayload } from 'jose';
import { verifyJwtSync } from 'aws-jwt-verify/jwt-verifier';
import { JwtExpiredError } from 'aws-jwt-verify/error';
import type { Jwks } from 'aws-jwt-verify/jwk';
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
 * material for a JOSE library to hold); verification always goes through aws-jwt-verify.
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
}

/** The claims every route relies on, with their types: a token without them is refused. */
const REQUIRED_CLAIMS = { exp: 'number', iat: 'number', sub: 'string', tid: 'string', scope: 'string', jti: 'string' } as const;

/**
 * Strict verification, as the API Gateway JWT authorizer does it and a little stricter, with
 * aws-jwt-verify (AWS's verifier, made for Lambda; zero dependencies): only RS256 (so `none`, HMAC-with-the-public-key confusion and other key types
 * fail), a key of the given JWKS by `kid` (never fetched: an unknown kid is refused, not looked
 * up), the exact issuer and audience, `typ: at+jwt`, expiry and not-before with 5 s of grace,
 * and the claims every route relies on.
 */
export async function verifyAccessToken(token: string, opts: VerifyOptions): Promise<AccessTokenClaims> {
  const payload = verifyJwtSync(token, opts.jwks as unknown as Jwks, {
    issuer: opts.issuer,
    audience: opts.audience,
    graceSeconds: 5,
    customJwtCheck: ({ header, payload: claims }) => {
      if (header.alg !== TOKEN_ALG) throw new Error(`the token is signed with ${String(header.alg)}, not ${TOKEN_ALG}`);
      if (header.typ !== TOKEN_TYPE) throw new Error(`the token's type is ${String(header.typ)}, not ${TOKEN_TYPE}`);
      for (const [claim, type] of Object.entries(REQUIRED_CLAIMS)) {
        if (typeof (claims as Record<string, unknown>)[claim] !== type) throw new Error(`the token has no ${type} claim ${claim}`);
      }
    },
  });
  return payload as unknown as AccessTokenClaims;
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
 * the one InvalidTokenError, its reason kept out of the response as API Gateway keeps it, but
 * for an expired token, which is told so (as API Gateway's authorizer tells it in its challenge).
 */
export async function verifyBearer(authorization: string | undefined, opts: VerifyOptions): Promise<AccessTokenClaims> {
  const m = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization?.trim() ?? '');
  if (!m) throw new InvalidTokenError('Send a bearer token: Authorization: Bearer <token>.');
  try {
    return await verifyAccessToken(m[1]!, opts);
  } catch (err) {
    // aws-jwt-verify checks the signature before the expiry: an expired token is a genuine one.
    if (err instanceof JwtExpiredError && typeof err.failedAssertion.actual === 'number') throw InvalidTokenError.expired(new Date(err.failedAssertion.actual * 1000));
    throw new InvalidTokenError();
  }
}
