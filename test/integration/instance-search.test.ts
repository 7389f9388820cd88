import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetItemCommand, QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { localClient } from '../../lib/local/dynamodb.js';
import { adminToken, call, issueToken } from './client.js';

const INSTANCES = '/api/process-manager/processInstances';
let token: string;
const marker = `m${Math.random().toString(36).slice(2, 10)}`;
const ids: string[] = [];
let startedAt: string;

beforeAll(async () => {
  token = await adminToken();
  startedAt = new Date().toISOString();
  const people = [
    { firstName: 'Zoe', lastName: `Adams-${marker}`, email: `zoe@${marker}.example`, phoneNumber: '+4915123456789' },
    { firstName: 'Yann', lastName: `Brown-${marker}`, email: `yann@${marker}.example`, phoneNumber: '-2+3' },
    { firstName: '=HYPERLINK("x")', lastName: `Cole-${marker}`, email: `c@${marker}.example` },
  ];
  for (const parameters of people) {
    const pt = await call('POST', '/api/process-manager/processTokens', {
      token,
      body: { name: `s-${Math.random().toString(36).slice(2)}`, processDefnName: 'identity-check', processDefnVersion: 1, parameters },
    });
    const created = await call('POST', `${INSTANCES}/create?pt=${pt.json.id}`, { token });
    ids.push(created.json.processInstanceId);
  }
});

describe('GET /api/process-manager/processInstances', () => {
  it('pages through instances newest first with retentionDays, scheduledExpiry and the extended search fields', async () => {
    const res = await call('GET', `${INSTANCES}?size=2`, { token });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ size: 2, number: 0, first: true, numberOfElements: 2 });
    const [a, b] = res.json.content;
    expect(Date.parse(a.createdAt)).toBeGreaterThanOrEqual(Date.parse(b.createdAt));
    // The tenant's newest instance may be another test's (they run at once): its own retention.
    expect(a).toMatchObject({ retentionDays: expect.any(Number), scheduledExpiry: true, extendedSearchField: null, extendedSearchTerms: [] });
    expect(a.retentionDays).toBeGreaterThanOrEqual(1);
    // One of this test's own (identity-check keeps its instances 90 days), read by id.
    const own = await call('GET', `${INSTANCES}/${ids[0]}`, { token });
    expect(own.json).toMatchObject({ retentionDays: 90 });
    expect((await call('GET', `${INSTANCES}?size=0`, { token })).status).toBe(400);
  });

  it("shows only the caller's tenant", async () => {
    const theirs = await issueToken(inject('otherKey'), 'other');
    const res = await call('GET', `${INSTANCES}?size=1000`, { tenant: 'other', token: theirs });
    expect(res.status).toBe(200);
    expect(res.json.content.map((i: { id: string }) => i.id)).not.toContain(ids[0]);
  });
});

describe('GET /api/process-manager/processInstances/search', () => {
  it('finds instances by free text over their parameters', async () => {
    const res = await call('GET', `${INSTANCES}/search?searchString=${marker}&sort=createdAt,asc`, { token });
    expect(res.status).toBe(200);
    expect(res.json.content.map((i: { id: string }) => i.id)).toEqual(ids);
    const one = await call('GET', `${INSTANCES}/search?searchString=brown-${marker}`, { token });
    expect(one.json.content.map((i: { id: string }) => i.id)).toEqual([ids[1]]);
  });

  it('follows nextCursor to the next page over HTTP, and refuses it with other filters', async () => {
    const q = `${INSTANCES}/search?searchString=${marker}&size=2&sort=createdAt,asc`;
    const first = await call('GET', q, { token });
    expect(first.json).toMatchObject({ totalElements: 3, totalElementsCapped: false, last: false });
    expect(first.json.content.map((i: { id: string }) => i.id)).toEqual(ids.slice(0, 2));
    const next = await call('GET', `${q}&page=1&cursor=${first.json.nextCursor}`, { token });
    expect(next.json).toMatchObject({ number: 1, last: true, nextCursor: null });
    expect(next.json.content.map((i: { id: string }) => i.id)).toEqual(ids.slice(2));
    const refused = await call('GET', `${INSTANCES}/search?size=2&cursor=${first.json.nextCursor}`, { token });
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe('INVALID_CURSOR');
  });

  it('filters by creation range, definition and status', async () => {
    const q = (s: string) => call('GET', `${INSTANCES}/search?searchString=${marker}&${s}`, { token });
    expect((await q(`startDateTime=${encodeURIComponent(startedAt)}`)).json.totalElements).toBe(3);
    expect((await q('endDateTime=2000-01-01T00:00:00Z')).json.totalElements).toBe(0);
    expect((await q('processDefinitionName=identity-check')).json.totalElements).toBe(3);
    expect((await q('processDefinitionName=passcode-registration')).json.totalElements).toBe(0);
    expect((await q('processInstanceStatus=PENDING&processInstanceStatus=ACTIVE')).json.totalElements).toBe(3);
    expect((await q('processInstanceStatus=REVIEW')).json.totalElements).toBe(0);
    const defnId = (await call('GET', `${INSTANCES}/${ids[0]}`, { token })).json.processDefnId;
    expect((await q(`processDefinitionId=${defnId}`)).json.totalElements).toBe(3);
  });

  it.each(['processInstanceStatus=DONE', 'startDateTime=yesterday', 'processDefinitionId=x', 'sort=secret,asc', 'size=1001'])(
    'refuses %s with 400',
    async (q) => {
      expect((await call('GET', `${INSTANCES}/search?${q}`, { token })).status).toBe(400);
    },
  );
});

describe('POST /api/process-manager/processInstances/csv', () => {
  it('exports the matching instances as CSV, with formula-looking cells neutralised', async () => {
    const res = await call('POST', `${INSTANCES}/csv`, { token, body: { searchString: marker, sort: ['createdAt,asc'] } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    const lines = res.text.trim().split('\r\n');
    expect(lines[0]).toBe('id,processDefnId,processDefnName,processDefnVersion,status,createdAt,lastUpdatedAt,retentionDays,expiringDtm,firstName,lastName,email,phoneNumber');
    expect(lines).toHaveLength(4);
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(ids);
    expect(res.text).toContain(`"'=HYPERLINK(""x"")"`);
    // A phone number keeps its +; a sign followed by arithmetic is guarded.
    expect(lines[1]!.endsWith(',+4915123456789')).toBe(true);
    expect(lines[2]!.endsWith(",'-2+3")).toBe(true);
    expect((await call('POST', `${INSTANCES}/csv`, { token, body: { processInstanceStatus: ['NOPE'] } })).status).toBe(400);
  });

  // Found by fuzz-routes.test.ts: a range ending before it starts was a DynamoDB error (a 500).
  it('finds nothing in a range that ends before it starts, in search and in CSV', async () => {
    const range = { startDateTime: '2030-01-01T00:00:00.001Z', endDateTime: '2030-01-01T00:00:00.000Z' };
    const search = await call('GET', `${INSTANCES}/search?${new URLSearchParams(range)}`, { token });
    expect(search.status).toBe(200);
    expect(search.json).toMatchObject({ content: [], totalElements: 0 });
    const csv = await call('POST', `${INSTANCES}/csv`, { token, body: { ...range, searchString: 'Ann' } });
    expect(csv.status).toBe(200);
    expect(csv.text.trim().split('\r\n')).toHaveLength(1);
  });
});

describe('retention on the local runtime', () => {
  it('sweeps an instance past its retention out of the table, as DynamoDB TTL does', async () => {
    const pt = await call('POST', '/api/process-manager/processTokens', {
      token,
      body: { name: `r-${Math.random().toString(36).slice(2)}`, processDefnName: 'identity-check', processDefnVersion: 1 },
    });
    const id = (await call('POST', `${INSTANCES}/create?pt=${pt.json.id}`, { token })).json.processInstanceId;
    const runtime = JSON.parse(readFileSync(join(inject('localDir'), 'runtime.json'), 'utf8'));
    const db = localClient(runtime.dynamodbEndpoint);
    const Key = { PK: { S: `TNT#demo#PI#${id}` }, SK: { S: 'PI' } };
    // The instance, its list views and its term views share its expiry: time passes for all of them.
    const all = await db.send(
      new QueryCommand({ TableName: runtime.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': Key.PK }, ConsistentRead: true }),
    );
    const sks = (all.Items ?? []).filter((i) => i.expiresAt).map((i) => i.SK!.S!);
    expect(sks).toEqual(expect.arrayContaining(['PI', 'VIEW#T', 'VIEW#S', 'VIEW#D']));
    expect(sks.filter((sk) => sk.startsWith('VIEW#W#')).length).toBeGreaterThan(1);
    for (const SK of sks) {
      await db.send(
        new UpdateItemCommand({
          TableName: runtime.tableName,
          Key: { ...Key, SK: { S: SK } },
          UpdateExpression: 'SET expiresAt = :past',
          ExpressionAttributeValues: { ':past': { N: String(Math.floor(Date.now() / 1000) - 1) } },
        }),
      );
    }
    const search = await call('GET', `${INSTANCES}/search?searchString=${id}`, { token });
    expect(search.json.totalElements).toBe(0);
    const deadline = Date.now() + 20_000;
    let item: unknown = {};
    while (item && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      item = (await db.send(new GetItemCommand({ TableName: runtime.tableName, Key, ConsistentRead: true }))).Item;
    }
    db.destroy();
    expect(item).toBeUndefined();
  });
});
