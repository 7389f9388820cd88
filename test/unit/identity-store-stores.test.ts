import { describe, expect, it } from 'vitest';
import {
  DEFAULT_REQUIREMENTS,
  changeStore,
  createStore,
  getStore,
  newStore,
  storeView,
  updatedStore,
  withPasskeyConfig,
  type PasscodePolicy,
  type PasscodeRequirements,
} from '../../functions/identity-store/stores/stores.js';
import type { PasskeyRpConfig } from '../../functions/identity-store/model.js';
import { FakeIdentityStorage } from '../support/identity-store-fake.js';

const now = new Date('2026-03-01T10:00:00.000Z');
const later = new Date('2026-03-01T11:00:00.000Z');
const policy = (r: Partial<PasscodeRequirements>): PasscodePolicy => ({ requirements: { ...DEFAULT_REQUIREMENTS, ...r } });
const store = (tenantId: string, name: string, extra: Partial<Parameters<typeof newStore>[0]> = {}) =>
  newStore({ tenantId, name, actor: 'apikey:admin', now, ...extra });
const rp = (rpId: string, rpName = rpId): PasskeyRpConfig => ({
  rpId,
  rpName,
  allowedOrigins: [`https://${rpId}`],
  registrationPolicies: {},
  authenticationPolicies: {},
});

describe('newStore', () => {
  it('makes a STANDARD store with no policies, version 1, made and last changed by its actor', () => {
    expect(store('acme', 'customers')).toEqual({
      tenantId: 'acme',
      name: 'customers',
      description: '',
      type: 'STANDARD',
      passcodePolicies: {},
      passkeyConfig: {},
      createdDtm: now.toISOString(),
      createdBy: 'apikey:admin',
      lastUpdatedDtm: now.toISOString(),
      lastUpdatedBy: 'apikey:admin',
      version: 1,
    });
    expect(store('acme', 'keys', { type: 'APPKEY', description: 'app keys' })).toMatchObject({ type: 'APPKEY', description: 'app keys' });
  });

  it('rejects when a policy minimumLength is over its maximumLength, and accepts them equal', () => {
    expect(() => store('acme', 's', { passcodePolicies: { pin: policy({ minimumLength: 7, maximumLength: 6 }) } })).toThrow(
      expect.objectContaining({ statusCode: 400, code: 'VALIDATION_FAILED', details: [expect.objectContaining({ location: 'body.passcodePolicies.pin.requirements.minimumLength' })] }),
    );
    expect(store('acme', 's', { passcodePolicies: { pin: policy({ minimumLength: 6, maximumLength: 6 }) } }).passcodePolicies.pin).toBeDefined();
  });

  it('rejects when the character counts add up to more than maximumLength, and accepts them equal to it', () => {
    const counts = { digitCount: 2, symbolCount: 2, lowerCaseCount: 2, upperCaseCount: 2, minimumLength: 1 };
    expect(() => store('acme', 's', { passcodePolicies: { p: policy({ ...counts, maximumLength: 7 }) } })).toThrow(/cannot be used/);
    expect(() => store('acme', 's', { passcodePolicies: { p: policy({ ...counts, maximumLength: 8 }) } })).not.toThrow();
  });

  it('rejects when an expression does not compile with the u flag, naming the list and index', () => {
    const bad = policy({ disallowedRegExes: [{ pattern: 'ok', error: 'e' }, { pattern: '\\p{NoSuchProperty}', error: 'e' }] });
    expect(() => store('acme', 's', { passcodePolicies: { p: bad } })).toThrow(
      expect.objectContaining({ details: [expect.objectContaining({ location: 'body.passcodePolicies.p.requirements.disallowedRegExes.1.pattern' })] }),
    );
    for (const list of ['requiredRegExes', 'allowedRegExes'] as const) {
      expect(() => store('acme', 's', { passcodePolicies: { p: policy({ [list]: [{ pattern: '([a-z]', error: 'e' }] }) } })).toThrow(/cannot be used/);
    }
  });

  it('accepts a backreference expression (the browser runs them, not RE2)', () => {
    expect(() => store('acme', 's', { passcodePolicies: { p: policy({ disallowedRegExes: [{ pattern: '(.)\\1\\1', error: 'repeats' }] }) } })).not.toThrow();
  });
});

describe('createStore', () => {
  it('creates a store that getStore then finds', async () => {
    const fake = new FakeIdentityStorage();
    await createStore(fake.stores, store('acme', 'customers', { description: 'ours' }));
    expect(await getStore(fake.stores, 'acme', 'customers')).toMatchObject({ name: 'customers', description: 'ours', version: 1 });
  });

  it('rejects when the tenant has a store of that name, and leaves the first one as it was', async () => {
    const fake = new FakeIdentityStorage();
    await createStore(fake.stores, store('acme', 'customers', { description: 'first' }));
    await expect(createStore(fake.stores, store('acme', 'customers', { description: 'second' }))).rejects.toMatchObject({ statusCode: 409, code: 'STORE_EXISTS' });
    expect((await getStore(fake.stores, 'acme', 'customers')).description).toBe('first');
  });

  it("creates a store of the same name in another tenant: another store", async () => {
    const fake = new FakeIdentityStorage();
    await createStore(fake.stores, store('acme', 'customers', { description: 'acme' }));
    await createStore(fake.stores, store('globex', 'customers', { description: 'globex' }));
    expect((await getStore(fake.stores, 'acme', 'customers')).description).toBe('acme');
    expect((await getStore(fake.stores, 'globex', 'customers')).description).toBe('globex');
  });
});

describe('getStore', () => {
  it("rejects when the store is another tenant's", async () => {
    const fake = new FakeIdentityStorage();
    await createStore(fake.stores, store('acme', 'customers'));
    await expect(getStore(fake.stores, 'globex', 'customers')).rejects.toMatchObject({ statusCode: 404, code: 'STORE_NOT_FOUND' });
    await expect(getStore(fake.stores, 'acme', 'nobody')).rejects.toMatchObject({ statusCode: 404, code: 'STORE_NOT_FOUND' });
  });
});

describe('updatedStore', () => {
  it('changes only what is given, a policy map replacing the whole map, and moves the version on', () => {
    const current = store('acme', 's', { description: 'before', passcodePolicies: { a: policy({}), b: policy({}) } });
    const described = updatedStore(current, { description: 'after' }, 'apikey:editor', later);
    expect(described).toMatchObject({ description: 'after', passcodePolicies: current.passcodePolicies, version: 2, lastUpdatedBy: 'apikey:editor', lastUpdatedDtm: later.toISOString(), createdBy: 'apikey:admin' });
    const replaced = updatedStore(current, { passcodePolicies: { c: policy({ minimumLength: 12 }) } }, 'apikey:editor', later);
    expect(Object.keys(replaced.passcodePolicies)).toEqual(['c']);
    expect(replaced.description).toBe('before');
  });

  it('rejects when a new policy cannot be met', () => {
    const current = store('acme', 's');
    expect(() => updatedStore(current, { passcodePolicies: { p: policy({ minimumLength: 10, maximumLength: 9 }) } }, 'apikey:x', later)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
  });
});

describe('withPasskeyConfig', () => {
  it("adds a relying party's configuration, keeps the others, and replaces the one of the same rpId", () => {
    const one = withPasskeyConfig(store('acme', 's'), rp('bank.example', 'Bank'), 'apikey:x', later);
    const two = withPasskeyConfig(one, rp('shop.example'), 'apikey:x', later);
    const renamed = withPasskeyConfig(two, rp('bank.example', 'Bank, renamed'), 'apikey:x', later);
    expect(Object.keys(renamed.passkeyConfig).sort()).toEqual(['bank.example', 'shop.example']);
    expect(renamed.passkeyConfig['bank.example']?.rpName).toBe('Bank, renamed');
    expect(renamed.version).toBe(4);
    expect(storeView(renamed).passkeyConfig).toEqual(renamed.passkeyConfig);
  });
});

describe('changeStore', () => {
  it('writes the change over the version read', async () => {
    const fake = new FakeIdentityStorage();
    await createStore(fake.stores, store('acme', 's'));
    await changeStore(fake.stores, 'acme', 's', (c) => updatedStore(c, { description: 'one' }, 'apikey:x', later));
    const next = await changeStore(fake.stores, 'acme', 's', (c) => withPasskeyConfig(c, rp('bank.example'), 'apikey:x', later));
    expect(next.version).toBe(3);
    expect(await getStore(fake.stores, 'acme', 's')).toMatchObject({ description: 'one', version: 3, passkeyConfig: { 'bank.example': rp('bank.example') } });
  });

  it('rejects when the store changed after it was read, and keeps the other change', async () => {
    const fake = new FakeIdentityStorage();
    await createStore(fake.stores, store('acme', 's'));
    const racing = changeStore(fake.stores, 'acme', 's', (c) => {
      // Another writer gets in between this read and this write.
      void fake.stores.replace(updatedStore(c, { description: 'theirs' }, 'apikey:them', later), c.version);
      return updatedStore(c, { description: 'mine' }, 'apikey:me', later);
    });
    await expect(racing).rejects.toMatchObject({ statusCode: 409, code: 'CONCURRENT_UPDATE' });
    expect((await getStore(fake.stores, 'acme', 's')).description).toBe('theirs');
  });

  it('rejects when the store does not exist in the tenant', async () => {
    const fake = new FakeIdentityStorage();
    await createStore(fake.stores, store('acme', 's'));
    await expect(changeStore(fake.stores, 'globex', 's', (c) => c)).rejects.toMatchObject({ statusCode: 404, code: 'STORE_NOT_FOUND' });
  });
});
