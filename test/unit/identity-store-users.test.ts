import { describe, expect, it } from 'vitest';
import { createStore, newStore } from '../../functions/identity-store/stores/stores.js';
import { addUser, findUser, userRefFrom, userView } from '../../functions/identity-store/users/users.js';
import { ID26_PATTERN } from '../../functions/shared/ids.js';
import { FakeIdentityStorage } from '../support/identity-store-fake.js';

const now = new Date('2026-03-01T10:00:00.000Z');

async function withStores(...at: [tenantId: string, storeName: string][]) {
  const fake = new FakeIdentityStorage();
  for (const [tenantId, name] of at) await createStore(fake.stores, newStore({ tenantId, name, actor: 'apikey:admin', now }));
  return fake;
}

const add = (fake: FakeIdentityStorage, tenantId: string, storeName: string, externalId: string) =>
  addUser(fake.all, { tenantId, storeName, externalId, actor: 'apikey:k1', now });

describe('addUser', () => {
  it('adds an ACTIVE user with a 26-character id of its own and no passcodes', async () => {
    const fake = await withStores(['acme', 'customers']);
    const user = await add(fake, 'acme', 'customers', 'cust-42');
    expect(user.id).toMatch(ID26_PATTERN);
    expect(user).toMatchObject({ tenantId: 'acme', storeName: 'customers', externalId: 'cust-42', status: 'ACTIVE', passcodes: {}, createdBy: 'apikey:k1', createdDtm: now.toISOString() });
    expect((await add(fake, 'acme', 'customers', 'cust-43')).id).not.toBe(user.id);
  });

  it('records USER_ADDED with the user, its external id and the actor', async () => {
    const fake = await withStores(['acme', 'customers']);
    const user = await addUser(fake.all, { tenantId: 'acme', storeName: 'customers', externalId: 'cust-42', actor: 'journey:pi-7', now });
    expect(fake.events).toEqual([
      { eventId: expect.stringMatching(ID26_PATTERN), tenantId: 'acme', type: 'USER_ADDED', storeName: 'customers', userId: user.id, externalId: 'cust-42', actor: 'journey:pi-7', at: now.toISOString(), details: {} },
    ]);
  });

  it('rejects when another user of the store has the external id, and records nothing', async () => {
    const fake = await withStores(['acme', 'customers']);
    const first = await add(fake, 'acme', 'customers', 'cust-42');
    await expect(add(fake, 'acme', 'customers', 'cust-42')).rejects.toMatchObject({ statusCode: 409, code: 'EXTERNAL_ID_NOT_UNIQUE' });
    expect(fake.eventsOf('USER_ADDED')).toHaveLength(1);
    expect((await findUser(fake.all, 'acme', 'customers', { externalId: 'cust-42' })).user.id).toBe(first.id);
  });

  it('rejects when the store does not exist, or is of another tenant', async () => {
    const fake = await withStores(['acme', 'customers']);
    await expect(add(fake, 'acme', 'nobody', 'cust-42')).rejects.toMatchObject({ statusCode: 404, code: 'STORE_NOT_FOUND' });
    await expect(add(fake, 'globex', 'customers', 'cust-42')).rejects.toMatchObject({ statusCode: 404, code: 'STORE_NOT_FOUND' });
    expect(fake.events).toEqual([]);
  });

  it('adds the same external id in another store, and in a store of the same name in another tenant', async () => {
    const fake = await withStores(['acme', 'customers'], ['acme', 'staff'], ['globex', 'customers']);
    const a = await add(fake, 'acme', 'customers', 'cust-42');
    const b = await add(fake, 'acme', 'staff', 'cust-42');
    const c = await add(fake, 'globex', 'customers', 'cust-42');
    expect(new Set([a.id, b.id, c.id]).size).toBe(3);
  });
});

describe('findUser', () => {
  it('finds a user by id and by external id, with its store', async () => {
    const fake = await withStores(['acme', 'customers']);
    const user = await add(fake, 'acme', 'customers', 'cust-42');
    const byId = await findUser(fake.all, 'acme', 'customers', { userId: user.id });
    const byExt = await findUser(fake.all, 'acme', 'customers', { externalId: 'cust-42' });
    expect(byId.user).toEqual(user);
    expect(byExt.user).toEqual(user);
    expect(byId.store.name).toBe('customers');
  });

  it('rejects when no user has the id or external id', async () => {
    const fake = await withStores(['acme', 'customers']);
    await add(fake, 'acme', 'customers', 'cust-42');
    await expect(findUser(fake.all, 'acme', 'customers', { userId: '0123456789ABCDEFGHJKMNPQRS' })).rejects.toMatchObject({ statusCode: 404, code: 'USER_NOT_FOUND' });
    await expect(findUser(fake.all, 'acme', 'customers', { externalId: 'cust-43' })).rejects.toMatchObject({ statusCode: 404, code: 'USER_NOT_FOUND' });
  });

  it("rejects when the user is of another store, or of another tenant's store of the same name", async () => {
    const fake = await withStores(['acme', 'customers'], ['acme', 'staff'], ['globex', 'customers']);
    const user = await add(fake, 'acme', 'customers', 'cust-42');
    for (const ref of [{ userId: user.id }, { externalId: 'cust-42' }]) {
      await expect(findUser(fake.all, 'acme', 'staff', ref)).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
      await expect(findUser(fake.all, 'globex', 'customers', ref)).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    }
  });

  it("finds each tenant's own user when both have the same store name and external id", async () => {
    const fake = await withStores(['acme', 'customers'], ['globex', 'customers']);
    const acme = await add(fake, 'acme', 'customers', 'cust-42');
    const globex = await add(fake, 'globex', 'customers', 'cust-42');
    expect((await findUser(fake.all, 'acme', 'customers', { externalId: 'cust-42' })).user.id).toBe(acme.id);
    expect((await findUser(fake.all, 'globex', 'customers', { externalId: 'cust-42' })).user.id).toBe(globex.id);
    await expect(findUser(fake.all, 'globex', 'customers', { userId: acme.id })).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
  });

  it('rejects when the store does not exist, before looking for the user', async () => {
    const fake = await withStores(['acme', 'customers']);
    const user = await add(fake, 'acme', 'customers', 'cust-42');
    await expect(findUser(fake.all, 'acme', 'gone', { userId: user.id })).rejects.toMatchObject({ code: 'STORE_NOT_FOUND' });
  });
});

describe('userView', () => {
  it('shows the user and its passcodes by policy name, without tenant or creator', () => {
    const view = userView({
      tenantId: 'acme',
      storeName: 'customers',
      id: 'U1',
      externalId: 'cust-42',
      status: 'ACTIVE',
      passcodes: { zeta: { registeredDtm: '2026-01-02T00:00:00.000Z' }, alpha: { registeredDtm: '2026-01-01T00:00:00.000Z' } },
      createdDtm: '2026-01-01T00:00:00.000Z',
      createdBy: 'apikey:k1',
      lastUpdatedDtm: '2026-01-02T00:00:00.000Z',
    });
    expect(view).toEqual({
      id: 'U1',
      externalId: 'cust-42',
      storeName: 'customers',
      status: 'ACTIVE',
      passcodes: [
        { policyName: 'alpha', registeredDtm: '2026-01-01T00:00:00.000Z' },
        { policyName: 'zeta', registeredDtm: '2026-01-02T00:00:00.000Z' },
      ],
      createdDtm: '2026-01-01T00:00:00.000Z',
      lastUpdatedDtm: '2026-01-02T00:00:00.000Z',
    });
  });
});

describe('userRefFrom', () => {
  it('names the user kept under User Key first, then User ID, then User External ID', () => {
    const vars = { kept: { id: 'KEPT' } };
    expect(userRefFrom({ 'User Key': 'kept', 'User ID': 'ID', 'User External ID': 'EXT' }, vars)).toEqual({ userId: 'ID' });
    expect(userRefFrom({ 'User Key': 'kept', 'User External ID': 'EXT' }, vars)).toEqual({ userId: 'KEPT' });
    expect(userRefFrom({ 'User Key': 'missing', 'User External ID': 'EXT' }, vars)).toEqual({ externalId: 'EXT' });
    expect(userRefFrom({ 'User ID': '', 'User External ID': '' }, vars)).toBeUndefined();
  });

  it('does not read a User Key from the prototype of the journey data', () => {
    expect(userRefFrom({ 'User Key': '__proto__' }, {})).toBeUndefined();
    expect(userRefFrom({ 'User Key': 'constructor' }, {})).toBeUndefined();
  });
});
