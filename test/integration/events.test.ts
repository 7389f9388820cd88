import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminToken, call, issueToken, relayedEvents, until } from './client.js';
import type { EventEnvelope } from '../../functions/shared/events.js';
import type { EventBus } from '../../functions/events/bus.js';

/**
 * Events out through the outbox: each change is written with its event, and the table stream's
 * relay (a poller of DynamoDB Local's stream in the local runtime, as the event source mapping on
 * AWS) puts them on the bus, which the local runtime logs as `event` records.
 */
let token: string;
let other: string;
beforeAll(async () => {
  token = await adminToken();
  other = await issueToken(inject('otherKey'), 'other');
});

const relayed = relayedEvents;

/** A new instance of the identity-check example, opened by its end user (PENDING, then ACTIVE). */
async function openedInstance(): Promise<string> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: { name: `events-${Math.random().toString(36).slice(2)}`, processDefnName: 'identity-check', processDefnVersion: 1, parameters: { firstName: 'Ann', email: 'ann@example.com' } },
  });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status, created.text).toBe(201);
  const link = new URL(created.json.redirectUrl);
  const page = await call('GET', `${link.pathname}${link.search}`);
  expect(page.status).toBe(200);
  return created.json.processInstanceId;
}

const about = (events: EventEnvelope[], id: string) => events.filter((e) => e.subject.id === id);

describe('the outbox relay of the local runtime', () => {
  it('relays each change of an instance once, in the order made, with ids and statuses only', async () => {
    const id = await openedInstance();
    const mine = await until('the instance to be ACTIVE on the bus', () => {
      const found = about(relayed(), id);
      // And the step change: two functions write the two at about the same time, in either order.
      const active = found.some((e) => e.type === 'process-instance.status-changed' && e.data.status === 'ACTIVE');
      return active && found.some((e) => e.type === 'process-instance.step-changed') ? found : undefined;
    });
    expect(mine[0]).toMatchObject({
      type: 'process-instance.created',
      tenantId: 'demo',
      subject: { type: 'process-instance', id },
      data: { processInstanceId: id, processDefnName: 'identity-check', processDefnVersion: 1, status: 'PENDING' },
    });
    // The journey waits at its first step; the end user's opening made it ACTIVE.
    expect(mine.map((e) => e.type)).toEqual(expect.arrayContaining(['process-instance.step-changed', 'process-instance.status-changed']));
    expect(mine.find((e) => e.type === 'process-instance.step-changed')!.data).toMatchObject({ activityId: 'personalDetails' });
    // Each once, in the order written (the stream's): the creation first. (The step and the
    // status change are written by two functions at about the same time: either may be first.)
    expect(new Set(mine.map((e) => e.id)).size).toBe(mine.length);
    // Not the token's parameters (the end user's name and e-mail).
    expect(JSON.stringify(mine)).not.toMatch(/Ann|ann@example\.com/);
  });

  it("relays the identity store's events, and keeps each tenant's events its own", async () => {
    const store = `events-${Math.random().toString(36).slice(2, 8)}`;
    expect((await call('POST', '/api/identity-store/stores', { token, body: { name: store } })).status).toBe(201);
    const user = await call('POST', `/api/identity-store/stores/${store}/users`, { token, body: { externalId: 'ext-events' } });
    expect(user.status, user.text).toBe(201);
    const added = await until('the user-added event', () => relayed().find((e) => e.type === 'identity-store.user-added' && e.subject.id === user.json.id));
    expect(added).toMatchObject({ tenantId: 'demo', data: { storeName: store, userId: user.json.id, externalId: 'ext-events' } });

    // The same store name in another tenant: its event is that tenant's, and only that tenant's.
    expect((await call('POST', '/api/identity-store/stores', { token: other, tenant: 'other', body: { name: store } })).status).toBe(201);
    const theirs = await call('POST', `/api/identity-store/stores/${store}/users`, { token: other, tenant: 'other', body: { externalId: 'ext-events' } });
    expect(theirs.status, theirs.text).toBe(201);
    const created = await until('the other tenant\u2019s event', () => relayed().find((e) => e.type === 'identity-store.user-added' && e.subject.id === theirs.json.id));
    expect(created.tenantId).toBe('other');
    expect(relayed().filter((e) => e.subject.id === theirs.json.id && e.tenantId !== 'other')).toEqual([]);
    expect(relayed().filter((e) => e.subject.id === user.json.id && e.tenantId !== 'demo')).toEqual([]);
  });
});

describe('the outbox relay (the same code on the runtime\u2019s table stream, with a bus that fails)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'arthr-relay-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loses no event when the publish fails after the change, and a restarted relay resumes where it stopped', async () => {
    const runtime = JSON.parse(readFileSync(join(inject('localDir'), 'runtime.json'), 'utf8')) as { dynamodbEndpoint: string; tableName: string };
    // This process reads the runtime's table as the relay function reads it on AWS.
    Object.assign(process.env, { TABLE_NAME: runtime.tableName, DYNAMODB_ENDPOINT: runtime.dynamodbEndpoint });
    const { localClient } = await import('../../lib/local/dynamodb.js');
    const { startStreamPoller } = await import('../../lib/local/stream-poller.js');
    const { relayRecords } = await import('../../functions/events/relay.js');
    const { outboxStore } = await import('../../functions/store/outbox.js');

    // A bus that is down for its first two requests (nothing taken), then takes every event.
    let refusals = 2;
    const got: EventEnvelope[] = [];
    const bus: EventBus = {
      async put(events) {
        if (refusals-- > 0) throw Object.assign(new Error('Service unavailable'), { name: 'InternalException' });
        got.push(...events);
        return undefined;
      },
    };
    const client = localClient(runtime.dynamodbEndpoint);
    const checkpointFile = join(dir, 'checkpoint.json');
    const relay = () =>
      startStreamPoller({
        client,
        endpoint: runtime.dynamodbEndpoint,
        tableName: runtime.tableName,
        checkpointFile,
        // From now on: this relay starts after the suite's earlier changes.
        startingPosition: 'LATEST',
        idleMs: 50,
        handle: (records) => relayRecords({ outbox: outboxStore, bus: async () => bus }, records),
      });
    try {
      let poller = relay();
      await poller.drained();
      const first = await openedInstance();
      const firstEvents = await until('the first instance\u2019s events', () => {
        const found = about(got, first);
        return found.some((e) => e.type === 'process-instance.status-changed') ? found : undefined;
      });
      // The bus failed twice, and still every event of the change came through, once each, in order,
      // and they are the very events the runtime's own relay put on its bus.
      expect(refusals).toBeLessThan(0);
      expect(new Set(firstEvents.map((e) => e.id)).size).toBe(firstEvents.length);
      expect(firstEvents[0]!.type).toBe('process-instance.created');
      const runtimes = await until('the runtime\u2019s relay', () => {
        const found = about(relayed(), first);
        return found.length >= firstEvents.length ? found : undefined;
      });
      expect(firstEvents.map((e) => e.id)).toEqual(runtimes.slice(0, firstEvents.length).map((e) => e.id));

      // Stopped; changes are made meanwhile; a new relay from the same checkpoint.
      await poller.stop();
      const before = got.length;
      const second = await openedInstance();
      poller = relay();
      const secondCreated = await until('the second instance\u2019s events', () => about(got, second).find((e) => e.type === 'process-instance.created'));
      expect(secondCreated.data).toMatchObject({ processInstanceId: second });
      await poller.drained();
      await poller.stop();
      // Nothing handled before the restart came again.
      const again = got.slice(before).filter((e) => firstEvents.some((f) => f.id === e.id));
      expect(again).toEqual([]);
    } finally {
      client.destroy();
    }
  });
});
