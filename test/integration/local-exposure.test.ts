import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { call } from './client.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** The sockets listening on this machine, from /proc (Linux): `{address, port}` in text form. */
function listening(): { address: string; port: number }[] {
  const out: { address: string; port: number }[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 4 || cols[3] !== '0A') continue; // 0A: LISTEN
      const [hex, port] = cols[1]!.split(':');
      out.push({ address: addressOf(hex!), port: parseInt(port!, 16) });
    }
  }
  return out;
}

/** /proc's little-endian hex address as text: 0100007F is 127.0.0.1; IPv4-mapped IPv6 as ::ffff:a.b.c.d. */
function addressOf(hex: string): string {
  const v4 = (h: string) => [6, 4, 2, 0].map((i) => parseInt(h.slice(i, i + 2), 16)).join('.');
  if (hex.length === 8) return v4(hex);
  const words = [0, 8, 16, 24].map((i) => hex.slice(i, i + 8));
  if (words[0] === '00000000' && words[1] === '00000000' && words[2] === 'FFFF0000') return `::ffff:${v4(words[3]!)}`;
  if (words.every((w) => w === '00000000')) return '::';
  return words.join(':');
}

const LOOPBACK = ['127.0.0.1', '::ffff:127.0.0.1'];

function portsOf(localDir: string): { dynamodb: number; s3: number } {
  const info = JSON.parse(readFileSync(join(localDir, 'runtime.json'), 'utf8')) as { dynamodbEndpoint: string; s3Endpoint: string };
  return { dynamodb: Number(new URL(info.dynamodbEndpoint).port), s3: Number(new URL(info.s3Endpoint).port) };
}

describe('the local runtime keeps to this machine', () => {
  it('the addresses parse as /proc writes them', () => {
    expect(addressOf('0100007F')).toBe('127.0.0.1');
    expect(addressOf('00000000')).toBe('0.0.0.0');
    expect(addressOf('0000000000000000FFFF00000100007F')).toBe('::ffff:127.0.0.1');
    expect(addressOf('00000000000000000000000000000000')).toBe('::');
  });

  it('DynamoDB Local, the S3 stand-in and the API listen on loopback only', () => {
    const localDir = inject('localDir');
    const { dynamodb, s3 } = portsOf(localDir);
    const sockets = listening();
    for (const port of [dynamodb, s3, inject('port')]) {
      const on = sockets.filter((s) => s.port === port);
      expect(on.length, `something listens on ${port}`).toBeGreaterThan(0);
      for (const s of on) expect(LOOPBACK, `port ${port} listens on ${s.address}`).toContain(s.address);
    }
  });

  it('keeps its data folder and secrets readable by this user only', () => {
    const localDir = inject('localDir');
    expect(statSync(localDir).mode & 0o077).toBe(0);
    expect(statSync(join(localDir, 'dynamodb')).mode & 0o077).toBe(0);
    expect(statSync(join(localDir, 's3')).mode & 0o077).toBe(0);
    for (const secret of ['signing-key.pem', 'bootstrap.json', 'exports-key.bin']) expect(statSync(join(localDir, secret)).mode & 0o077).toBe(0);
  });
});

describe('a killed service leaves nothing running', () => {
  const dir = mkdtempSync(join(tmpdir(), 'arthr-kill-'));
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (): Promise<number> => {
    rmSync(join(dir, 'started'), { force: true });
    child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], { cwd: ROOT, env: { ...process.env, PORT: '0', LOCAL_DIR: dir }, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    const deadline = Date.now() + 120_000;
    while (!out.includes('Ctrl-C stops')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the service did not start: ${out}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    return Number(/localhost:(\d+)/.exec(out)![1]);
  };

  it('DynamoDB Local ends when the service is killed with SIGKILL, and the next start ends the journeys it left', async () => {
    const port = await start();
    const apiKey = (JSON.parse(readFileSync(join(dir, 'bootstrap.json'), 'utf8')) as { apiKey: string }).apiKey;
    const token = (await call('POST', '/api/arthr/apiKeys/issue', { port, apiKey, body: {} })).json.token as string;
    const pt = await call('POST', '/api/process-manager/processTokens', {
      port,
      token,
      body: { name: 'crash', processDefnName: 'identity-check', processDefnVersion: 1, parameters: { firstName: 'Ann' } },
    });
    const instance = (await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { port, token })).json.processInstanceId as string;
    const { dynamodb } = portsOf(dir);
    expect(listening().some((s) => s.port === dynamodb)).toBe(true);
    child!.kill('SIGKILL');
    const gone = Date.now() + 20_000;
    while (listening().some((s) => s.port === dynamodb) && Date.now() < gone) await new Promise((r) => setTimeout(r, 200));
    expect(listening().some((s) => s.port === dynamodb), 'DynamoDB Local still listens after the service was killed').toBe(false);

    // The journey died with the engine: the next start ends its instance rather than leave it ACTIVE.
    const again = await start();
    const token2 = (await call('POST', '/api/arthr/apiKeys/issue', { port: again, apiKey, body: {} })).json.token as string;
    const read = await call('GET', `/api/process-manager/processInstances/${instance}`, { port: again, token: token2 });
    expect(read.json.status).toBe('COMPLETED_TERMINATED');
    child!.kill('SIGINT');
    await new Promise((r) => child!.once('exit', r));
  }, 360_000);
});
