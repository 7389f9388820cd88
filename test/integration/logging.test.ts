import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { adminToken, call, issueToken } from './client.js';

describe('the service log', () => {
  it('never holds a secret, a token or a journey capability, even for refused requests', async () => {
    const admin = await adminToken();
    const created = await call('POST', '/api/arthr/apiKeys', { token: admin, body: { name: 'logged?', permissions: ['TNT#demo#ArthrServer:getFromTenant'] } });
    const secret: string = created.json.secret;
    const token = await issueToken(secret);
    await call('GET', `/api/arthr/apiKeys/${created.json.id}`, { token });
    await call('GET', '/api/arthr/apiKeys', { token }); // 403
    await call('POST', '/api/arthr/apiKeys/issue', { apiKey: `${secret}tampered`, body: {} }); // 401
    await call('GET', '/api/arthr/apiKeys', { token: `${token}x` }); // 401
    await call('POST', '/api/arthr/apiKeys', { token: admin, rawBody: `{"name":"${secret}"`, headers: { 'content-type': 'application/json' } });
    // An end user's capability, used on the journey pages, and a wrong one.
    const pt = await call('POST', '/api/process-manager/processTokens', {
      token: admin,
      body: { name: `log-${Date.now()}`, processDefnName: 'identity-check', processDefnVersion: 1 },
    });
    const instance = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token: admin });
    const capability = new URL(instance.json.redirectUrl).searchParams.get('c')!;
    await call('GET', `/journey/${instance.json.processInstanceId}?c=${capability}`);
    await call('GET', `/journey/${instance.json.processInstanceId}?c=${capability.slice(1)}x`);
    await new Promise((r) => setTimeout(r, 500));

    const log = readFileSync(inject('logFile'), 'utf8');
    expect(log).toContain('"operationId":"issueToken"'); // the log is written at all
    // The key's random part, after `ak_{id}_`: itself base64url, so it may hold `_` (splitting on the last one could leave a letter or two, found in any text).
    const secretPart = secret.slice(secret.indexOf('_', 3) + 1);
    expect(secretPart).toHaveLength(43);
    for (const needle of [secret, secretPart, token, token.split('.')[2]!, admin, admin.split('.')[2]!, capability, capability.slice(1)]) {
      expect(log.includes(needle), `log contains ${needle.slice(0, 12)}...: ${log.split("\n").find((l) => l.includes(needle))?.slice(0, 400)}`).toBe(false);
    }
    // The only secret on the console is the demo key that `npm start` prints for the newcomer,
    // in its banner; no log record carries any secret or token at all.
    const records = log.split('\n').filter((l) => l.startsWith('{'));
    expect(records.length).toBeGreaterThanOrEqual(6);
    for (const record of records) {
      expect(record).not.toMatch(/ak_[0-9a-f]{32}_[A-Za-z0-9_-]{43}/);
      expect(record).not.toMatch(/eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/);
    }
    const banner = log.split('\n').filter((l) => !l.startsWith('{')).join('\n');
    expect(banner.replaceAll(inject('demoKey'), '')).not.toMatch(/ak_[0-9a-f]{32}_[A-Za-z0-9_-]{43}/);
  });

  it('gives each request one access record with its request id, correlation id, tenant and operation', async () => {
    const admin = await adminToken();
    const correlationId = `it-${Date.now()}`;
    const res = await call('GET', '/api/arthr/apiKeys', { token: admin, headers: { 'x-correlation-id': correlationId } });
    await new Promise((r) => setTimeout(r, 300));
    const records = readFileSync(inject('logFile'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const mine = records.filter((r) => r.correlationId === correlationId);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      level: 'INFO',
      message: 'request',
      service: 'arthr',
      operationId: 'listApiKeys',
      tenantId: 'demo',
      requestId: res.headers['x-request-id'],
      status: 200,
      cold_start: expect.any(Boolean),
    });
    // Without a correlation id of the caller's, a request's own id stands in.
    const plain = records.find((r) => r.message === 'request' && r.operationId === 'issueToken')!;
    expect(plain.correlationId).toBe(plain.requestId);
  });
});
