import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../lib/local/runtime.js';
import { processInstanceStore } from '../../functions/store/process-instances.js';
import { call } from './client.js';

/**
 * The local runtime in the test file's own process (its own data folder, a free port), started
 * before the file's tests with a bearer token of the bootstrap key, stopped after them: for tests
 * that reach inside (complete a user step as the pages do, read the stores) while the backend side
 * still goes over HTTP.
 */
export function inProcessRuntime(name: string, started?: (runtime: LocalRuntime) => void): { runtime(): LocalRuntime; token(): string } {
  const dir = mkdtempSync(join(tmpdir(), `arthr-${name}-`));
  let runtime: LocalRuntime | undefined;
  let token: string | undefined;
  beforeAll(async () => {
    runtime = await startLocalRuntime({ localDir: dir, port: 0 });
    started?.(runtime);
    const issued = await call('POST', '/api/arthr/apiKeys/issue', { port: runtime.port, apiKey: runtime.bootstrap!.apiKey, body: {} });
    token = issued.json.token;
  }, 120_000);
  afterAll(async () => {
    await runtime?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return { runtime: () => runtime!, token: () => token! };
}

/** Polls `probe` every 50 ms until it answers, for at most `ms`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The instance's waiting step once the journey waits at `activityId`. */
export const waitingAt = (id: string, activityId: string, ms?: number) =>
  until(
    `the journey to wait at ${activityId}`,
    async () => {
      const r = await processInstanceStore.get('demo', id);
      return r?.currentStep?.activityId === activityId ? r.currentStep : undefined;
    },
    ms,
  );
