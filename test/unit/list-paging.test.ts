/**
 * The paged lists against Amazon's DynamoDB Local (the table made from the same schema module the
 * stack uses): each page reads at most its own items (and one more), a cursor continues exactly
 * where its page ended whatever is added meanwhile, and a cursor of another tenant, list or query,
 * or one changed by hand, is refused with 400 INVALID_CURSOR.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { PROCESS_TOKEN_USE_SHARDS } from '../../functions/store/shards.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureTable, localClient, startDynamoDbLocal, type LocalDynamo } from '../../lib/local/dynamodb.js';
import type { ProcessDefinitionRecord, ProcessTokenRecord } from '../../functions/process-manager/model.js';
import type { ApiError } from '../../functions/errors.js';

let local: LocalDynamo;
let client: DynamoDBClient;
let dir: string;

/** What DynamoDB was asked since the last `reset`: Query calls, the items they read, the keys BatchGetItem read. */
/** Keys a page reads per token: its item and its use shards. */
const PER_TOKEN = 1 + PROCESS_TOKEN_USE_SHARDS;
const reads = { queries: 0, scanned: 0, batchKeys: 0, counts: 0 };
const reset = () => Object.assign(reads, { queries: 0, scanned: 0, batchKeys: 0, counts: 0 });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'list-paging-'));
  local = await startDynamoDbLocal(dir);
  process.env.DYNAMODB_ENDPOINT = local.endpoint;
  process.env.TABLE_NAME = 'lists-unit';
  client = localClient(local.endpoint);
  await ensureTable(client, 'lists-unit');
  const { dynamo } = await import('../../functions/store/client.js');
  const { doc } = await dynamo();
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Select?: string; RequestItems?: Record<string, { Keys: unknown[] }> };
      const out = await next(args);
      if (context.commandName === 'QueryCommand') {
        if (input.Select === 'COUNT') reads.counts++;
        else {
          reads.queries++;
          reads.scanned += (out.output as { ScannedCount?: number }).ScannedCount ?? 0;
        }
      }
      if (context.commandName === 'BatchGetItemCommand' || context.commandName === 'BatchGetCommand') reads.batchKeys += Object.values(input.RequestItems ?? {}).reduce((n, r) => n + r.Keys.length, 0);
      return out;
    },
    { step: 'initialize', name: 'listReadCounter' },
  );
}, 90_000);

afterAll(async () => {
  client?.destroy();
  await local?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

beforeEach(reset);

/** The 400 a cursor gets, as the wrapper would answer it. */
async function refusal(p: Promise<unknown>): Promise<{ code: string; status: number; location?: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as ApiError;
    return { code: e.code, status: e.statusCode, location: e.details?.[0]?.location };
  }
  throw new Error('expected a refusal');
}

/** A cursor with one character of its payload changed (still base64url). */
function tampered(cursor: string): string {
  const [v, payload, check] = cursor.split('.') as [string, string, string];
  const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
  body[0] = `${String(body[0]).slice(0, -1)}${String(body[0]).endsWith('0') ? '1' : '0'}`;
  return `${v}.${Buffer.from(JSON.stringify(body)).toString('base64url')}.${check}`;
}

describe('process definitions', () => {
  let store: typeof import('../../functions/store/process-definitions.js').definitionStore;
  let domain: typeof import('../../functions/process-manager/definitions/definitions.js');
  let n = 0;

  async function publish(tenantId: string, name: string, version: number) {
    const id = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    const record: ProcessDefinitionRecord = {
      tenantId,
      id,
      name,
      version,
      description: '',
      retentionDays: 90,
      stateMachineArn: 'arn:aws:states:eu-west-1:000000000000:stateMachine:x',
      status: 'DEPLOYED_ACTIVE',
      format: 'JSON',
      createdDtm: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
      createdBy: 'test',
    };
    const definition = { name, version, description: '', retentionDays: 90, startActivityId: 'd', activities: { d: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } } } };
    expect(await store.create(record, { definition } as never)).toEqual({ outcome: 'written' });
  }

  beforeAll(async () => {
    ({ definitionStore: store } = await import('../../functions/store/process-definitions.js'));
    domain = await import('../../functions/process-manager/definitions/definitions.js');
    for (let v = 1; v <= 12; v++) await publish('acme', 'alpha', v);
    for (const name of ['delta', 'Bravo', 'charlie']) for (let v = 1; v <= 2; v++) await publish('acme', name, v);
    await publish('other', 'alpha', 1);
  }, 60_000);

  it("pages one name's versions by cursor, each page one Query of size + 1 and the page's definitions", async () => {
    const q = { page: 0, size: 5, sort: [] as string[] };
    const first = await domain.versionPage(store, 'acme', 'alpha', q);
    expect(first.content.map((d) => d.version)).toEqual([1, 2, 3, 4, 5]);
    expect(first).toMatchObject({ totalElements: 12, totalPages: 3, last: false, totalElementsCapped: false });
    expect(reads).toMatchObject({ queries: 1, scanned: 6, counts: 1 });
    expect(reads.batchKeys).toBeLessThanOrEqual(6);

    // A version published between pages comes once, at its place; none is skipped.
    await publish('acme', 'alpha', 13);
    reset();
    const second = await domain.versionPage(store, 'acme', 'alpha', { ...q, page: 1, cursor: first.nextCursor! });
    expect(second.content.map((d) => d.version)).toEqual([6, 7, 8, 9, 10]);
    // The count travels in the cursor: a later page counts nothing.
    expect(reads).toMatchObject({ queries: 1, scanned: 6, counts: 0 });
    const third = await domain.versionPage(store, 'acme', 'alpha', { ...q, page: 2, cursor: second.nextCursor! });
    expect(third.content.map((d) => d.version)).toEqual([11, 12, 13]);
    expect(third).toMatchObject({ last: true, nextCursor: null });
  });

  it('gives the latest version first with sort=version,desc and size=1, reading two name + version items', async () => {
    const latest = await domain.versionPage(store, 'acme', 'alpha', { page: 0, size: 1, sort: ['version,desc'] });
    expect(latest.content.map((d) => d.version)).toEqual([13]);
    expect(reads).toMatchObject({ queries: 1, scanned: 2 });
  });

  it('reaches a page by number by walking keys only, then reads the page', async () => {
    const page = await domain.versionPage(store, 'acme', 'alpha', { page: 2, size: 4, sort: [] });
    expect(page.content.map((d) => d.version)).toEqual([9, 10, 11, 12]);
    expect(reads.batchKeys).toBeLessThanOrEqual(5);
  });

  it("refuses a cursor of another tenant, another name, another sort, or one changed by hand", async () => {
    const q = { page: 0, size: 2, sort: [] as string[] };
    const cursor = (await domain.versionPage(store, 'acme', 'alpha', q)).nextCursor!;
    const bad = { code: 'INVALID_CURSOR', status: 400, location: 'query.cursor' };
    expect(await refusal(domain.versionPage(store, 'other', 'alpha', { ...q, cursor }))).toEqual(bad);
    expect(await refusal(domain.versionPage(store, 'acme', 'delta', { ...q, cursor }))).toEqual(bad);
    expect(await refusal(domain.versionPage(store, 'acme', 'alpha', { ...q, sort: ['version,desc'], cursor }))).toEqual(bad);
    expect(await refusal(domain.versionPage(store, 'acme', 'alpha', { ...q, cursor: tampered(cursor) }))).toEqual(bad);
    expect(await refusal(domain.versionPage(store, 'acme', 'alpha', { ...q, cursor: 'c1.WyJQREVGTlYjIl0.xxxxxxxxxxxxxxxxxxxxxx' }))).toEqual(bad);
    expect(await refusal(domain.versionPage(store, 'acme', 'alpha', { ...q, cursor: 'not a cursor' }))).toEqual(bad);
  });

  it('lists definitions by name then version, reading only the page\u2019s definitions, and continues by cursor under inserts', async () => {
    const q = { name: '%', page: 0, size: 4, sort: [] as string[] };
    const first = await domain.definitionPage(store, 'acme', q);
    expect(first.content.map((d) => `${d.name}:${d.version}`)).toEqual(['alpha:1', 'alpha:2', 'alpha:3', 'alpha:4']);
    expect(first.totalElements).toBe(19);
    expect(reads.batchKeys).toBe(4);
    await publish('acme', 'aardvark', 1); // sorts before the cursor: not shown, nothing shown twice
    await publish('acme', 'alpha', 14); // after it: shown at its place
    const seen = [...first.content];
    for (let cursor = first.nextCursor, page = 1; cursor; page++) {
      reset();
      const next = await domain.definitionPage(store, 'acme', { ...q, page, cursor });
      expect(reads.batchKeys).toBeLessThanOrEqual(4);
      seen.push(...next.content);
      cursor = next.nextCursor;
    }
    const names = seen.map((d) => `${d.name}:${d.version}`);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual([...Array.from({ length: 14 }, (_, i) => `alpha:${i + 1}`), 'Bravo:1', 'Bravo:2', 'charlie:1', 'charlie:2', 'delta:1', 'delta:2']);
  });

  it('filters by a LIKE pattern and refuses a cursor sent with another pattern', async () => {
    const page = await domain.definitionPage(store, 'acme', { name: '%LT_', page: 0, size: 1, sort: ['name,desc'] });
    expect(page.content.map((d) => `${d.name}:${d.version}`)).toEqual(['delta:1']);
    expect(page.totalElements).toBe(2);
    const bad = await refusal(domain.definitionPage(store, 'acme', { name: '%', page: 1, size: 1, sort: ['name,desc'], cursor: page.nextCursor! }));
    expect(bad.code).toBe('INVALID_CURSOR');
  });
});

describe('process tokens', () => {
  let store: typeof import('../../functions/store/process-tokens.js').processTokenStore;
  let tenants: typeof import('../../functions/store/tenants.js').tenantStore;
  let tokenPage: typeof import('../../functions/process-manager/tokens/tokens.js').tokenPage;
  const now = new Date('2026-06-01T00:00:00Z');
  let n = 0;
  const origin = 'https://acme.fir.example';

  const token = (tenantId: string, name: string): ProcessTokenRecord => ({
    tenantId,
    id: `00000000-0000-4000-9000-${String(++n).padStart(12, '0')}`,
    name,
    description: '',
    status: 'ACTIVE',
    type: 'UNLIMITED',
    maxCount: null,
    counter: 0,
    validFromDtm: null,
    validToDtm: null,
    processDefnName: 'alpha',
    processDefnVersion: '1',
    processDefnTag: null,
    processDefnId: null,
    uiUrl: `${origin}/journey`,
    parameters: {},
    processInstanceInit: null,
    maxProcessDuration: null,
    createdDtm: new Date(Date.UTC(2026, 4, 1, 0, 0, n)).toISOString(),
    createdBy: 'test',
  });
  const page = (tenantId: string, q: Partial<{ name: string; page: number; size: number; sort: string[]; cursor: string }> = {}) =>
    tokenPage(store, tenantId, { name: '%', page: 0, size: 5, sort: [], ...q }, origin, now);

  beforeAll(async () => {
    ({ processTokenStore: store } = await import('../../functions/store/process-tokens.js'));
    ({ tenantStore: tenants } = await import('../../functions/store/tenants.js'));
    ({ tokenPage } = await import('../../functions/process-manager/tokens/tokens.js'));
    for (const t of ['acme', 'other']) await tenants.create({ tenantId: t, region: 'fir', createdDtm: now.toISOString(), createdBy: 'test' });
    for (let i = 1; i <= 12; i++) expect(await store.create(token('acme', `t${String(i).padStart(2, '0')}${i % 3 === 0 ? '-vip' : ''}`))).toBe(true);
    await store.create(token('other', 'theirs'));
  }, 60_000);

  it('pages oldest first by cursor: a page reads size + 1 list views and their tokens, later pages count nothing', async () => {
    const first = await page('acme');
    expect(first.content.map((t) => t.name)).toEqual(['t01', 't02', 't03-vip', 't04', 't05']);
    expect(first).toMatchObject({ totalElements: 12, totalPages: 3, totalElementsCapped: false, last: false });
    // Each token's use shards are read with it (its counter).
    expect(reads).toMatchObject({ queries: 1, scanned: 6, batchKeys: 6 * PER_TOKEN, counts: 1 });

    expect(await store.create(token('acme', 't13'))).toBe(true);
    reset();
    const second = await page('acme', { page: 1, cursor: first.nextCursor! });
    expect(second.content.map((t) => t.name)).toEqual(['t06-vip', 't07', 't08', 't09-vip', 't10']);
    expect(reads).toMatchObject({ queries: 1, scanned: 6, batchKeys: 6 * PER_TOKEN, counts: 0 });
    const third = await page('acme', { page: 2, cursor: second.nextCursor! });
    expect(third.content.map((t) => t.name)).toEqual(['t11', 't12-vip', 't13']);
    expect(third).toMatchObject({ last: true, nextCursor: null });
  });

  it('pages newest first, and by number with a keys-only walk', async () => {
    const newest = await page('acme', { sort: ['createdDtm,desc'], size: 2 });
    expect(newest.content.map((t) => t.name)).toEqual(['t13', 't12-vip']);
    reset();
    const third = await page('acme', { page: 2, size: 4 });
    expect(third.content.map((t) => t.name)).toEqual(['t09-vip', 't10', 't11', 't12-vip']);
    expect(reads.batchKeys).toBe(5 * PER_TOKEN);
  });

  it('filters by name on the list views, loading only the matching tokens', async () => {
    const vip = await page('acme', { name: '%-VIP', size: 2 });
    expect(vip.content.map((t) => t.name)).toEqual(['t03-vip', 't06-vip']);
    expect(vip.totalElements).toBe(4);
    expect(reads.batchKeys).toBe(2 * PER_TOKEN);
    const rest = await page('acme', { name: '%-VIP', size: 2, page: 1, cursor: vip.nextCursor! });
    expect(rest.content.map((t) => t.name)).toEqual(['t09-vip', 't12-vip']);
  });

  it('sorts by name in memory, by number only', async () => {
    const byName = await page('acme', { sort: ['name,desc'], size: 3 });
    expect(byName.content.map((t) => t.name)).toEqual(['t13', 't12-vip', 't11']);
    expect(byName.nextCursor).toBeNull();
  });

  it('refuses a cursor of another tenant, another filter, or one changed by hand', async () => {
    const cursor = (await page('acme', { size: 2 })).nextCursor!;
    const bad = { code: 'INVALID_CURSOR', status: 400, location: 'query.cursor' };
    expect(await refusal(page('other', { size: 2, cursor }))).toEqual(bad);
    expect(await refusal(page('acme', { size: 2, name: 't%', cursor }))).toEqual(bad);
    expect(await refusal(page('acme', { size: 2, cursor: tampered(cursor) }))).toEqual(bad);
  });

  it('reads a tenant made before list views whole, as before, until backfill-lists gives it views', async () => {
    const { dynamo } = await import('../../functions/store/client.js');
    const { keys } = await import('../../functions/store/keys.js');
    const { doc, tableName, commands } = await dynamo();
    for (let i = 1; i <= 3; i++) {
      const t = token('legacy', `old${i}`);
      await doc.send(new commands.PutCommand({ TableName: tableName, Item: { ...keys.processToken('legacy', t.id), itemType: 'ProcessToken', ...t } }));
    }
    const before = await page('legacy', { size: 2 });
    expect(before.content.map((t) => t.name)).toEqual(['old1', 'old2']);
    expect(before).toMatchObject({ totalElements: 3, nextCursor: null });
    expect(await store.backfillViews('legacy')).toEqual({ items: 3, views: 3 });
    const after = await page('legacy', { size: 2 });
    expect(after.content.map((t) => t.name)).toEqual(['old1', 'old2']);
    expect((await page('legacy', { size: 2, page: 1, cursor: after.nextCursor! })).content.map((t) => t.name)).toEqual(['old3']);
  });
});

describe('API keys', () => {
  let store: typeof import('../../functions/store/api-keys.js').apiKeyStore;
  let domain: typeof import('../../functions/api-keys/domain.js');
  const actorOf = (tenantId: string) => ({ tenantId, id: 'op', permissions: new Set<string>() }) as never;
  const now = new Date('2026-06-01T00:00:00Z');
  let n = 0;
  const create = async (tenantId: string, name: string) => {
    const { record } = domain.newApiKey({ name }, actorOf(tenantId), new Date(Date.UTC(2026, 4, 1, 0, 0, ++n)));
    await store.create(record);
    return record;
  };
  const page = (tenantId: string, q: Partial<{ name: string; page: number; size: number; sort: string[]; cursor: string }> = {}) =>
    domain.listApiKeys(store, actorOf(tenantId), { name: '%', page: 0, size: 4, sort: [], ...q }, now);

  beforeAll(async () => {
    ({ apiKeyStore: store } = await import('../../functions/store/api-keys.js'));
    domain = await import('../../functions/api-keys/domain.js');
    const { tenantStore } = await import('../../functions/store/tenants.js');
    for (const t of ['keys', 'keys-other']) await tenantStore.create({ tenantId: t, region: 'fir', createdDtm: now.toISOString(), createdBy: 'test' });
    for (let i = 1; i <= 9; i++) await create('keys', `k${i}${i % 2 ? '-odd' : ''}`);
    await create('keys-other', 'theirs');
  }, 60_000);

  it('pages oldest first by cursor with the exact count the list keeps: a page reads size + 1 views and their keys, no COUNT', async () => {
    const first = await page('keys');
    expect(first.content.map((k) => k.name)).toEqual(['k1-odd', 'k2', 'k3-odd', 'k4']);
    expect(first).toMatchObject({ totalElements: 9, totalPages: 3, totalElementsCapped: false });
    expect(reads).toMatchObject({ queries: 1, scanned: 5, batchKeys: 5, counts: 0 });

    const added = await create('keys', 'k10');
    reset();
    const second = await page('keys', { page: 1, cursor: first.nextCursor! });
    expect(second.content.map((k) => k.name)).toEqual(['k5-odd', 'k6', 'k7-odd', 'k8']);
    // The count is read with the page, so it is today's.
    expect(second.totalElements).toBe(10);
    expect(reads).toMatchObject({ queries: 1, scanned: 5, counts: 0 });

    // A deletion moves the count with it.
    expect(await store.delete(added, added.version)).toBe(true);
    const third = await page('keys', { page: 2, cursor: second.nextCursor! });
    expect(third.content.map((k) => k.name)).toEqual(['k9-odd']);
    expect(third).toMatchObject({ totalElements: 9, last: true, nextCursor: null });
  });

  it('filters by a name pattern on the views and sorts newest first; a rename moves the view', async () => {
    const odd = await page('keys', { name: '%-ODD', sort: ['createdDtm,desc'], size: 2 });
    expect(odd.content.map((k) => k.name)).toEqual(['k9-odd', 'k7-odd']);
    expect(odd.totalElements).toBe(5);
    expect(reads.batchKeys).toBe(2);
    const k2 = (await page('keys', { name: 'k2' })).content[0]!;
    const stored = (await store.get('keys', k2.id))!;
    expect(await store.replace({ ...stored, name: 'k2-odd', version: stored.version + 1 })).toBe(true);
    expect((await page('keys', { name: '%-odd', size: 10 })).totalElements).toBe(6);
  });

  it('refuses a cursor of another tenant or changed by hand', async () => {
    const cursor = (await page('keys', { size: 2 })).nextCursor!;
    expect((await refusal(page('keys-other', { size: 2, cursor }))).code).toBe('INVALID_CURSOR');
    expect((await refusal(page('keys', { size: 2, cursor: tampered(cursor) }))).code).toBe('INVALID_CURSOR');
  });

  it('backfills a tenant made before list views: views for its keys, and the count', async () => {
    const { dynamo } = await import('../../functions/store/client.js');
    const { keys } = await import('../../functions/store/keys.js');
    const { doc, tableName, commands } = await dynamo();
    for (let i = 1; i <= 3; i++) {
      const { record } = domain.newApiKey({ name: `old${i}` }, actorOf('keys-legacy'), new Date(Date.UTC(2026, 3, 1, 0, 0, i)));
      await doc.send(new commands.PutCommand({ TableName: tableName, Item: { ...keys.apiKey('keys-legacy', record.id), itemType: 'ApiKey', ...record } }));
    }
    // A key made by this version before the backfill writes its view and counts, but the list is not yet viewed.
    await create('keys-legacy', 'new1');
    const before = await page('keys-legacy', { size: 2 });
    expect(before).toMatchObject({ totalElements: 4, nextCursor: null });
    expect(await store.backfillViews('keys-legacy')).toEqual({ items: 4, views: 3 });
    const after = await page('keys-legacy', { size: 3 });
    expect(after.content.map((k) => k.name)).toEqual(['old1', 'old2', 'old3']);
    expect(after.totalElements).toBe(4);
    expect(await store.backfillViews('keys-legacy')).toEqual({ items: 0, views: 0 });
  });
});

describe("a user's authentications", () => {
  let passkeys: typeof import('../../functions/store/identity-store.js').passkeyStore;
  let listUserAuthentications: typeof import('../../functions/identity-store/passkeys/passkeys.js').listUserAuthentications;
  let s: Parameters<typeof listUserAuthentications>[0];
  let n = 0;

  async function authenticate(tenantId: string, userId: string) {
    const { dynamo } = await import('../../functions/store/client.js');
    const { keys } = await import('../../functions/store/keys.js');
    const { doc, tableName, commands } = await dynamo();
    const at = new Date(Date.UTC(2026, 4, 1, 0, 0, ++n)).toISOString();
    const id = `01J0000000000000000000${String(n).padStart(4, '0')}`;
    const record = { tenantId, storeName: 'customers', userId, at, id, method: 'PASSCODE', policyName: 'default' };
    await doc.send(new commands.PutCommand({ TableName: tableName, Item: { ...keys.userAuthentication(tenantId, 'customers', userId, at, id), itemType: 'UserAuthentication', ...record } }));
    return record;
  }

  beforeAll(async () => {
    ({ passkeyStore: passkeys } = await import('../../functions/store/identity-store.js'));
    ({ listUserAuthentications } = await import('../../functions/identity-store/passkeys/passkeys.js'));
    // The store and user reads of the list (findUser), not what is measured here.
    s = {
      stores: { get: async (tenantId: string) => ({ tenantId, name: 'customers' }) },
      users: { get: async (_t: string, _s: string, ref: { userId?: string }) => ({ id: ref.userId ?? 'u-ext' }) },
      passkeys,
    } as never;
    for (let i = 0; i < 9; i++) await authenticate('acme', 'u1');
    await authenticate('acme', 'u2');
  }, 60_000);

  it('pages newest first, one Query of size + 1 a page; the count is carried by the cursor', async () => {
    const first = await listUserAuthentications(s, 'acme', 'customers', { userId: 'u1' }, { page: 0, size: 4 });
    expect(first.content.map((a) => a.id.slice(-2))).toEqual(['09', '08', '07', '06']);
    expect(first).toMatchObject({ totalElements: 9, totalPages: 3, totalElementsCapped: false });
    expect(reads).toMatchObject({ queries: 1, scanned: 5, counts: 1 });
    // A newer one meanwhile is not shown on later pages (they go back in time), nor anything twice.
    await authenticate('acme', 'u1');
    reset();
    const second = await listUserAuthentications(s, 'acme', 'customers', { userId: 'u1' }, { page: 1, size: 4, cursor: first.nextCursor! });
    expect(second.content.map((a) => a.id.slice(-2))).toEqual(['05', '04', '03', '02']);
    expect(reads).toMatchObject({ queries: 1, scanned: 5, counts: 0 });
    const third = await listUserAuthentications(s, 'acme', 'customers', { userId: 'u1' }, { page: 2, size: 4, cursor: second.nextCursor! });
    expect(third.content.map((a) => a.id.slice(-2))).toEqual(['01']);
    expect(third).toMatchObject({ last: true, nextCursor: null });
  });

  it("refuses a cursor of another user, store or tenant, or one changed by hand", async () => {
    const cursor = (await listUserAuthentications(s, 'acme', 'customers', { userId: 'u1' }, { page: 0, size: 2 })).nextCursor!;
    for (const [tenantId, userId, c] of [['acme', 'u2', cursor], ['other', 'u1', cursor], ['acme', 'u1', tampered(cursor)]] as const) {
      expect((await refusal(listUserAuthentications(s, tenantId, 'customers', { userId }, { page: 0, size: 2, cursor: c }))).code).toBe('INVALID_CURSOR');
    }
  });
});

describe('identity stores', () => {
  let storesPage: typeof import('../../functions/identity-store/stores/stores.js').storesPage;
  let stores: typeof import('../../functions/store/identity-store.js').identityStoreStore;
  const make = (tenantId: string, name: string) =>
    stores.create({
      tenantId,
      name,
      description: '',
      type: 'STANDARD' as never,
      passcodePolicies: {},
      passkeyConfig: {},
      createdDtm: '2026-01-01T00:00:00.000Z',
      createdBy: 'test',
      lastUpdatedDtm: '2026-01-01T00:00:00.000Z',
      lastUpdatedBy: 'test',
      version: 1,
    });

  beforeAll(async () => {
    ({ identityStoreStore: stores } = await import('../../functions/store/identity-store.js'));
    ({ storesPage } = await import('../../functions/identity-store/stores/stores.js'));
    for (const name of ['b-store', 'd-store', 'a-store', 'e-store']) await make('acme', name);
    await make('other', 'c-store');
  });

  it('pages by name, one Query of size + 1 a page, and continues by cursor under inserts', async () => {
    const first = await storesPage(stores, 'acme', { page: 0, size: 2 });
    expect(first.content.map((s) => s.name)).toEqual(['a-store', 'b-store']);
    expect(first.totalElements).toBe(4);
    expect(reads).toMatchObject({ queries: 1, scanned: 3 });
    await make('acme', 'c-store');
    await make('acme', 'aa-store'); // before the cursor: not shown twice
    const second = await storesPage(stores, 'acme', { page: 1, size: 2, cursor: first.nextCursor! });
    expect(second.content.map((s) => s.name)).toEqual(['c-store', 'd-store']);
    expect((await storesPage(stores, 'acme', { page: 2, size: 2, cursor: second.nextCursor! })).content.map((s) => s.name)).toEqual(['e-store']);
    expect((await refusal(storesPage(stores, 'other', { page: 1, size: 2, cursor: first.nextCursor! }))).code).toBe('INVALID_CURSOR');
  });
});

describe('versions of a data form (and of a cloud function: the same store)', () => {
  let forms: typeof import('../../functions/store/custom-data-forms.js').customDataFormStore;
  let customDataFormVersionsPage: typeof import('../../functions/process-manager/forms/custom-data-forms.js').customDataFormVersionsPage;
  let n = 0;
  const add = (tenantId: string, name: string, version: number, status = 'DEPLOYED_ACTIVE') =>
    forms.create({
      tenantId,
      id: `00000000-0000-4000-a000-${String(++n).padStart(12, '0')}`,
      name,
      version,
      description: '',
      status,
      createdDtm: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
      createdBy: 'test',
      lastUpdatedDtm: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
      lastUpdatedBy: 'test',
      resource: '{}',
    } as never);

  beforeAll(async () => {
    ({ customDataFormStore: forms } = await import('../../functions/store/custom-data-forms.js'));
    ({ customDataFormVersionsPage } = await import('../../functions/process-manager/forms/custom-data-forms.js'));
    for (let v = 1; v <= 7; v++) await add('acme', 'kyc', v, v % 3 ? 'DEPLOYED_ACTIVE' : 'ARCHIVED');
    await add('acme', 'kyc-other', 1);
  });

  it('pages in version order, one Query of size + 1 a page, latest first with version,desc', async () => {
    const q = { page: 0, size: 3, sort: [] as string[] };
    const first = await customDataFormVersionsPage(forms, 'acme', 'kyc', q);
    expect(first.content.map((f) => f.version)).toEqual([1, 2, 3]);
    expect(first.totalElements).toBe(7);
    expect(reads).toMatchObject({ queries: 1, scanned: 4, counts: 1 });
    await add('acme', 'kyc', 8);
    reset();
    const second = await customDataFormVersionsPage(forms, 'acme', 'kyc', { ...q, page: 1, cursor: first.nextCursor! });
    expect(second.content.map((f) => f.version)).toEqual([4, 5, 6]);
    expect(reads).toMatchObject({ queries: 1, scanned: 4, counts: 0 });
    expect((await customDataFormVersionsPage(forms, 'acme', 'kyc', { ...q, page: 2, cursor: second.nextCursor! })).content.map((f) => f.version)).toEqual([7, 8]);
    const latest = await customDataFormVersionsPage(forms, 'acme', 'kyc', { page: 0, size: 1, sort: ['version,desc'] });
    expect(latest.content.map((f) => f.version)).toEqual([8]);
  });

  it('sorts by status in memory, and refuses a cursor of another name or tenant', async () => {
    const byStatus = await customDataFormVersionsPage(forms, 'acme', 'kyc', { page: 0, size: 3, sort: ['status,asc'] });
    expect(byStatus.content.map((f) => f.version)).toEqual([3, 6, 1]);
    expect(byStatus.nextCursor).toBeNull();
    const cursor = (await customDataFormVersionsPage(forms, 'acme', 'kyc', { page: 0, size: 2, sort: [] })).nextCursor!;
    expect((await refusal(customDataFormVersionsPage(forms, 'acme', 'kyc-other', { page: 1, size: 2, sort: [], cursor }))).code).toBe('INVALID_CURSOR');
    expect((await refusal(customDataFormVersionsPage(forms, 'other', 'kyc', { page: 1, size: 2, sort: [], cursor }))).code).toBe('INVALID_CURSOR');
  });
});

describe('cloud secrets', () => {
  let secrets: typeof import('../../functions/store/cloud-secrets.js').cloudSecretStore;
  let cloudSecretsPage: typeof import('../../functions/cloud-functions/secrets.js').cloudSecretsPage;
  const record = (tenantId: string, name: string, version = 1) => ({
    tenantId,
    name,
    description: '',
    version,
    sealed: 'sealed',
    createdDtm: '2026-01-01T00:00:00.000Z',
    createdBy: 'test',
    lastUpdatedDtm: '2026-01-01T00:00:00.000Z',
    lastUpdatedBy: 'test',
  });
  const page = (tenantId: string, q: Partial<{ name: string; page: number; size: number; sort: string[]; cursor: string }> = {}) =>
    cloudSecretsPage({ secrets }, tenantId, { page: 0, size: 2, sort: [], ...q });

  beforeAll(async () => {
    ({ cloudSecretStore: secrets } = await import('../../functions/store/cloud-secrets.js'));
    ({ cloudSecretsPage } = await import('../../functions/cloud-functions/secrets.js'));
    const { tenantStore } = await import('../../functions/store/tenants.js');
    await tenantStore.create({ tenantId: 'sec', region: 'fir', createdDtm: '2026-01-01T00:00:00.000Z', createdBy: 'test' });
    for (const name of ['db.password', 'api-key', 'db.user', 'smtp', 'db.host']) await secrets.create(record('sec', name));
  });

  it('pages by name, a name prefix being a key range: a page reads only matching views', async () => {
    const first = await page('sec', { name: 'db.' });
    expect(first.content.map((s) => s.name)).toEqual(['db.host', 'db.password']);
    expect(first.totalElements).toBe(3);
    expect(reads).toMatchObject({ queries: 1, scanned: 3, counts: 1 });
    await secrets.delete('sec', 'db.password');
    await secrets.create(record('sec', 'db.port'));
    const second = await page('sec', { name: 'db.', page: 1, cursor: first.nextCursor! });
    expect(second.content.map((s) => s.name)).toEqual(['db.port', 'db.user']);
    expect(second.last).toBe(true);
    expect((await refusal(page('sec', { name: 'db', page: 1, cursor: first.nextCursor! }))).code).toBe('INVALID_CURSOR');
  });

  it('shows a rotation in the list (the view moves with the secret), and sorts by version in memory', async () => {
    expect((await secrets.replace(record('sec', 'smtp', 2), 1)).outcome).toBe('written');
    const byVersion = await page('sec', { sort: ['version,desc'], size: 1 });
    expect(byVersion.content.map((s) => [s.name, s.version])).toEqual([['smtp', 2]]);
    expect(byVersion.nextCursor).toBeNull();
  });

  it('backfills the views of a tenant made before them', async () => {
    const { dynamo } = await import('../../functions/store/client.js');
    const { keys } = await import('../../functions/store/keys.js');
    const { doc, tableName, commands } = await dynamo();
    for (const name of ['b', 'a']) {
      await doc.send(new commands.PutCommand({ TableName: tableName, Item: { ...keys.cloudSecret('sec-old', name), itemType: 'CloudSecret', ...record('sec-old', name) } }));
    }
    expect((await page('sec-old')).nextCursor).toBeNull();
    expect(await secrets.backfillViews('sec-old')).toEqual({ items: 2, views: 2 });
    const after = await page('sec-old', { size: 1 });
    expect(after.content.map((s) => s.name)).toEqual(['a']);
    expect((await page('sec-old', { size: 1, page: 1, cursor: after.nextCursor! })).content.map((s) => s.name)).toEqual(['b']);
  });
});
