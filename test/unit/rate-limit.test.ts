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
import { withinTokenIssueRate } from '../../functions/auth/rate-limit.js';

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
beforeEach(() => ddb.reset());

const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

/** DynamoDB's conditional counter for one window, in memory: ADD only while under the limit. */
function fakeTable() {
  const counts = new Map<string, number>();
  ddb.on(UpdateCommand).callsFake((input: { Key: { PK: string; SK: string }; ExpressionAttributeValues: Record<string, number> }) => {
    const key = `${input.Key.PK}|${input.Key.SK}`;
    const n = counts.get(key);
    if (n !== undefined && !(n < input.ExpressionAttributeValues[':limit']!)) throw conditionFailed();
    counts.set(key, (n ?? 0) + 1);
    return {};
  });
  return counts;
}

describe('rateLimitStore.take', () => {
  it('counts the request in the tenant\u2019s window of this second, only while under the limit, with a TTL', async () => {
    ddb.on(UpdateCommand).resolves({});
    const now = new Date('2026-01-01T00:00:07.900Z');
    expect(await rateLimitStore.take('acme', now, 5)).toBe(true);
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    const second = Math.floor(now.getTime() / 1000);
    expect(input).toMatchObject({
      Key: { PK: 'TNT#acme#RATE', SK: `S#${second}` },
      UpdateExpression: 'ADD requests :one SET itemType = :type, expiresAt = :ttl',
      ConditionExpression: 'attribute_not_exists(requests) OR requests < :limit',
      ExpressionAttributeValues: { ':one': 1, ':limit': 5, ':type': 'RateWindow', ':ttl': second + 120 },
    });
  });

  it('says no when the window is full (the condition fails), and passes other failures on', async () => {
    ddb.on(UpdateCommand).rejectsOnce(conditionFailed()).rejectsOnce(Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' }));
    expect(await rateLimitStore.take('acme', new Date(), 5)).toBe(false);
    await expect(rateLimitStore.take('acme', new Date(), 5)).rejects.toThrow('slow down');
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
    expect(await rateLimitStore.take('acme', now, 5, 'tokenIssue')).toBe(true);
    expect(ddb.commandCalls(UpdateCommand)[0]!.args[0].input.Key).toEqual({ PK: 'TNT#acme#RATE', SK: `T#${Math.floor(now.getTime() / 1000)}` });
  });
});
