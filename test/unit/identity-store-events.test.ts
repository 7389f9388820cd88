import { describe, expect, it } from 'vitest';
import { EVENT_QUERY_TTL_SECONDS, eventQueryPage, newEvent, newEventQuery } from '../../functions/identity-store/events/events.js';
import { createStore, newStore } from '../../functions/identity-store/stores/stores.js';
import { addUser } from '../../functions/identity-store/users/users.js';
import { FakeIdentityStorage } from '../support/identity-store-fake.js';

const t0 = new Date('2026-03-01T10:00:00.000Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

/** Three users added a minute apart in acme's `customers`, one in `staff`, one in globex's `customers`. */
async function setup() {
  const fake = new FakeIdentityStorage();
  for (const [tenantId, name] of [['acme', 'customers'], ['acme', 'staff'], ['globex', 'customers']] as const) {
    await createStore(fake.stores, newStore({ tenantId, name, actor: 'apikey:admin', now: t0 }));
  }
  for (const [i, ext] of ['c1', 'c2', 'c3'].entries()) await addUser(fake.all, { tenantId: 'acme', storeName: 'customers', externalId: ext, actor: 'apikey:k1', now: at(60 * i) });
  await addUser(fake.all, { tenantId: 'acme', storeName: 'staff', externalId: 's1', actor: 'apikey:k1', now: at(30) });
  await addUser(fake.all, { tenantId: 'globex', storeName: 'customers', externalId: 'g1', actor: 'apikey:k1', now: at(30) });
  return fake;
}

async function query(fake: FakeIdentityStorage, tenantId: string, filters: Parameters<typeof newEventQuery>[1], size: number) {
  const q = newEventQuery(tenantId, filters, size, t0);
  await fake.eventStore.saveQuery(q);
  return q.executionId;
}

describe('newEvent', () => {
  it('stamps an event with a fresh id and the time of the change', () => {
    const a = newEvent({ tenantId: 'acme', type: 'USER_ADDED', storeName: 's', actor: 'apikey:k1', details: {}, now: t0 });
    const b = newEvent({ tenantId: 'acme', type: 'USER_ADDED', storeName: 's', actor: 'apikey:k1', details: {}, now: t0 });
    expect(a.at).toBe(t0.toISOString());
    expect(a.eventId).not.toBe(b.eventId);
  });
});

describe('newEventQuery', () => {
  it('rejects when from is after to, and accepts them equal', () => {
    expect(() => newEventQuery('acme', { from: '2026-03-02T00:00:00.000Z', to: '2026-03-01T00:00:00.000Z' }, 100, t0)).toThrow(
      expect.objectContaining({ statusCode: 400, code: 'VALIDATION_FAILED' }),
    );
    expect(newEventQuery('acme', { from: t0.toISOString(), to: t0.toISOString() }, 100, t0).expiresAt).toBe(t0.getTime() / 1000 + EVENT_QUERY_TTL_SECONDS);
  });
});

describe('eventQueryPage', () => {
  it("pages through the tenant's events oldest first, filtered by store", async () => {
    const fake = await setup();
    const executionId = await query(fake, 'acme', { storeName: 'customers' }, 2);
    const first = await eventQueryPage(fake.eventStore, { tenantId: 'acme', executionId, now: t0 });
    expect(first.events.map((e) => e.externalId)).toEqual(['c1', 'c2']);
    expect(first.events[0]).toEqual({ eventId: expect.any(String), type: 'USER_ADDED', storeName: 'customers', userId: expect.any(String), externalId: 'c1', at: t0.toISOString(), actor: 'apikey:k1', details: {} });
    const second = await eventQueryPage(fake.eventStore, { tenantId: 'acme', executionId, nextToken: first.nextToken, now: t0 });
    expect(second.events.map((e) => e.externalId)).toEqual(['c3']);
    expect(second.nextToken).toBeUndefined();
  });

  it("does not show another tenant's events", async () => {
    const fake = await setup();
    const executionId = await query(fake, 'globex', {}, 100);
    expect((await eventQueryPage(fake.eventStore, { tenantId: 'globex', executionId, now: t0 })).events.map((e) => e.externalId)).toEqual(['g1']);
    await expect(eventQueryPage(fake.eventStore, { tenantId: 'acme', executionId, now: t0 })).rejects.toMatchObject({ statusCode: 404, code: 'EVENT_QUERY_NOT_FOUND' });
  });

  it('rejects when the query is over (an hour), or the page token is not one it handed out', async () => {
    const fake = await setup();
    const executionId = await query(fake, 'acme', {}, 1);
    await expect(eventQueryPage(fake.eventStore, { tenantId: 'acme', executionId, now: at(EVENT_QUERY_TTL_SECONDS) })).rejects.toMatchObject({ code: 'EVENT_QUERY_NOT_FOUND' });
    await expect(eventQueryPage(fake.eventStore, { tenantId: 'acme', executionId, nextToken: 'bm90IGEgdG9rZW4', now: t0 })).rejects.toMatchObject({
      statusCode: 400,
      code: 'VALIDATION_FAILED',
    });
  });
});
