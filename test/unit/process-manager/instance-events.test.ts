/**
 * An instance's events: the page and its token (instanceEventsPage, with its stores in memory),
 * and the route's handler over a mocked DynamoDB (what it reads, and how it answers).
 */
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../../functions/config.js';
import { eventPosition, newEventId, type InstanceEventEnvelope } from '../../../functions/shared/events.js';
import { instanceEventsPage, type InstanceEventReader } from '../../../functions/process-manager/instances/instance-events.js';
import type { ProcessInstanceRecord } from '../../../functions/process-manager/model.js';
import { outboxItem } from '../../../functions/store/outbox.js';
import { keys } from '../../../functions/store/keys.js';

const NOW = new Date('2026-11-28T06:00:00Z');
const ID = '0f6b2a64-3c1e-4d7a-9b8e-5a2f1c7d9e30';
const OTHER = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

function eventOf(tenantId: string, instanceId: string, n: number): InstanceEventEnvelope {
  const at = new Date(NOW.getTime() - 3_600_000 + n * 1000);
  return { id: newEventId(at), type: 'process-instance.status-changed', tenantId, timestamp: at.toISOString(), subject: { type: 'process-instance', id: instanceId }, data: { n } };
}

function instanceOf(tenantId: string, id: string): ProcessInstanceRecord {
  return {
    tenantId, id, processDefnId: 'd', processDefnName: 'n', processDefnVersion: 1, processTokenId: 't', status: 'ACTIVE',
    createdAt: '2026-11-28T04:00:00.000Z', lastUpdatedAt: '2026-11-28T04:00:00.000Z', retentionDays: 90, expiringDtm: '2027-02-26T04:00:00.000Z',
    expiresAt: Math.floor(Date.parse('2027-02-26T04:00:00.000Z') / 1000), parameters: {}, capabilityHash: 'h', stateMachineArn: 'arn', createdBy: 'apikey:k',
  };
}

/** The stores in memory: two tenants' instances and their events. */
function fakes() {
  const events = [...Array.from({ length: 5 }, (_, n) => eventOf('acme', ID, n)), eventOf('acme', OTHER, 9), eventOf('beta', OTHER, 1)];
  const live = new Set([`acme/${ID}`, `acme/${OTHER}`, `beta/${OTHER}`]);
  const reads: { limit: number; after?: string }[] = [];
  const reader: InstanceEventReader = {
    async instanceEvents(tenantId, instanceId, limit, after) {
      reads.push({ limit, ...(after ? { after } : {}) });
      const all = events.filter((e) => e.tenantId === tenantId && e.subject.id === instanceId && (!after || eventPosition(e) > after));
      return { events: all.slice(0, limit), more: all.length > limit };
    },
  };
  const instances = { getLiveRecord: async (tenantId: string, id: string) => (live.has(`${tenantId}/${id}`) ? instanceOf(tenantId, id) : undefined) };
  return { deps: { instances, events: reader }, events, reads };
}

const page = (o: { size: number; nextToken?: string; list?: string }) => ({ list: 'processInstanceEvents', where: 'query.nextToken', ...o });

describe('instanceEventsPage', () => {
  it("pages an instance's events oldest first, a token while more follow, none on the last page", async () => {
    const { deps, events } = fakes();
    const first = await instanceEventsPage(deps, 'acme', ID, page({ size: 2 }), NOW);
    expect(first.events).toEqual(events.slice(0, 2));
    const second = await instanceEventsPage(deps, 'acme', ID, page({ size: 2, nextToken: first.nextToken! }), NOW);
    expect(second.events).toEqual(events.slice(2, 4));
    const last = await instanceEventsPage(deps, 'acme', ID, page({ size: 2, nextToken: second.nextToken! }), NOW);
    expect(last).toEqual({ events: events.slice(4, 5) });
    expect(await instanceEventsPage(deps, 'acme', ID, page({ size: 5 }), NOW)).toEqual({ events: events.slice(0, 5) });
  });

  it("rejects when the instance is not the tenant's: 404, with no event read", async () => {
    const { deps, reads } = fakes();
    await expect(instanceEventsPage(deps, 'beta', ID, page({ size: 10 }), NOW)).rejects.toMatchObject({ code: 'PROCESS_INSTANCE_NOT_FOUND', statusCode: 404 });
    expect(reads).toEqual([]);
  });

  it("rejects a token of another instance, tenant or list, or one changed by hand: 400 INVALID_CURSOR at query.nextToken", async () => {
    const { deps } = fakes();
    const token = (await instanceEventsPage(deps, 'acme', ID, page({ size: 1 }), NOW)).nextToken!;
    const refused = { code: 'INVALID_CURSOR', statusCode: 400, details: [{ location: 'query.nextToken' }] };
    await expect(instanceEventsPage(deps, 'acme', OTHER, page({ size: 1, nextToken: token }), NOW)).rejects.toMatchObject(refused);
    await expect(instanceEventsPage(deps, 'beta', ID, page({ size: 1, nextToken: token }), NOW)).rejects.toMatchObject(refused);
    await expect(instanceEventsPage(deps, 'acme', ID, page({ size: 1, nextToken: token, list: 'instanceWebhookDeliveries' }), NOW)).rejects.toMatchObject(refused);
    await expect(instanceEventsPage(deps, 'acme', ID, page({ size: 1, nextToken: `${token}x` }), NOW)).rejects.toMatchObject(refused);
    await expect(instanceEventsPage(deps, 'acme', ID, page({ size: 1, nextToken: 'abc' }), NOW)).rejects.toMatchObject(refused);
  });
});

describe('getProcessInstanceEvents (handler)', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  const saved = { ...process.env };
  let handler: (e: APIGatewayProxyEventV2) => Promise<{ statusCode: number; body?: string }>;
  beforeAll(async () => {
    Object.assign(process.env, {
      TABLE_NAME: 't', SERVICE_REGION: 'fir', SERVICE_DOMAIN: 'example.com', TOKEN_ISSUER: 'https://issuer.example',
      TOKEN_AUDIENCE: 'a', SIGNING_KEY: 'kms:k', LOG_LEVEL: 'SILENT',
    });
    resetConfigForTests();
    ({ handler } = (await import('../../../functions/process-manager/instances/get-process-instance-events.js')) as never);
  });
  afterAll(() => {
    process.env = saved;
    resetConfigForTests();
  });
  beforeEach(() => {
    ddb.reset();
    // The tenant's rate limit leases its share.
    ddb.on(UpdateCommand).resolves({});
  });

  const event = (query: string, scope = 'ProcessManager:getProcessInstanceEvents', id = ID) =>
    ({
      version: '2.0',
      routeKey: 'GET /api/process-manager/processInstances/{processInstanceId}/events',
      rawPath: `/api/process-manager/processInstances/${id}/events`,
      rawQueryString: query,
      queryStringParameters: Object.fromEntries(new URLSearchParams(query)),
      pathParameters: { processInstanceId: id },
      headers: { host: 'acme.fir.example.com' },
      isBase64Encoded: false,
      requestContext: { requestId: 'r', domainName: 'acme.fir.example.com', http: { method: 'GET', path: `/api/process-manager/processInstances/${id}/events` }, authorizer: { jwt: { claims: { sub: 'apikey:k', tid: 'acme', scope } } } },
    }) as unknown as APIGatewayProxyEventV2;

  it("reads the tenant's instance, then one Query of the instance's partition of the events index, and answers the envelopes", async () => {
    const events = Array.from({ length: 3 }, (_, n) => eventOf('acme', ID, n));
    ddb.on(GetCommand).resolves({ Item: { ...keys.instance('acme', ID), itemType: 'ProcessInstance', ...instanceOf('acme', ID) } });
    ddb.on(QueryCommand).resolves({ Items: events.map(outboxItem) });
    const res = await handler(event('size=2'));
    expect(res.statusCode).toBe(200);
    const body = JSON.parse(res.body!);
    expect(body.events).toEqual(events.slice(0, 2));
    expect(typeof body.nextToken).toBe('string');
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input.Key).toEqual(keys.instance('acme', ID));
    const query = ddb.commandCalls(QueryCommand);
    expect(query).toHaveLength(1);
    expect(query[0]!.args[0].input).toMatchObject({
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK > :after',
      ExpressionAttributeValues: { ':pk': `TNT#acme#PIEVT#${ID}`, ':after': 'EVT#' },
      Limit: 3,
    });
    // The next page starts after the last event given.
    ddb.on(QueryCommand).resolves({ Items: events.slice(2).map(outboxItem) });
    const next = await handler(event(`size=2&nextToken=${encodeURIComponent(body.nextToken)}`));
    expect(JSON.parse(next.body!)).toEqual({ events: events.slice(2) });
    expect(ddb.commandCalls(QueryCommand)[1]!.args[0].input.ExpressionAttributeValues).toMatchObject({ ':after': eventPosition(events[1]!) });
  });

  it('rejects when the instance is not found: 404, and no index read', async () => {
    ddb.on(GetCommand).resolves({});
    const res = await handler(event(''));
    expect(res.statusCode).toBe(404);
    expect(JSON.parse(res.body!).code).toBe('PROCESS_INSTANCE_NOT_FOUND');
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it.each([
    ['size=0', 'VALIDATION_FAILED', 'query.size'],
    ['size=501', 'VALIDATION_FAILED', 'query.size'],
    ['size=ten', 'VALIDATION_FAILED', 'query.size'],
    ['nextToken=c1.e30.abc', 'INVALID_CURSOR', 'query.nextToken'],
  ])('rejects %s with 400 %s at %s, reading nothing', async (query, code, location) => {
    const res = await handler(event(query));
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body!)).toMatchObject({ code, details: [expect.objectContaining({ location })] });
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('rejects a token that holds only the instance read permission: 403 MISSING_PERMISSION', async () => {
    const res = await handler(event('', 'ProcessManager:getProcessInstance'));
    expect(res.statusCode).toBe(403);
    expect(JSON.parse(res.body!).code).toBe('MISSING_PERMISSION');
  });
});
