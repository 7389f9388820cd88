import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import * as z from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../functions/config.js';
import { defineRoute, type AuthKind } from '../../functions/http/route.js';
import { apiHandler } from '../../functions/http/wrapper.js';
import { rateLimitStore } from '../../functions/store/rate-limits.js';
import { leasedRateCounter, withinTokenIssueRate } from '../../functions/auth/rate-limit.js';
import { tenantRates } from '../../functions/auth/deps.js';

const ddb = mockClient(DynamoDBDocumentClient);
const saved = { ...process.env };

beforeAll(() => {
  Object.assign(process.env, {
    TABLE_NAME: 't', SERVICE_REGION: 'fir', SERVICE_DOMAIN: 'example.com', TOKEN_ISSUER: 'https://issuer.example',
    TOKEN_AUDIENCE: 'a', SIGNING_KEY: 'kms:k', LOG_LEVEL: 'SILENT', TENANT_RATE_LIMIT: '3',
  });
  resetConfigForTests();
});
afterAll(() => {
  process.env = saved;
  resetConfigForTests();
});
beforeEach(() => {
  ddb.reset();
  // Each test starts with a container that has leased nothing.
  tenantRates.clear();
});

const conditionFailed = (Item?: Record<string, unknown>) => Object.assign(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }), Item ? { Item } : {});

/** DynamoDB's conditional counter for one window, in memory: ADD :n only while the count stays within the limit. */
function fakeTable() {
  const counts = new Map<string, number>();
  ddb.on(UpdateCommand).callsFake((input: { Key: { PK: string; SK: string }; ExpressionAttributeValues: Record<string, number> }) => {
    const key = `${input.Key.PK}|${input.Key.SK}`;
    const n = counts.get(key);
    if (n !== undefined && !(n <= input.ExpressionAttributeValues[':room']!)) throw conditionFailed({ requests: { N: String(n) } });
    counts.set(key, (n ?? 0) + input.ExpressionAttributeValues[':n']!);
    return {};
  });
  return counts;
}

describe('rateLimitStore.lease', () => {
  it('takes what it asks of the tenant\u2019s window of this second, only while the count stays within the limit, with a TTL', async () => {
    ddb.on(UpdateCommand).resolves({});
    const now = new Date('2026-01-01T00:00:07.900Z');
    expect(await rateLimitStore.lease('acme', now, 5, 2)).toBe(2);
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    const second = Math.floor(now.getTime() / 1000);
    expect(input).toMatchObject({
      Key: { PK: 'TNT#acme#RATE', SK: `S#${second}` },
      UpdateExpression: 'ADD requests :n SET itemType = :type, expiresAt = :ttl',
      ConditionExpression: 'attribute_not_exists(requests) OR requests <= :room',
      ExpressionAttributeValues: { ':n': 2, ':room': 3, ':type': 'RateWindow', ':ttl': second + 120 },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('asks again for what is left when the window has less than it asked, and says 0 when it is spent', async () => {
    const counts = fakeTable();
    const now = new Date('2026-01-01T00:00:07.900Z');
    expect(await rateLimitStore.lease('acme', now, 10, 8)).toBe(8);
    // 2 left: a lease of 5 gets 2, in a second write told by the first how much was taken.
    expect(await rateLimitStore.lease('acme', now, 10, 5)).toBe(2);
    expect(ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input.ExpressionAttributeValues?.[':n'])).toEqual([8, 5, 2]);
    expect(await rateLimitStore.lease('acme', now, 10, 1)).toBe(0);
    expect([...counts.values()]).toEqual([10]);
    // Never more than the limit, whatever is asked.
    expect(await rateLimitStore.lease('other', now, 3, 50)).toBe(3);
  });

  it('passes failures other than a spent window on', async () => {
    ddb.on(UpdateCommand).rejectsOnce(Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' }));
    await expect(rateLimitStore.lease('acme', new Date(), 5, 1)).rejects.toThrow('slow down');
  });
});

/** Containers sharing one table: an exact in-memory window store, counting its writes. */
function sharedStore() {
  const counts = new Map<string, number>();
  const store = {
    writes: 0,
    async lease(tenantId: string, now: Date, limit: number, want: number, window = 'requests') {
      store.writes++;
      await Promise.resolve();
      const key = `${tenantId}|${window}|${Math.floor(now.getTime() / 1000)}`;
      const taken = counts.get(key) ?? 0;
      const granted = Math.max(0, Math.min(want, limit - taken));
      counts.set(key, taken + granted);
      return granted;
    },
  };
  return store;
}

describe('leasedRateCounter', () => {
  const at = (second: number, ms = 0) => new Date(Date.UTC(2026, 0, 1, 0, 0, second, ms));

  it('never lets more than the limit through in a second, whatever the number of containers, and nearly all of it', async () => {
    const store = sharedStore();
    const containers = Array.from({ length: 20 }, () => leasedRateCounter(store));
    // A warm-up second, so the containers lease by what they saw.
    await Promise.all(containers.flatMap((c) => Array.from({ length: 40 }, () => c.take('acme', at(1), 1000))));
    const answers = await Promise.all(containers.flatMap((c) => Array.from({ length: 100 }, () => c.take('acme', at(2), 1000))));
    const passed = answers.filter(Boolean).length;
    expect(passed).toBeLessThanOrEqual(1000);
    // At most one lease of each container (a tenth of the limit) is lost.
    expect(passed).toBeGreaterThanOrEqual(1000 - 20 * 100);
    expect(passed).toBeGreaterThan(0);
  });

  it('costs a write per lease, not per request: one container at a steady rate writes a few times a second', async () => {
    const store = sharedStore();
    const counter = leasedRateCounter(store);
    for (let second = 1; second <= 3; second++) for (let i = 0; i < 1000; i++) expect(await counter.take('acme', at(second, i), 10_000)).toBe(true);
    // First second: leases of 1, 2, 4, ... up to a tenth of the limit; then a quarter of what it saw.
    expect(store.writes).toBeLessThan(40);
    const before = store.writes;
    for (let i = 0; i < 1000; i++) await counter.take('acme', at(4, i), 10_000);
    expect(store.writes - before).toBeLessThanOrEqual(4);
  });

  it('refuses the rest of a spent second without writing again, and starts afresh the next second', async () => {
    const store = sharedStore();
    const counter = leasedRateCounter(store);
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await counter.take('acme', at(5, i), 3));
    expect(answers).toEqual([true, true, true, false, false, false, false, false, false, false]);
    const writes = store.writes;
    for (let i = 0; i < 100; i++) expect(await counter.take('acme', at(5, 500), 3)).toBe(false);
    expect(store.writes).toBe(writes);
    expect(await counter.take('acme', at(6), 3)).toBe(true);
    // Another tenant, and the token issue window, have budgets of their own.
    expect(await counter.take('other', at(5, 900), 3)).toBe(true);
    expect(await counter.take('acme', at(5, 900), 3, 'tokenIssue')).toBe(true);
  });

  it('remembers at most so many tenants, forgetting the least recently used', async () => {
    const store = sharedStore();
    const counter = leasedRateCounter(store, { maxBuckets: 2 });
    await counter.take('a', at(1), 1);
    await counter.take('b', at(1), 1);
    expect(await counter.take('a', at(1), 1)).toBe(false);
    await counter.take('c', at(1), 1);
    // b was forgotten (a was used after it): its spent second is asked again, and the table still refuses.
    const writes = store.writes;
    expect(await counter.take('b', at(1), 1)).toBe(false);
    expect(store.writes).toBe(writes + 1);
  });
});

describe('the tenant rate limit in the wrapper', () => {
  const routeOf = (auth: AuthKind, operationId = `op${auth}`) =>
    defineRoute({
      operationId, method: 'GET', path: `/${operationId}`, handler: 'none', auth, ...(auth === 'bearer' ? { permission: 'ArthrServer:getFromTenant' as const } : {}),
      summary: 's', tag: 't', request: {}, responses: { 200: { description: 'ok', schema: z.object({ ok: z.boolean() }) } }, aws: {},
    });
  const handlerOf = (auth: AuthKind) => apiHandler(routeOf(auth), async () => ({ status: 200, body: { ok: true } }));
  const event = (tenant: string, claims: Record<string, string> | null = { sub: 'k', tid: tenant, scope: 'ArthrServer:getFromTenant' }) =>
    ({
      headers: { host: `${tenant}.fir.example.com` },
      rawQueryString: '',
      isBase64Encoded: false,
      requestContext: { requestId: 'r', domainName: `${tenant}.fir.example.com`, ...(claims ? { authorizer: { jwt: { claims } } } : {}) },
    }) as unknown as APIGatewayProxyEventV2;

  it('answers 429 with Retry-After once a tenant is over its limit this second, while another tenant goes on', async () => {
    fakeTable();
    const handler = handlerOf('bearer');
    const acme = await Promise.all(Array.from({ length: 5 }, () => handler(event('acme'))));
    expect(acme.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 429, 429]);
    const refused = acme.find((r) => r.statusCode === 429)!;
    expect(JSON.parse(refused.body!)).toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    expect(refused.headers!['retry-after'] ?? refused.headers!['Retry-After']).toBe('1');
    expect((await handler(event('other'))).statusCode).toBe(200);
  });

  it('counts only requests whose credentials were verified: a bad token is refused without spending the tenant\u2019s share', async () => {
    const counts = fakeTable();
    const res = await handlerOf('bearer')(event('acme', { sub: 'k', tid: 'other', scope: 'ArthrServer:getFromTenant' }));
    expect(res.statusCode).toBe(401);
    expect(counts.size).toBe(0);
  });

  it('does not count public documents, end users\u2019 journey pages or token issue', async () => {
    fakeTable();
    for (const auth of ['public', 'endUser', 'apiKey'] as const) {
      const handler = handlerOf(auth);
      for (let i = 0; i < 5; i++) await handler({ ...event('acme', null), headers: { host: 'acme.fir.example.com', 'x-api-key': 'ak_x_y' } } as never);
    }
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('lets the request through when the count cannot be made (the limit must not become an outage)', async () => {
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
    expect((await handlerOf('bearer')(event('acme'))).statusCode).toBe(200);
  });

  it('counts nothing when no limit is configured', async () => {
    delete process.env.TENANT_RATE_LIMIT;
    resetConfigForTests();
    try {
      fakeTable();
      const handler = handlerOf('bearer');
      for (let i = 0; i < 5; i++) expect((await handler(event('acme'))).statusCode).toBe(200);
      expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
    } finally {
      process.env.TENANT_RATE_LIMIT = '3';
      resetConfigForTests();
    }
  });
});

describe('withinTokenIssueRate', () => {
  const counter = () => {
    const calls: unknown[][] = [];
    let n = 0;
    return { calls, take: async (...a: unknown[]) => (calls.push(a), ++n <= (a[2] as number)) };
  };

  it('counts token issues in their own window, and says no past the limit', async () => {
    const c = counter();
    const now = new Date('2026-01-01T00:00:00Z');
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await withinTokenIssueRate(c, 'acme', now, 3, () => {}));
    expect(answers).toEqual([true, true, true, false]);
    expect(c.calls[0]).toEqual(['acme', now, 3, 'tokenIssue']);
  });

  it('counts nothing without a limit, and lets the issue through when the count fails', async () => {
    const c = counter();
    expect(await withinTokenIssueRate(c, 'acme', new Date(), undefined, () => {})).toBe(true);
    expect(c.calls).toHaveLength(0);
    const failed: Error[] = [];
    const broken = { take: async () => Promise.reject(Object.assign(new Error('throttled'), { name: 'ThrottlingException' })) };
    expect(await withinTokenIssueRate(broken, 'acme', new Date(), 1, (e) => failed.push(e))).toBe(true);
    expect(failed.map((e) => e.message)).toEqual(['throttled']);
  });

  it('is stored in the tenant’s rate partition apart from its requests (`T#` windows)', async () => {
    ddb.on(UpdateCommand).resolves({});
    const now = new Date('2026-01-01T00:00:07.900Z');
    expect(await rateLimitStore.lease('acme', now, 5, 1, 'tokenIssue')).toBe(1);
    expect(ddb.commandCalls(UpdateCommand)[0]!.args[0].input.Key).toEqual({ PK: 'TNT#acme#RATE', SK: `T#${Math.floor(now.getTime() / 1000)}` });
  });
});
