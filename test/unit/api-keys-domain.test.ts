import { describe, expect, it } from 'vitest';
import { PERMISSIONS, type PermissionName } from '../../functions/auth/permissions.js';
import {
  applyUpdate,
  generateSecret,
  hashSecret,
  issueRefusal,
  listPage,
  newApiKey,
  parseSecret,
  tokenTtl,
  type Actor,
} from '../../functions/api-keys/domain.js';

const now = new Date('2026-01-01T00:00:00.000Z');
const admin: Actor = { tenantId: 'acme', id: 'apikey:admin', permissions: new Set(PERMISSIONS) };

describe('generateSecret / parseSecret', () => {
  it('round-trips the key id and rejects anything else', () => {
    const id = '3d2e9b37-7b26-474b-ae66-c1f73766797f';
    const secret = generateSecret(id);
    expect(parseSecret(secret)).toEqual({ id, hash: hashSecret(secret) });
    expect(generateSecret(id)).not.toBe(secret);
    for (const bad of ['', 'ak_', `${secret}x`, secret.slice(1), secret.replace('ak_', 'AK_')]) {
      expect(parseSecret(bad)).toBeUndefined();
    }
  });
});

describe('newApiKey', () => {
  it('stores only a hash of the secret and fills the defaults', () => {
    const { record, secret } = newApiKey({ name: 'k' }, admin, now);
    expect(record.secretHash).toBe(hashSecret(secret));
    expect(JSON.stringify(record)).not.toContain(secret);
    expect(record).toMatchObject({ type: 'PERMANENT', status: 'ACTIVE', description: '', permissions: [], version: 1, createdBy: 'apikey:admin' });
  });

  it('rejects when a permission is of another tenant or unknown', () => {
    expect(() => newApiKey({ name: 'k', permissions: ['TNT#other#ArthrServer:getFromTenant'] }, admin, now)).toThrow(/not valid/);
    expect(() => newApiKey({ name: 'k', permissions: ['TNT#acme#Nope:nothing'] }, admin, now)).toThrow(/not valid/);
  });

  it('rejects when the actor would grant a permission it lacks', () => {
    const limited: Actor = { ...admin, permissions: new Set<PermissionName>(['ArthrServer:createTenantApiKey']) };
    expect(() => newApiKey({ name: 'k', permissions: ['TNT#acme#ArthrServer:deleteFromTenant'] }, limited, now)).toThrow(
      expect.objectContaining({ code: 'PERMISSION_ESCALATION', statusCode: 403 }),
    );
  });

  it('rejects a SESSION key without expiry and an expiry not in the future', () => {
    expect(() => newApiKey({ name: 'k', type: 'SESSION' }, admin, now)).toThrow(/not valid/);
    expect(() => newApiKey({ name: 'k', expiringDtm: now.toISOString() }, admin, now)).toThrow(/not valid/);
    const ok = newApiKey({ name: 'k', type: 'SESSION', expiringDtm: '2026-01-02T01:00:00+01:00' }, admin, now);
    expect(ok.record.expiringDtm).toBe('2026-01-02T00:00:00.000Z');
  });
});

describe('applyUpdate', () => {
  it('keeps absent fields, bumps the version and refuses changes to an archived key', () => {
    const { record } = newApiKey({ name: 'k', description: 'd' }, admin, now);
    const later = new Date(now.getTime() + 1000);
    const next = applyUpdate(record, { status: 'BLOCKED' }, admin, later);
    expect(next).toMatchObject({ name: 'k', description: 'd', status: 'BLOCKED', version: 2, lastUpdatedDtm: later.toISOString() });
    const archived = applyUpdate(next, { status: 'ARCHIVED' }, admin, later);
    expect(() => applyUpdate(archived, { description: 'x' }, admin, later)).toThrow(expect.objectContaining({ code: 'INVALID_STATUS_TRANSITION' }));
  });

  it('lets an expiry that has passed stay when other fields change', () => {
    const { record } = newApiKey({ name: 'k', type: 'SESSION', expiringDtm: '2026-01-01T00:00:01Z' }, admin, now);
    const later = new Date('2027-01-01T00:00:00Z');
    expect(applyUpdate(record, { name: 'renamed' }, admin, later).expiringDtm).toBe(record.expiringDtm);
  });
});

describe('issueRefusal', () => {
  const { record, secret } = newApiKey({ name: 'k' }, admin, now);
  const hash = hashSecret(secret);
  it('says nothing about the key to a caller without its secret', () => {
    expect(issueRefusal(undefined, hash, now, 'issueToken')).toMatchObject({ code: 'INVALID_API_KEY' });
    expect(issueRefusal({ ...record, status: 'BLOCKED' }, hashSecret('other'), now, 'issueToken')).toMatchObject({ code: 'INVALID_API_KEY' });
  });
  it('names the reason to a caller with the secret', () => {
    expect(issueRefusal({ ...record, status: 'BLOCKED' }, hash, now, 'issueToken')).toMatchObject({ code: 'API_KEY_BLOCKED' });
    expect(issueRefusal({ ...record, status: 'ARCHIVED' }, hash, now, 'issueToken')).toMatchObject({ code: 'API_KEY_ARCHIVED' });
    expect(issueRefusal({ ...record, expiringDtm: now.toISOString() }, hash, now, 'issueToken')).toMatchObject({ code: 'API_KEY_EXPIRED' });
  });
});

describe('tokenTtl', () => {
  const { record } = newApiKey({ name: 'k' }, admin, now);
  it('never outlives the key', () => {
    expect(tokenTtl(record, 3600, now)).toBe(3600);
    expect(tokenTtl({ ...record, expiringDtm: new Date(now.getTime() + 90_000).toISOString() }, 3600, now)).toBe(90);
    expect(tokenTtl({ ...record, expiringDtm: new Date(now.getTime() + 10_000_000).toISOString() }, 3600, now)).toBe(3600);
  });
});

describe('listPage', () => {
  const records = ['b', 'a', 'c'].map((name, i) => newApiKey({ name }, admin, new Date(now.getTime() + i)).record);
  it('keeps creation order when unsorted and sorts when asked', () => {
    expect(listPage(records, { name: '%', page: 0, size: 10, sort: [] }).content.map((k) => k.name)).toEqual(['b', 'a', 'c']);
    expect(listPage(records, { name: '%', page: 0, size: 10, sort: ['name'] }).content.map((k) => k.name)).toEqual(['a', 'b', 'c']);
  });
  it('never returns the hash or the lock counter', () => {
    const item = listPage(records, { name: '%', page: 0, size: 1, sort: [] }).content[0]!;
    expect(Object.keys(item)).not.toContain('secretHash');
    expect(Object.keys(item)).not.toContain('version');
    expect(Object.keys(item)).not.toContain('tenantId');
  });
  it('rejects an unknown sort property', () => {
    expect(() => listPage(records, { name: '%', page: 0, size: 10, sort: ['secretHash'] })).toThrow(/sort/i);
  });
});
