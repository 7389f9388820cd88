import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, issueToken, keyWith } from './client.js';
import { allPermissions } from '../../functions/auth/permissions.js';

/**
 * Key management cannot be turned against stronger keys: a caller changes or deletes only keys
 * whose permissions it holds itself, a key that expires cannot make one that outlives it, and a
 * blocked or deleted key's tokens stop managing keys at once.
 */
let admin: string;
const ALL = allPermissions('demo');

beforeAll(async () => {
  admin = await adminToken();
});

async function strongKey() {
  const res = await call('POST', '/api/arthr/apiKeys', { token: admin, body: { name: `strong ${Math.random()}`, permissions: ALL } });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string; secret: string };
}

describe('a key with only the update permission', () => {
  it('cannot block, archive, rename or strip a key holding more than it does', async () => {
    const strong = await strongKey();
    const weak = await keyWith(['ArthrServer:updateTenantApiKey', 'ArthrServer:deleteFromTenant', 'ArthrServer:getFromTenant']);
    const token = await issueToken(weak.secret);
    for (const body of [{ status: 'BLOCKED' }, { status: 'ARCHIVED' }, { permissions: [] }, { name: 'mine now' }]) {
      const res = await call('POST', `/api/arthr/apiKeys/${strong.id}`, { token, body });
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.json.code).toBe('PERMISSION_ESCALATION');
    }
    const deleted = await call('DELETE', `/api/arthr/apiKeys/${strong.id}`, { token });
    expect(deleted.status).toBe(403);
    expect(deleted.json.code).toBe('PERMISSION_ESCALATION');
    // The strong key is as it was.
    const read = await call('GET', `/api/arthr/apiKeys/${strong.id}`, { token: admin });
    expect(read.json).toMatchObject({ status: 'ACTIVE', permissions: ALL });
    expect((await call('POST', '/api/arthr/apiKeys/issue', { apiKey: strong.secret, body: {} })).status).toBe(200);
  });

  it('can change and delete keys within its own permissions', async () => {
    const weak = await keyWith(['ArthrServer:updateTenantApiKey', 'ArthrServer:deleteFromTenant', 'ArthrServer:getFromTenant']);
    const token = await issueToken(weak.secret);
    const peer = await keyWith(['ArthrServer:getFromTenant']);
    expect((await call('POST', `/api/arthr/apiKeys/${peer.id}`, { token, body: { status: 'BLOCKED' } })).status).toBe(200);
    expect((await call('DELETE', `/api/arthr/apiKeys/${peer.id}`, { token })).status).toBe(204);
  });
});

describe('a SESSION key', () => {
  it('cannot make or extend a key beyond its own expiry', async () => {
    const expiry = new Date(Date.now() + 3_600_000).toISOString();
    const session = await keyWith(['ArthrServer:createTenantApiKey', 'ArthrServer:updateTenantApiKey'], { type: 'SESSION', expiringDtm: expiry });
    const token = await issueToken(session.secret);
    const forever = await call('POST', '/api/arthr/apiKeys', { token, body: { name: 'successor', permissions: [] } });
    expect(forever.status).toBe(400);
    expect(forever.json.details[0].location).toBe('body.expiringDtm');
    const later = await call('POST', '/api/arthr/apiKeys', { token, body: { name: 'later', expiringDtm: new Date(Date.now() + 7_200_000).toISOString() } });
    expect(later.status).toBe(400);
    const within = await call('POST', '/api/arthr/apiKeys', { token, body: { name: 'within', expiringDtm: new Date(Date.now() + 1_800_000).toISOString() } });
    expect(within.status, within.text).toBe(201);
    const extend = await call('POST', `/api/arthr/apiKeys/${within.json.id}`, { token, body: { expiringDtm: null } });
    expect(extend.status).toBe(400);
  });
});

describe('a blocked or deleted key', () => {
  it('stops its tokens managing keys at once', async () => {
    const manager = await keyWith(['ArthrServer:createTenantApiKey', 'ArthrServer:getFromTenant']);
    const token = await issueToken(manager.secret);
    expect((await call('POST', '/api/arthr/apiKeys', { token, body: { name: 'before' } })).status).toBe(201);
    expect((await call('POST', `/api/arthr/apiKeys/${manager.id}`, { token: admin, body: { status: 'BLOCKED' } })).status).toBe(200);
    const after = await call('POST', '/api/arthr/apiKeys', { token, body: { name: 'after' } });
    expect(after.status).toBe(401);
    expect(after.json.code).toBe('API_KEY_BLOCKED');
    expect((await call('POST', `/api/arthr/apiKeys/${manager.id}`, { token: admin, body: { status: 'ACTIVE' } })).status).toBe(200);
    expect((await call('POST', '/api/arthr/apiKeys', { token, body: { name: 'again' } })).status).toBe(201);
    expect((await call('DELETE', `/api/arthr/apiKeys/${manager.id}`, { token: admin })).status).toBe(204);
    const gone = await call('POST', '/api/arthr/apiKeys', { token, body: { name: 'gone' } });
    expect(gone.status).toBe(401);
    expect(gone.json.code).toBe('INVALID_TOKEN');
  });

  it('stops its tokens reading and listing the tenant\'s keys at once, as changes', async () => {
    const reader = await keyWith(['ArthrServer:listTenantApiKeys', 'ArthrServer:getFromTenant']);
    const other = await keyWith(['ArthrServer:getFromTenant']);
    const token = await issueToken(reader.secret);
    const reads = () => [
      call('GET', '/api/arthr/apiKeys?size=5', { token }),
      call('GET', `/api/arthr/apiKeys/${other.id}`, { token }),
      call('GET', `/api/arthr/apiKeys/${reader.id}`, { token }),
    ];
    for (const r of await Promise.all(reads())) expect(r.status, r.text).toBe(200);
    for (const [status, code] of [['BLOCKED', 'API_KEY_BLOCKED'], ['ARCHIVED', 'API_KEY_ARCHIVED']]) {
      expect((await call('POST', `/api/arthr/apiKeys/${reader.id}`, { token: admin, body: { status } })).status).toBe(200);
      for (const r of await Promise.all(reads())) {
        expect(r.status, r.text).toBe(401);
        expect(r.json.code).toBe(code);
        expect(r.text).not.toContain(other.id);
      }
      if (status === 'BLOCKED') expect((await call('POST', `/api/arthr/apiKeys/${reader.id}`, { token: admin, body: { status: 'ACTIVE' } })).status).toBe(200);
    }
    expect((await call('DELETE', `/api/arthr/apiKeys/${reader.id}`, { token: admin })).status).toBe(204);
    for (const r of await Promise.all(reads())) expect(r.json.code).toBe('INVALID_TOKEN');
  });
});
