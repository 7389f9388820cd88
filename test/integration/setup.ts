import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

const ROOT = resolve(import.meta.dirname, '../..');

declare module 'vitest' {
  export interface ProvidedContext {
    port: number;
    localDir: string;
    logFile: string;
    demoKey: string;
    otherKey: string;
  }
}

async function waitFor<T>(what: string, probe: () => T | undefined, child: ChildProcess, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (child.exitCode !== null) throw new Error(`the local runtime exited (${child.exitCode}) before ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => (code === 0 ? ok(out) : fail(new Error(`${args.join(' ')} exited ${code}: ${err}`))));
  });
}

/**
 * Starts the service exactly as `npm start` does (bin/local.ts in a child process) on a free
 * port with its own data folder, and makes a second tenant with the operator CLI.
 */
export default async function setup(project: TestProject) {
  const localDir = mkdtempSync(join(tmpdir(), 'arthr-it-'));
  const logFile = join(localDir, 'service.log');
  const log = openSync(logFile, 'a');
  const env = { ...process.env, PORT: '0', LOCAL_DIR: localDir, LOG_LEVEL: 'INFO', SWEEP_INTERVAL_SECONDS: '1' };
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], { cwd: ROOT, env, stdio: ['ignore', log, log] });

  const bootstrapPath = join(localDir, 'bootstrap.json');
  const runtimePath = join(localDir, 'runtime.json');
  await waitFor('the service to start', () => (existsSync(runtimePath) ? true : undefined), child);
  const bootstrap = JSON.parse(readFileSync(bootstrapPath, 'utf8')) as { baseUrl: string; apiKey: string };
  const port = Number(new URL(bootstrap.baseUrl).port);

  const made = JSON.parse(
    await run(['bin/operator.ts', 'create-tenant', '--tenant', 'other', '--local', '--local-dir', localDir], env),
  ) as { apiKey: string };

  project.provide('port', port);
  project.provide('localDir', localDir);
  project.provide('logFile', logFile);
  project.provide('demoKey', bootstrap.apiKey);
  project.provide('otherKey', made.apiKey);

  return async () => {
    child.kill('SIGINT');
    await new Promise((r) => child.once('exit', r));
    rmSync(localDir, { recursive: true, force: true });
  };
}
