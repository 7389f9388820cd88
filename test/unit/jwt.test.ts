import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildAccessTokenClaims, signAccessToken, verifyAccessToken, verifyBearer } from '../../functions/auth/jwt.js';
import { InvalidTokenError } from '../../functions/errors.js';
import { FileSigner } from '../../functions/auth/signer.js';

const issuer = 'https://issuer.example';
const audience = 'arthr-api';
let signer: FileSigner;
let privateKey: import('node:crypto').KeyObject;
let jwks: { keys: import('jose').JWK[] };

function claims(overrides: Record<string, unknown> = {}) {
  return {
    ...buildAccessTokenClaims({
      issuer, audience, region: 'fir', tenantId: 'acme', apiKeyId: 'k1', jti: 'j1', ttlSeconds: 600, now: new Date(),
      permissions: ['TNT#acme#ArthrServer:getFromTenant', 'TNT#other#ArthrServer:deleteFromTenant'],
    }),
    ...overrides,
  };
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jwt-'));
  ({ privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 }));
  writeFileSync(join(dir, 'k.pem'), privateKey.export({ format: 'pem', type: 'pkcs8' }));
  signer = new FileSigner(join(dir, 'k.pem'));
  jwks = { keys: [await signer.publicJwk()] };
});

describe('buildAccessTokenClaims', () => {
  it('puts only the tenant\'s own permissions in scope, as bare names', () => {
    expect(claims().scope).toBe('ArthrServer:getFromTenant');
    expect(claims().tid).toBe('acme');
  });
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('verifyAccessToken', () => {
  it('accepts a token this service signed', async () => {
    const token = await signAccessToken(signer, claims());
    await expect(verifyAccessToken(token, { jwks, issuer, audience })).resolves.toMatchObject({ tid: 'acme', sub: 'k1' });
  });

  it('rejects when the algorithm is none or HS256 with the public key', async () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    await expect(verifyAccessToken(`${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(claims())}.`, { jwks, issuer, audience })).rejects.toThrow();
    const hs = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: jwks.keys[0]!.kid })
      .sign(new TextEncoder().encode(JSON.stringify(jwks.keys[0])));
    await expect(verifyAccessToken(hs, { jwks, issuer, audience })).rejects.toThrow();
  });

  it('rejects when the issuer, audience, type or expiry is wrong', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const bad of [{ iss: 'https://other' }, { aud: 'other' }, { exp: now - 60, iat: now - 120, nbf: now - 120 }]) {
      await expect(verifyAccessToken(await signAccessToken(signer, claims(bad) as never), { jwks, issuer, audience })).rejects.toThrow();
    }
    const token = await signAccessToken(signer, claims());
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 3600_000);
    await expect(verifyAccessToken(token, { jwks, issuer, audience })).rejects.toThrow();
  });

  it('rejects when the type is not at+jwt, or the key is not one of the JWKS (never fetched)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jwt-'));
    writeFileSync(join(dir, 'other.pem'), generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }));
    const other = new FileSigner(join(dir, 'other.pem'));
    const fetched = vi.spyOn(globalThis, 'fetch');
    await expect(verifyAccessToken(await signAccessToken(other, claims()), { jwks, issuer, audience })).rejects.toThrow(/not found in the JWKS/);
    expect(fetched).not.toHaveBeenCalled();
    const retyped = await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: jwks.keys[0]!.kid }).sign(privateKey);
    await expect(verifyAccessToken(retyped, { jwks, issuer, audience })).rejects.toThrow(/type is JWT/);
  });

  it('rejects when a required claim is missing', async () => {
    const { tid: _t, ...noTenant } = claims();
    await expect(verifyAccessToken(await signAccessToken(signer, noTenant as never), { jwks, issuer, audience })).rejects.toThrow();
  });
});

describe('verifyBearer', () => {
  it('tells a genuine token past its expiry that it expired, with an OAuth error_description', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await signAccessToken(signer, claims({ exp: now - 60, iat: now - 660, nbf: now - 660 }) as never);
    const err = (await verifyBearer(`Bearer ${token}`, { jwks, issuer, audience }).catch((e: unknown) => e)) as InvalidTokenError;
    expect(err).toBeInstanceOf(InvalidTokenError);
    expect(err.statusCode).toBe(401);
    expect(err.toBody()).toEqual({
      code: 'INVALID_TOKEN',
      message: `The bearer token expired at ${new Date((now - 60) * 1000).toISOString()}; issue a new one with POST /api/arthr/apiKeys/issue and send that.`,
      error_description: 'The access token expired',
    });
    expect(err.headers['WWW-Authenticate']).toBe('Bearer error="invalid_token", error_description="The access token expired"');
  });

  it('says nothing of expiry for a token that does not verify, expired or not', async () => {
    const now = Math.floor(Date.now() / 1000);
    const dir = mkdtempSync(join(tmpdir(), 'jwt-'));
    writeFileSync(join(dir, 'other.pem'), generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }));
    const forged = await signAccessToken(new FileSigner(join(dir, 'other.pem')), claims({ exp: now - 60, iat: now - 660, nbf: now - 660 }) as never);
    const [header, payload, signature] = (await signAccessToken(signer, claims({ exp: now - 60, iat: now - 660, nbf: now - 660 }) as never)).split('.');
    for (const token of [forged, `${header}.${payload}.${signature!.slice(0, -4)}AAAA`]) {
      const err = (await verifyBearer(`Bearer ${token}`, { jwks, issuer, audience }).catch((e: unknown) => e)) as InvalidTokenError;
      expect(err.toBody()).toEqual({ code: 'INVALID_TOKEN', message: 'The bearer token is missing, malformed, expired or not valid here.' });
      expect(err.headers['WWW-Authenticate']).toBe('Bearer error="invalid_token"');
    }
  });
});
