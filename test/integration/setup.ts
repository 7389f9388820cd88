import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { compareUsage } from './aws-access.js';

const ROOT = resolve(import.meta.dirname, '../..');

declare module 'vitest' {
  export interface ProvidedContext {
    port: number;
    localDir: string;
    logFile: string;
    demoKey: string;
    otherKey: string;
    /** The all-permission key of `fuzz`, a tenant of its own for fuzz-routes.test.ts to change at random. */
    fuzzKey: string;
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
  const usageFile = join(localDir, 'aws-usage.json');
  const log = openSync(logFile, 'a');
  // JSON log lines, as on AWS (npm start's default is one short line per request): the suite reads
  // them (relayed events, response declarations, what a log must never hold).
  const env = { ...process.env, PORT: '0', LOCAL_DIR: localDir, LOG_LEVEL: 'INFO', LOG_FORMAT: 'json', SWEEP_INTERVAL_SECONDS: '2', RECONCILE_INTERVAL_SECONDS: '1', RECORD_AWS_USAGE: usageFile, VALIDATE_RESPONSES: '1',
    // Low enough for token-rate-limit.test.ts to exceed on its own tenant, above what any other file issues a second.
    TOKEN_RATE_LIMIT: '50',
    // Webhook retries after 1 to 3 s instead of 5 s to 10 h: the same schedule's shape, in a test's time.
    WEBHOOK_RETRY_SECONDS: '1,1,2,2,3,3,3',
    // The webhook sweeper every second, taking what is 15 s overdue (20 minutes on AWS).
    WEBHOOK_SWEEP_INTERVAL_SECONDS: '1', WEBHOOK_SWEEP_MARGIN_SECONDS: '15',
    // The metrics' EMF lines in the log, as on AWS: sandbox.test.ts checks test mode is counted in none.
    POWERTOOLS_METRICS_DISABLED: 'false' };
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], { cwd: ROOT, env, stdio: ['ignore', log, log] });

  const bootstrapPath = join(localDir, 'bootstrap.json');
  const runtimePath = join(localDir, 'runtime.json');
  await waitFor('the service to start', () => (existsSync(runtimePath) ? true : undefined), child);
  const bootstrap = JSON.parse(readFileSync(bootstrapPath, 'utf8')) as { baseUrl: string; apiKey: string };
  const port = Number(new URL(bootstrap.baseUrl).port);

  const tenant = async (id: string) =>
    (JSON.parse(await run(['bin/operator.ts', 'create-tenant', '--tenant', id, '--local', '--local-dir', localDir], env)) as { apiKey: string }).apiKey;
  const [otherKey, fuzzKey] = await Promise.all([tenant('other'), tenant('fuzz')]);

  project.provide('port', port);
  project.provide('localDir', localDir);
  project.provide('logFile', logFile);
  project.provide('demoKey', bootstrap.apiKey);
  project.provide('otherKey', otherKey);
  project.provide('fuzzKey', fuzzKey);

  return async () => {
    child.kill('SIGINT');
    await new Promise((r) => child.once('exit', r));
    // Least privilege, checked against use: every AWS action the suite made through each
    // operation is one its role is granted, and every grant was used (or is listed with why).
    const problems = existsSync(usageFile)
      ? compareUsage(JSON.parse(readFileSync(usageFile, 'utf8')) as Record<string, string[]>)
      : ['the local runtime wrote no AWS usage record'];
    // The OpenAPI document, proven: every answer the suite got was one its route declares.
    const mismatches = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"message":"response does not match its declaration"'));
    rmSync(localDir, { recursive: true, force: true });
    if (mismatches.length) {
      console.error(`FAIL responses: ${mismatches.length} answer(s) not as their route declares:\n${mismatches.join('\n')}`);
      process.exitCode = 1;
    }
    if (problems.length) {
      // Vitest reports an error thrown here without failing the run, so fail it explicitly.
      console.error(`FAIL least privilege: AWS grants and use differ:\n${problems.join('\n')}`);
      process.exitCode = 1;
    } else {
      console.log('least privilege: every AWS action used was granted, and every grant was used');
    }
  };
}
