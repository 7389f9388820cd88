import { readFileSync } from 'node:fs';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { SignJWT, decodeJwt, decodeProtectedHeader, importPKCS8, type JWTPayload } from 'jose';
import { adminToken, call, issueToken, keyWith } from './client.js';

const LIST = '/api/arthr/apiKeys';
const b64u = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

describe('bearer routes', () => {
  let real: string;
  let claims: JWTPayload;
  let kid: string;
  let sign: (payload: JWTPayload, header?: Record<string, unknown>) => Promise<string>;

  beforeAll(async () => {
    real = await adminToken();
    claims = decodeJwt(real);
    kid = decodeProtectedHeader(real).kid!;
    // The service's own key, read from its data folder: a forged token below fails for the
    // one reason each test names, not because it was signed by a stranger.
    const key = await importPKCS8(readFileSync(join(inject('localDir'), 'signing-key.pem'), 'utf8'), 'RS256');
    sign = (payload, header = {}) =>
      new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid, ...header }).sign(key);
  });

  it('accept a correctly signed token (the control for the forgeries below)', async () => {
    expect((await call('GET', LIST, { token: real })).status).toBe(200);
    expect((await call('GET', LIST, { token: await sign({ ...claims }) })).status).toBe(200);
  });

  async function expectRefused(token: string) {
    const res = await call('GET', LIST, { token });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('INVALID_TOKEN');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  }

  it('refuse alg none', async () => {
    await expectRefused(`${b64u({ alg: 'none', typ: 'at+jwt' })}.${b64u(claims)}.`);
    await expectRefused(`${b64u({ alg: 'none', typ: 'at+jwt', kid })}.${b64u(claims)}.${real.split('.')[2]}`);
  });

  it('refuse an HS256 token signed with the public key as the HMAC secret', async () => {
    const jwks = (await call('GET', '/.well-known/jwks.json', { tenant: null })).json;
    const pem = createPublicKey({ key: jwks.keys[0], format: 'jwk' }).export({ format: 'pem', type: 'spki' });
    for (const secret of [pem, Buffer.from(JSON.stringify(jwks.keys[0]))]) {
      const token = await new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid })
        .sign(new Uint8Array(Buffer.from(secret)));
      await expectRefused(token);
    }
  });

  it('refuse a tampered signature or payload', async () => {
    const [h, p, s] = real.split('.');
    const flipped = s!.slice(0, 10) + (s![10] === 'A' ? 'B' : 'A') + s!.slice(11);
    await expectRefused(`${h}.${p}.${flipped}`);
    await expectRefused(`${h}.${b64u({ ...claims, scope: `${claims.scope} extra` })}.${s}`);
    await expectRefused(`${h}.${b64u({ ...claims, tid: 'other' })}.${s}`);
  });

  it('refuse a token signed by another key under the same kid', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const token = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid }).sign(privateKey);
    await expectRefused(token);
  });

  it('refuse a wrong issuer, a wrong audience, a wrong type', async () => {
    await expectRefused(await sign({ ...claims, iss: 'https://evil.example' }));
    await expectRefused(await sign({ ...claims, aud: 'another-api' }));
    await expectRefused(await sign({ ...claims }, { typ: 'JWT' }));
  });

  it('refuse an expired token and one not valid yet', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectRefused(await sign({ ...claims, iat: now - 7200, nbf: now - 7200, exp: now - 3600 }));
    await expectRefused(await sign({ ...claims, iat: now, nbf: now + 3600, exp: now + 7200 }));
  });

  it('tell an expired token that it expired, on bearer and on "B or K" routes alike', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await sign({ ...claims, iat: now - 7200, nbf: now - 7200, exp: now - 3600 });
    const at = new Date((now - 3600) * 1000).toISOString();
    for (const [method, path] of [['GET', LIST], ['GET', '/api/process-manager/processTokens']] as const) {
      const res = await call(method, path, { token: expired });
      expect(res.status, path).toBe(401);
      expect(res.json).toEqual({
        code: 'INVALID_TOKEN',
        message: `The bearer token expired at ${at}; issue a new one with POST /api/arthr/apiKeys/issue and send that.`,
        error_description: 'The access token expired',
      });
      expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token", error_description="The access token expired"');
    }
    // Signed by a stranger: not told anything, expired or not.
    const stranger = await new SignJWT({ ...claims, iat: now - 7200, nbf: now - 7200, exp: now - 3600 })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid })
      .sign(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
    const refused = await call('GET', LIST, { token: stranger });
    expect(refused.json).toEqual({ code: 'INVALID_TOKEN', message: 'The bearer token is missing, malformed, expired or not valid here.' });
  });

  it('refuse a missing token, another scheme, or garbage', async () => {
    expect((await call('GET', LIST)).status).toBe(401);
    expect((await call('GET', LIST, { headers: { authorization: `Basic ${b64u('a:b')}` } })).status).toBe(401);
    expect((await call('GET', LIST, { headers: { authorization: 'Bearer' } })).status).toBe(401);
    await expectRefused('not.a.token');
  });

  it("refuse a token of another tenant on this tenant's host", async () => {
    const other = await issueToken(inject('otherKey'), 'other');
    await expectRefused(other);
    expect((await call('GET', LIST, { tenant: 'other', token: other })).status).toBe(200);
    // The same forged claims signed properly but naming another tenant than the host's.
    await expectRefused(await sign({ ...claims, tid: 'other' }));
  });

  it('refuse a token without the permission of the route with 403', async () => {
    const { secret } = await keyWith(['ArthrServer:getFromTenant']);
    const token = await issueToken(secret);
    const res = await call('GET', LIST, { token });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ code: 'MISSING_PERMISSION', message: expect.stringContaining('TNT#demo#ArthrServer:listTenantApiKeys') });
    for (const [method, path, body] of [
      ['POST', LIST, { name: 'x' }],
      ['POST', `${LIST}/00000000-0000-4000-8000-000000000000`, { name: 'x' }],
      ['DELETE', `${LIST}/00000000-0000-4000-8000-000000000000`, undefined],
    ] as const) {
      expect((await call(method, path, { token, body })).status).toBe(403);
    }
  });
});
