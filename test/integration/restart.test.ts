import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { call, finalStatus, multipart, pageUntil } from './client.js';

const ROOT = resolve(import.meta.dirname, '../..');
const FACE = readFileSync(join(ROOT, 'test/fixtures/face-640x480.jpg'));
const dir = mkdtempSync(join(tmpdir(), 'arthr-restart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `npm start` as a newcomer runs it (bin/local.ts), in its own data folder. */
async function start(): Promise<{ child: ChildProcess; port: number; apiKey: string; output: () => string }> {
  rmSync(join(dir, 'runtime.json'), { force: true });
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOCAL_DIR: dir },
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 120_000;
  while (!existsSync(join(dir, 'runtime.json'))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const boot = JSON.parse(readFileSync(join(dir, 'bootstrap.json'), 'utf8'));
  expect(Object.keys(boot).sort()).toEqual(['apiKey', 'baseUrl', 'region', 'tenantId']);
  expect(boot).toMatchObject({ tenantId: 'demo', region: 'fir' });
  return { child, port: Number(new URL(boot.baseUrl).port), apiKey: boot.apiKey, output: () => out };
}

async function stop(child: ChildProcess): Promise<number | null> {
  child.kill('SIGINT');
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

describe('npm start', () => {
  // Two starts of the whole service (DynamoDB Local's JVM each time), one test: each start costs
  // tens of seconds on a loaded two-core machine.
  it('keeps its data and its undelivered webhooks across a restart, and stops cleanly on Ctrl-C', async () => {
    // The webhook endpoint fails until the service has been restarted, then takes everything.
    let accept = false;
    const got: { headers: Record<string, string>; body: string; status: number }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const status = accept ? 204 : 503;
        got.push({ headers: req.headers as Record<string, string>, body, status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
    // Retries two seconds apart: the restart comes before the last.
    process.env.WEBHOOK_RETRY_SECONDS = '2,2,2,2,2,2,2';
    try {
      const first = await start();
      expect(first.output()).toContain(`http://demo.fir.localhost:${first.port}`);
      expect(first.output()).toContain(first.apiKey);
      const issued = await call('POST', '/api/arthr/apiKeys/issue', { port: first.port, apiKey: first.apiKey, body: {} });
      expect(issued.status).toBe(200);
      const made = await call('POST', '/api/arthr/apiKeys', { port: first.port, token: issued.json.token, body: { name: 'survivor' } });
      expect(made.status).toBe(201);
      // A journey with a face image: the image (in the S3 stand-in) must survive the restart too.
      const on = { port: first.port, token: issued.json.token };
      const pt = await call('POST', '/api/process-manager/processTokens', {
        ...on,
        body: { name: 'restart', processDefnName: 'identity-check', processDefnVersion: 1, parameters: { firstName: 'Ann' } },
      });
      const instance = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, on);
      const link = new URL(instance.json.redirectUrl);
      const steps = `/journey/${link.pathname.split('/').pop()}/steps`;
      await pageUntil(`${link.pathname}${link.search}`, 'name="firstName"', { port: first.port });
      const form = new URLSearchParams({ firstName: 'Ann', lastName: 'Lee', dateOfBirth: '1990-04-01' }).toString();
      const formPosted = await call('POST', `${steps}/personalDetails${link.search}`, { port: first.port, rawBody: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(formPosted.status).toBe(303);
      await pageUntil(`${link.pathname}${link.search}`, 'id="face-form"', { port: first.port });
      expect((await call('POST', `${steps}/captureFace/face${link.search}`, { port: first.port, ...multipart(FACE) })).status).toBe(303);
      expect(await finalStatus(instance.json.processInstanceId, issued.json.token, { port: first.port })).toBe('COMPLETED_ENDED_SUCCESS');
      const defnId = (await call('GET', `/api/process-manager/processInstances/${instance.json.processInstanceId}`, on)).json.processDefnId;
      const userdata = `/api/userdata-server/processDefinitions/${defnId}/processInstances/${instance.json.processInstanceId}/userdata`;

      // Then a webhook whose deliveries fail until after the restart.
      const hook = await call('POST', '/api/webhook-manager/webhooks', { ...on, body: { url, eventTypes: ['process-instance.created'] } });
      expect(hook.status, hook.text).toBe(201);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, on)).json.processInstanceId);
      for (let i = 0; i < 300 && got.length < 3; i++) await new Promise((r) => setTimeout(r, 50));
      expect(got.length).toBeGreaterThanOrEqual(3);
      // Stopped in the middle of the retries: every delivery failed at least once, none delivered.
      expect(await stop(first.child)).toBe(0);
      expect(existsSync(join(dir, 'runtime.json'))).toBe(false);

      accept = true;
      const second = await start();
      expect(second.apiKey).toBe(first.apiKey);
      // The secret was shown once, at creation; now only where it is kept.
      for (let i = 0; i < 50 && !second.output().includes('Ctrl-C stops'); i++) await new Promise((r) => setTimeout(r, 100));
      expect(second.output()).toContain('bootstrap.json (shown when it was made)');
      expect(second.output()).not.toContain(second.apiKey);
      const again = await call('POST', '/api/arthr/apiKeys/issue', { port: second.port, apiKey: second.apiKey, body: {} });
      expect(again.status).toBe(200);
      const read = await call('GET', `/api/arthr/apiKeys/${made.json.id}`, { port: second.port, token: again.json.token });
      expect(read.status).toBe(200);
      expect(read.json.name).toBe('survivor');
      // The key made before the restart still works: its hash was kept, not its secret.
      expect((await call('POST', '/api/arthr/apiKeys/issue', { port: second.port, apiKey: made.json.secret, body: {} })).status).toBe(200);
      const kept = await call('GET', userdata, { port: second.port, token: again.json.token });
      expect(kept.status).toBe(200);
      expect(Buffer.from(kept.json.images[0].data, 'base64').equals(FACE)).toBe(true);

      // Up to a minute: the redeliveries wait for the restarted queue and sweeper, slow on a loaded machine.
      for (let i = 0; i < 1200; i++) {
        const delivered = new Set(got.filter((g) => g.status === 204).map((g) => g.headers['webhook-id']));
        if (delivered.size >= 3) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const events = new Map<string, { subject: { id: string } }>();
      for (const g of got.filter((x) => x.status === 204)) {
        const e = new Webhook(hook.json.secret).verify(g.body, g.headers) as { id: string; subject: { id: string } };
        events.set(e.id, e);
      }
      expect([...events.values()].map((e) => e.subject.id).sort()).toEqual([...ids].sort());
      expect(await stop(second.child)).toBe(0);
    } finally {
      delete process.env.WEBHOOK_RETRY_SECONDS;
      await new Promise((r) => receiver.close(r));
    }
  }, 300_000);
});
