import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer, type RequestListener } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { describe, expect, inject, it } from 'vitest';
import { createArthrClient, TokenExchangeError, TokenSource, type ArthrClient } from '../../clients/typescript/src/index.js';
import { localhostFetch } from '../../clients/typescript/src/node.js';
import { firstCalls } from '../../clients/typescript/examples/first-calls.js';
import { identityCheck, publishDefinition } from '../../clients/typescript/examples/definition.js';
import { createProcessToken } from '../../clients/typescript/examples/process-token.js';
import { startInstance } from '../../clients/typescript/examples/instance.js';
import { readUserData } from '../../clients/typescript/examples/user-data.js';
import { instanceEvents } from '../../clients/typescript/examples/status.js';
import { subscribe, verify, webhookHandler, type AnyEvent } from '../../clients/typescript/examples/webhook.js';
import { call, keyWith, until } from './client.js';

const baseUrl = () => `http://demo.fir.localhost:${inject('port')}`;
const fresh = (what: string) => `${what}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

/** The typed client as a relying party makes it, over HTTP to the local runtime, counting its token exchanges. */
function typedClient(apiKey = inject('demoKey'), now?: () => number) {
  const issued: string[] = [];
  const fetch = (request: Request) => {
    if (new URL(request.url).pathname === '/api/arthr/apiKeys/issue') issued.push(request.headers.get('x-api-key') ?? '');
    return localhostFetch(request);
  };
  return { client: createArthrClient({ baseUrl: baseUrl(), apiKey, fetch, ...(now ? { now } : {}) }), issued };
}

describe('the typed client (clients/typescript)', () => {
  it('is made from the document the service serves', async () => {
    const served = await call('GET', '/openapi.json', { tenant: null });
    expect(served.status).toBe(200);
    expect(served.json).toEqual(JSON.parse(readFileSync(new URL('../../clients/typescript/openapi.json', import.meta.url), 'utf8')));
  });

  it("runs the README's first calls: token, keys, process token, instance, read, search", async () => {
    const { client, issued } = typedClient();
    const result = await firstCalls(client);
    expect(issued).toHaveLength(1);
    expect(result.keys.length).toBeGreaterThan(0);
    expect(result.keys[0]).toMatchObject({ id: expect.any(String), status: expect.stringMatching(/^(ACTIVE|BLOCKED|ARCHIVED)$/) });
    expect(result.created.redirectUrl).toContain(result.created.processInstanceId);
    expect(result.instance).toMatchObject({ id: result.created.processInstanceId, processTokenId: result.processTokenId, processDefnName: 'identity-check', status: 'PENDING' });
    expect(Number.isInteger(result.instance.processDefnVersion)).toBe(true);
    // The search index follows the instance's write; the README's search finds it once it has.
    const found = await until('the instance in the search', async () => {
      const { data } = await client.GET('/api/process-manager/processInstances/search', { params: { query: { searchString: 'Ann', size: 100, sort: ['createdAt,desc'] } } });
      return data?.content.some((i) => i.id === result.created.processInstanceId) ? true : undefined;
    });
    expect(found).toBe(true);
  });

  it('publishes a definition, starts an instance of it and reads its user data and its events', async () => {
    const { client } = typedClient();
    const name = fresh('typed-client');
    const published = await publishDefinition(client, identityCheck(name));
    expect(published).toMatchObject({ status: 'DEPLOYED_ACTIVE', versions: [1] });
    const token = await createProcessToken(client, fresh('typed-client'), { name, version: '1' });
    const created = await startInstance(client, token.id);
    const userData = await readUserData(client, published.id, created.processInstanceId);
    expect(userData).toMatchObject({ status: 'PENDING', checks: [], images: [] });
    // What happened so far: its creation, as a webhook would have received it.
    const events = await until('the creation among its events', async () => {
      const read = await instanceEvents(client, created.processInstanceId);
      return read.length ? read : undefined;
    });
    expect(events[0]).toMatchObject({ type: 'process-instance.created', subject: { type: 'process-instance', id: created.processInstanceId }, data: { status: 'PENDING' } });
  });

  it('exchanges the key again only shortly before the token expires', async () => {
    let clock = Date.now();
    const { client, issued } = typedClient(inject('demoKey'), () => clock);
    const first = await client.tokens!.token();
    clock += 3600_000 - 61_000; // the default ttl, less a little more than the refresh margin
    expect(await client.tokens!.token()).toBe(first);
    expect(issued).toHaveLength(1);
    clock += 2_000; // now within the margin of the expiry
    const [a, b] = await Promise.all([client.tokens!.token(), client.tokens!.token()]);
    expect(a).toBe(b);
    expect(issued).toHaveLength(2);
  });

  it("answers the service's error typed: a refused key, and a key without the permission", async () => {
    const wrong = new TokenSource('not-a-key', { baseUrl: baseUrl(), fetch: localhostFetch });
    const refused = await wrong.token().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TokenExchangeError);
    expect(refused).toMatchObject({ status: 401, body: { code: expect.any(String) } });

    const narrow = await keyWith(['ProcessManager:getProcessInstance']);
    const { client } = typedClient(narrow.secret);
    const { data, error, response } = await client.GET('/api/arthr/apiKeys', {});
    expect(data).toBeUndefined();
    expect(response.status).toBe(403);
    expect(error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  });

  it('verifies with the webhook example what the service signs, and refuses what it did not', async () => {
    const { client } = typedClient();
    const got: AnyEvent[] = [];
    // The secret is shown when the webhook is made, which needs the receiver's URL first.
    let handle: RequestListener | undefined;
    const server = createServer((req, res) => (handle ? handle(req, res) : res.writeHead(503).end()));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      const hook = await subscribe(client, url, ['webhook.test']);
      handle = webhookHandler(hook.secret, (event) => got.push(event));
      const sent = await client.POST('/api/webhook-manager/webhooks/{webhookId}/test', { params: { path: { webhookId: hook.webhookId } } });
      expect(sent.response.status).toBe(202);
      const event = await until('the test event', () => got[0]);
      expect(event).toMatchObject({ type: 'webhook.test', data: { webhookId: hook.webhookId } });
      // Signed with another secret, or a body changed after signing: refused.
      const body = JSON.stringify(event);
      const at = new Date();
      const signedBy = (secret: string, payload: string) => ({
        'webhook-id': event.id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign(event.id, at, payload),
      });
      expect(verify(hook.secret, body, signedBy(hook.secret, body))).toMatchObject({ id: event.id });
      expect(verify(hook.secret, body, signedBy(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, body))).toBeUndefined();
      expect(verify(hook.secret, body.replace('webhook.test', 'webhook.tset'), signedBy(hook.secret, body))).toBeUndefined();
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
