import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { call } from './client.js';

const ISSUE = '/api/arthr/apiKeys/issue';
// The suite's runtime runs with TOKEN_RATE_LIMIT=50 (test/integration/setup.ts: high enough that files
// issuing tokens for the demo tenant at once never meet it); this file bursts
// on a tenant of its own, so no other file's token issue meets it.
const LIMIT = 50;
const TENANT = 'burst';
let key: string;

beforeAll(() => {
  const made = spawnSync(process.execPath, ['--import', 'tsx', 'bin/operator.ts', 'create-tenant', '--tenant', TENANT, '--local', '--local-dir', inject('localDir')], {
    cwd: resolve(import.meta.dirname, '../..'),
    encoding: 'utf8',
  });
  expect(made.status, made.stderr).toBe(0);
  key = (JSON.parse(made.stdout) as { apiKey: string }).apiKey;
});

/** Waits for the start of a fresh second, so a burst falls in as few windows as possible. */
async function nextSecond() {
  await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
}

describe('the token issue rate limit', () => {
  it('answers 429 TOO_MANY_REQUESTS with Retry-After past the tenant’s token issues a second, and another tenant goes on', async () => {
    await nextSecond();
    const burst = await Promise.all(Array.from({ length: 3 * LIMIT }, () => call('POST', ISSUE, { tenant: TENANT, apiKey: key, body: {} })));
    const issued = burst.filter((r) => r.status === 200);
    const refused = burst.filter((r) => r.status === 429);
    expect(issued.length + refused.length).toBe(burst.length);
    expect(issued.length).toBeGreaterThanOrEqual(LIMIT);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.json.code).toBe('TOO_MANY_REQUESTS');
    expect(refused[0]!.headers['retry-after']).toBe('1');
    expect((await call('POST', ISSUE, { apiKey: inject('otherKey'), tenant: 'other', body: {} })).status).toBe(200);
  });

  it('does not count a caller without a valid key: guessing cannot spend the tenant’s budget', async () => {
    await nextSecond();
    // The tenant's own key id with another secret: the key's conditional write refuses it.
    const guessed = `${key.slice(0, -43)}${'A'.repeat(43)}`;
    const wrong = await Promise.all(Array.from({ length: 3 * LIMIT }, () => call('POST', ISSUE, { tenant: TENANT, apiKey: guessed, body: {} })));
    expect(wrong.every((r) => r.status === 401)).toBe(true);
    const right = await call('POST', ISSUE, { tenant: TENANT, apiKey: key, body: {} });
    expect(right.status).toBe(200);
  });
});
