import { readFileSync } from 'node:fs';
import { identityCheck } from '../../statemachines/examples/index.js';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { GetItemCommand, PutItemCommand, QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { localClient } from '../../lib/local/dynamodb.js';
import { keys } from '../../functions/store/keys.js';
import { expect, inject } from 'vitest';
import type { EventEnvelope } from '../../functions/shared/events.js';

export interface Reply {
  status: number;
  raw: Buffer;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export interface CallOptions {
  /** Tenant host's first label; `null` sends the bare `localhost` host. Default `demo`. */
  tenant?: string | null;
  host?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Sent as is (for malformed JSON and size tests). */
  rawBody?: string | Buffer;
  token?: string;
  apiKey?: string;
  /** Another runtime than the shared one. */
  port?: number;
}

/**
 * Connections kept alive between calls, and dropped by this side after 2 s idle, long before the
 * runtime drops an idle one (lib/local/server.ts says why that matters): a call never goes out on
 * a connection the server is closing.
 */
const agent = new Agent({ keepAlive: true, timeout: 2_000 });

/**
 * Plain HTTP to the local runtime on loopback, with the tenant in the Host header
 * (`demo.fir.localhost:PORT`), as a relying party's backend would call it.
 */
export function call(method: string, path: string, opts: CallOptions = {}): Promise<Reply> {
  const port = opts.port ?? inject('port');
  const tenant = opts.tenant === undefined ? 'demo' : opts.tenant;
  const host = opts.host ?? (tenant === null ? `localhost:${port}` : `${tenant}.fir.localhost:${port}`);
  const headers: Record<string, string> = { host, ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  let payload: Buffer | undefined;
  if (opts.rawBody !== undefined) payload = Buffer.from(opts.rawBody);
  else if (opts.body !== undefined) {
    payload = Buffer.from(JSON.stringify(opts.body));
    headers['content-type'] ??= 'application/json';
  }
  if (payload) headers['content-length'] = String(payload.length);
  return new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const text = raw.toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        ok({ status: res.statusCode ?? 0, raw, headers: res.headers, text, json });
      });
    });
    req.on('error', fail);
    if (payload) req.write(payload);
    req.end();
  });
}

export async function issueToken(apiKey: string, tenant = 'demo'): Promise<string> {
  const res = await call('POST', '/api/arthr/apiKeys/issue', { tenant, apiKey, body: {} });
  if (res.status !== 200) throw new Error(`token issue failed: ${res.status} ${res.text}`);
  return res.json.token as string;
}

let demoToken: Promise<string> | undefined;
/** A token of the demo tenant's all-permission bootstrap key. */
export function adminToken(): Promise<string> {
  demoToken ??= issueToken(inject('demoKey'));
  return demoToken;
}

/** Makes a key with the given bare permission names and returns its secret and a token. */
export async function keyWith(names: string[], extra: Record<string, unknown> = {}, tenant = 'demo') {
  const token = tenant === 'demo' ? await adminToken() : await issueToken(inject('otherKey'), tenant);
  const res = await call('POST', '/api/arthr/apiKeys', {
    tenant,
    token,
    body: { name: `key ${Math.random().toString(36).slice(2)}`, permissions: names.map((n) => `TNT#${tenant}#${n}`), ...extra },
  });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${res.text}`);
  return { id: res.json.id as string, secret: res.json.secret as string, key: res.json };
}

/** Polls a journey page until it shows `text` (the execution moves on asynchronously). */
export async function pageUntil(path: string, text: string, opts: CallOptions = {}, ms = 10_000): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await call('GET', path, opts);
    if (res.text.includes(text)) return res.text;
    if (Date.now() > deadline) throw new Error(`page never showed "${text}": ${res.text.slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls `probe` every 100 ms until it answers (anything but undefined), for at most `ms`. */
export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The events the runtime's relay put on its bus (its log's `event` records), in the order relayed. */
export function relayedEvents(): EventEnvelope[] {
  return readFileSync(inject('logFile'), 'utf8')
    .split('\n')
    .flatMap((line) => {
      if (!line.includes('"message":"event"')) return [];
      try {
        return [(JSON.parse(line) as { event: EventEnvelope }).event];
      } catch {
        return [];
      }
    });
}

/** A `multipart/form-data` body with one file (or none), as a browser's form post sends it. */
export function multipart(file: Buffer | undefined, opts: { name?: string; type?: string; field?: string } = {}) {
  const boundary = `----arthr${Math.random().toString(36).slice(2, 10)}`;
  const parts: Buffer[] = [];
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${opts.field ?? 'image'}"; filename="${opts.name ?? 'face.jpg'}"\r\n` +
          `Content-Type: ${opts.type ?? 'image/jpeg'}\r\n\r\n`,
      ),
      file,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { rawBody: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/**
 * Polls an instance until its journey has ended, and gives its final status: up to 45 s, as soon
 * as it has ended (a full CI run on the 2-core machine, Python sandboxes and browsers beside it,
 * once took over 15 s to record the end of a journey that takes 1.2 s alone).
 */
export async function finalStatus(id: string, token: string, opts: CallOptions = {}): Promise<string> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const s = (await call('GET', `/api/process-manager/processInstances/${id}`, { ...opts, token })).json.status as string;
    if (s !== 'ACTIVE' && s !== 'PENDING') return s;
    if (Date.now() > deadline) throw new Error(`instance ${id} stayed ${s}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A journey of a published definition (version 1), as a relying party starts one: a process
 * token with `parameters`, an instance of it; then its final status.
 */
export async function runJourney(token: string, definition: string, parameters: Record<string, string>): Promise<{ id: string; status: string }> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: { name: `${definition}-${Math.random().toString(36).slice(2, 10)}`, processDefnName: definition, processDefnVersion: '1', parameters },
  });
  if (pt.status !== 201) throw new Error(`process token: ${pt.status} ${pt.text}`);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  if (created.status !== 201) throw new Error(`instance: ${created.status} ${created.text}`);
  const id = created.json.processInstanceId as string;
  return { id, status: await finalStatus(id, token) };
}

/** Runs `use` with a client of the local table (the runtime's DynamoDB Local) and the table's name. */
async function withLocalTable<T>(use: (db: ReturnType<typeof localClient>, tableName: string) => Promise<T>): Promise<T> {
  const runtime = JSON.parse(readFileSync(join(inject('localDir'), 'runtime.json'), 'utf8')) as { dynamodbEndpoint: string; tableName: string };
  const db = localClient(runtime.dynamodbEndpoint);
  try {
    return await use(db, runtime.tableName);
  } finally {
    db.destroy();
  }
}

/** Sets a number attribute of an item in the local table, as time passing or many writes would. */
export function setNumberAttribute(PK: string, SK: string, name: string, value: number): Promise<unknown> {
  return withLocalTable((db, TableName) =>
    db.send(
      new UpdateItemCommand({
        TableName,
        Key: { PK: { S: PK }, SK: { S: SK } },
        UpdateExpression: 'SET #n = :v',
        ExpressionAttributeNames: { '#n': name },
        ExpressionAttributeValues: { ':v': { N: String(value) } },
      }),
    ),
  );
}

/** Writes an item into the local table as it is (a state the service's own writes reach only through a failure, such as a lost queue message). */
export function putLocalItem(item: Record<string, unknown>): Promise<unknown> {
  return withLocalTable((db, TableName) => db.send(new PutItemCommand({ TableName, Item: marshall(item, { removeUndefinedValues: true }) })));
}

/** Moves an item's TTL attribute into the past in the local table, as time passing would. */
export async function expireItem(PK: string, SK: string): Promise<void> {
  await setNumberAttribute(PK, SK, 'expiresAt', Math.floor(Date.now() / 1000) - 1);
}

/** The identity-check example under a fresh name, so tests do not collide. */
export function exampleNamed(name: string, version = 1): Record<string, any> {
  return { ...structuredClone(identityCheck as Record<string, unknown>), name, version };
}

/**
 * Rewrites an instance's item in the local table as if its end had never been recorded (a lost
 * record and a lost status-change event): the status is set back, and the instance put on the
 * reconciler's index as due now (or `dueInMs` from now). `stateMachineArn` can point it at a state
 * machine it never ran on.
 */
export async function unrecordEnd(
  tenantId: string,
  processInstanceId: string,
  set: { status: string; stateMachineArn?: string; dueInMs?: number },
): Promise<void> {
  const due = new Date(Date.now() + (set.dueInMs ?? -1000)).toISOString();
  await withLocalTable((db, TableName) =>
    db.send(
      new UpdateItemCommand({
        TableName,
        Key: { PK: { S: keys.instance(tenantId, processInstanceId).PK }, SK: { S: keys.instance(tenantId, processInstanceId).SK } },
        UpdateExpression: `SET #status = :status, GSI2PK = :open, GSI2SK = :due, reconcileAt = :at${set.stateMachineArn ? ', stateMachineArn = :arn' : ''}`,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':status': { S: set.status },
          // Its open-index shard, as the store puts an instance there (functions/store/keys.ts).
          ':open': { S: keys.instanceOpen(tenantId, due, processInstanceId).GSI2PK },
          ':due': { S: `${due}#${processInstanceId}` },
          ':at': { S: due },
          ...(set.stateMachineArn ? { ':arn': { S: set.stateMachineArn } } : {}),
        },
      }),
    ),
  );
}

/** An instance's item as stored in the local table (unmarshalled), or undefined. */
export function storedInstance(tenantId: string, processInstanceId: string): Promise<Record<string, unknown> | undefined> {
  return withLocalTable(async (db, TableName) => {
    const out = await db.send(new GetItemCommand({ TableName, Key: { PK: { S: `TNT#${tenantId}#PI#${processInstanceId}` }, SK: { S: 'PI' } }, ConsistentRead: true }));
    return out.Item && unmarshall(out.Item);
  });
}

/** An instance's newest session version (its process data, as the activities see it), from the local table. */
export function latestSession(tenantId: string, processInstanceId: string): Promise<Record<string, any>> {
  return withLocalTable(async (db, TableName) => {
    const out = await db.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :s)',
        ExpressionAttributeValues: { ':pk': { S: `TNT#${tenantId}#PI#${processInstanceId}` }, ':s': { S: 'SESSION#' } },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    return JSON.parse(out.Items![0]!.data!.S!);
  });
}

/**
 * A relying party's backend for the selfie-match example: a token asking for the `reference`
 * upload, an instance of it, and `reference` PUT with the URL and headers the creation answered
 * (nothing uploaded when it is undefined).
 */
export async function selfieMatchInstance(token: string, reference: Buffer | undefined): Promise<{ id: string; defnId: string; redirectUrl: string }> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: {
      name: `fm-${Math.random().toString(36).slice(2, 10)}`,
      processDefnName: 'selfie-match',
      processDefnVersion: 1,
      processInstanceInit: { externalSources: { faceUploads: { reference: { imageFormat: 'JPEG' } } } },
    },
  });
  expect(pt.status).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status).toBe(201);
  if (reference) {
    const { uploadUrl, uploadHeaders } = created.json.externalSources.faceUploads.reference;
    expect((await fetch(uploadUrl, { method: 'PUT', body: reference, headers: uploadHeaders })).status).toBe(200);
  }
  const id = created.json.processInstanceId as string;
  const defnId = (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.processDefnId as string;
  return { id, defnId, redirectUrl: created.json.redirectUrl };
}

/**
 * Publishes `activities` as a new definition (its start: `startActivityId`), makes a process token
 * and an instance of it, and opens the journey until its page shows `waitFor`: what a relying
 * party and its end user do first. `link` is the redirect URL in English, `c` its capability.
 */
export async function openNewJourney(
  token: string,
  prefix: string,
  startActivityId: string,
  activities: Record<string, unknown>,
  waitFor: string,
): Promise<{ id: string; link: string; path: string; c: string }> {
  const name = `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
  const made = await call('POST', '/api/process-manager/processDefinitions', { token, body: { name, version: 1, status: 'DEPLOYED_ACTIVE', startActivityId, activities } });
  if (made.status !== 201) throw new Error(`definition refused: ${made.text}`);
  const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `${name}-pt`, processDefnName: name, processDefnVersion: '1', parameters: {} } });
  if (pt.status !== 201) throw new Error(`process token refused: ${pt.text}`);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  if (created.status !== 201) throw new Error(`instance refused: ${created.text}`);
  const url = new URL(created.json.redirectUrl);
  const path = `${url.pathname}${url.search}&lang=en`;
  await pageUntil(path, waitFor);
  return { id: created.json.processInstanceId as string, link: `${created.json.redirectUrl}&lang=en`, path, c: url.searchParams.get('c')! };
}
