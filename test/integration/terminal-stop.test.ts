import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, pageUntil, until } from './client.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'arthr-ctrl-c-'));
const started: ChildProcess[] = [];
afterAll(() => {
  // A failed test may leave its service running: end its whole group.
  for (const child of started) if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/**
 * `npm start` in a terminal: npm, tsx and the service in one process group, the group's leader
 * being npm (spawned detached, so this test's own group is not the one signalled).
 */
async function npmStart(): Promise<{ child: ChildProcess; port: number; apiKey: string; output: () => string }> {
  const child = spawn('npm', ['start'], { cwd: ROOT, env: { ...process.env, PORT: '0', LOCAL_DIR: dir }, detached: true });
  started.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 120_000;
  while (!out.includes('Ctrl-C stops the service')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const boot = JSON.parse(readFileSync(join(dir, 'bootstrap.json'), 'utf8'));
  return { child, port: Number(new URL(boot.baseUrl).port), apiKey: boot.apiKey, output: () => out };
}

/** Ctrl-C as a terminal sends it: SIGINT to every process of the foreground group at once. */
async function ctrlC(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  process.kill(-child.pid!, 'SIGINT');
  return exited;
}

/** Waits for the service's own last line, with its output in the failure. */
async function stopped(run: { output: () => string }): Promise<void> {
  await until('the service to stop', () => (run.output().includes('\nStopped.\n') ? true : undefined), 120_000).catch((err: Error) => {
    throw new Error(`${err.message}; its output:\n${run.output().slice(-4000)}`);
  });
  // A part given up on (runtime.ts `within`): the stop went on, as it should, but say which.
  const late = run.output().split('\n').filter((line) => line.startsWith('stop: '));
  if (late.length) console.warn(`terminal-stop: ${late.join('; ')}`);
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

const OPEN = ['PENDING', 'ACTIVE', 'PAUSED'];

describe('npm start in a terminal', () => {
  it('ends the journeys in flight on Ctrl-C, and none is left open after the next start', async () => {
    const first = await npmStart();
    const token = (await call('POST', '/api/arthr/apiKeys/issue', { port: first.port, apiKey: first.apiKey, body: {} })).json.token as string;
    const on = { port: first.port, token };
    const pt = await call('POST', '/api/process-manager/processTokens', {
      ...on,
      body: { name: `ctrl-c-${Date.now()}`, processDefnName: 'identity-check', processDefnVersion: 1, parameters: { firstName: 'Ann' } },
    });
    expect(pt.status, pt.text).toBe(201);
    // Six journeys in flight: three opened by their end user (ACTIVE, waiting at the form), three not yet (PENDING).
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const made = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, on);
      expect(made.status, made.text).toBe(201);
      ids.push(made.json.processInstanceId);
      if (i % 2 === 0) {
        const link = new URL(made.json.redirectUrl);
        await pageUntil(`${link.pathname}${link.search}`, 'name="firstName"', { port: first.port });
      }
    }

    // A second start on the same data folder (another terminal) is refused before it touches
    // anything: its start would end every open journey, these live ones included.
    const twin = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], { cwd: ROOT, env: { ...process.env, PORT: '0', LOCAL_DIR: dir } });
    let twinOut = '';
    twin.stderr.on('data', (d) => (twinOut += d));
    expect(await new Promise((r) => twin.once('exit', r))).toBe(1);
    expect(twinOut).toContain(`Another local runtime (pid `);

    const before = await Promise.all(ids.map(async (id) => (await call('GET', `/api/process-manager/processInstances/${id}`, on)).json.status));
    expect(before.sort()).toEqual(['ACTIVE', 'ACTIVE', 'ACTIVE', 'PENDING', 'PENDING', 'PENDING']);

    // npm itself ends by the SIGINT (as in a terminal); the service's own end is what counts.
    const { dynamodbEndpoint } = JSON.parse(readFileSync(join(dir, 'runtime.json'), 'utf8')) as { dynamodbEndpoint: string };
    expect(await ctrlC(first.child)).toMatchObject({ signal: 'SIGINT' });
    // The service stops cleanly and nothing of it outlives it (DynamoDB Local, the cloud function runner).
    await stopped(first);
    await until('the whole process group to be gone', () => (groupAlive(first.child.pid!) ? undefined : true), 10_000);
    expect(existsSync(join(dir, 'runtime.json'))).toBe(false);
    await expect(fetch(dynamodbEndpoint), 'DynamoDB Local outlived the service').rejects.toThrow();
    expect(first.output()).not.toContain('could not record');
    expect(first.output()).toContain('6 journeys in flight ended (COMPLETED_TERMINATED).');

    const second = await npmStart();
    const again = (await call('POST', '/api/arthr/apiKeys/issue', { port: second.port, apiKey: second.apiKey, body: {} })).json.token as string;
    // Recorded by the stop itself: the next start has nothing left to end.
    const after = await Promise.all(ids.map(async (id) => (await call('GET', `/api/process-manager/processInstances/${id}`, { port: second.port, token: again })).json.status));
    expect(after).toEqual(ids.map(() => 'COMPLETED_TERMINATED'));
    expect(second.output()).not.toContain('left in flight');
    expect(await ctrlC(second.child)).toMatchObject({ signal: 'SIGINT' });
    await stopped(second);
  }, 300_000);

  it('ends at the next start, before its first answer, the journeys a stop could not record', async () => {
    const first = await npmStart();
    const token = (await call('POST', '/api/arthr/apiKeys/issue', { port: first.port, apiKey: first.apiKey, body: {} })).json.token as string;
    const on = { port: first.port, token };
    const pt = await call('POST', '/api/process-manager/processTokens', {
      ...on,
      body: { name: `lost-${Date.now()}`, processDefnName: 'identity-check', processDefnVersion: 1, parameters: { firstName: 'Ann' } },
    });
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const made = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, on);
      expect(made.status, made.text).toBe(201);
      ids.push(made.json.processInstanceId);
    }
    // DynamoDB Local gone before the stop (as when the terminal's Ctrl-C reached it first): the
    // stop cannot record the ends. Found by its data folder, which is this test's own.
    const java = execFileSync('pgrep', ['-f', `dbPath ${join(dir, 'dynamodb')}`], { encoding: 'utf8' }).trim().split('\n').map(Number);
    expect(java).toHaveLength(1);
    process.kill(java[0]!, 'SIGKILL');
    await ctrlC(first.child);
    await stopped(first);
    expect(first.output()).toContain('2 journeys in flight ended (COMPLETED_TERMINATED); 2 could not be recorded now, the next start ends them.');

    // Ended by the next start before it answers anything, as a stop would have: not left open for
    // the reconciler (due a quarter of an hour after creation, and it could only say COMPLETED_PROCESS_ERROR).
    const second = await npmStart();
    const again = (await call('POST', '/api/arthr/apiKeys/issue', { port: second.port, apiKey: second.apiKey, body: {} })).json.token as string;
    for (const id of ids) {
      const read = await call('GET', `/api/process-manager/processInstances/${id}`, { port: second.port, token: again });
      expect(read.json?.status, read.text).toBe('COMPLETED_TERMINATED');
    }
    expect(second.output()).toContain('journeys left in flight by the last run ended');
    await ctrlC(second.child);
    await stopped(second);
  }, 300_000);
});
