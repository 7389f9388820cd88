import { rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCert } from '../support/self-signed.js';
import {
  checkOutboundUrl,
  classifyAddress,
  guardedFetch,
  OutboundFailed,
  OutboundRefused,
  type ResolvedAddress,
} from '../../functions/shared/outbound.js';

describe('classifyAddress', () => {
  it.each([
    // RFC 1918 at its edges
    ['9.255.255.255', undefined],
    ['10.0.0.0', 'private'],
    ['10.255.255.255', 'private'],
    ['11.0.0.0', undefined],
    ['172.15.255.255', undefined],
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.0', undefined],
    ['192.167.255.255', undefined],
    ['192.168.0.0', 'private'],
    ['192.168.255.255', 'private'],
    ['192.169.0.0', undefined],
    // CGNAT 100.64/10
    ['100.63.255.255', undefined],
    ['100.64.0.0', 'carrier-grade-nat'],
    ['100.127.255.255', 'carrier-grade-nat'],
    ['100.128.0.0', undefined],
    // loopback 127/8
    ['126.255.255.255', undefined],
    ['127.0.0.0', 'loopback'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.255', 'loopback'],
    ['128.0.0.0', undefined],
    // link-local and the metadata endpoint
    ['169.253.255.255', undefined],
    ['169.254.0.0', 'link-local'],
    ['169.254.169.254', 'cloud-metadata'],
    ['169.254.255.255', 'link-local'],
    ['169.255.0.0', undefined],
    // unspecified, multicast, reserved, broadcast
    ['0.0.0.0', 'unspecified'],
    ['0.255.255.255', 'unspecified'],
    ['1.0.0.0', undefined],
    ['223.255.255.255', undefined],
    ['224.0.0.0', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.0', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['8.8.8.8', undefined],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'cloud-metadata'],
    ['::ffff:8.8.8.8', undefined],
    ['::ffff:0:a00:1', 'private'],
    ['::7f00:1', 'reserved'],
    ['64:ff9b::a9fe:a9fe', 'cloud-metadata'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::808:808', undefined],
    ['64:ff9b:1::a00:1', 'reserved'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:808:808::1', undefined],
    ['2001::1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['fbff:ffff::1', 'reserved'],
    ['fc00::', 'unique-local'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique-local'],
    ['fd00:ec2::254', 'cloud-metadata'],
    ['fe7f:ffff::1', 'reserved'],
    ['fe80::', 'link-local'],
    ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['1fff:ffff::1', 'reserved'],
    ['2000::1', undefined],
    ['2606:4700:4700::1111', undefined],
    ['3fff:fff:ffff::1', 'reserved'],
    ['3fff:1000::1', undefined],
    ['4000::1', 'reserved'],
    ['not an address', 'reserved'],
  ])('classifies %s as %s', (address, rule) => {
    expect(classifyAddress(address)).toBe(rule);
  });
});

/** A resolver for names this machine cannot resolve; counts its calls. */
function fixedResolver(table: Record<string, string[]>) {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw new Error(`ENOTFOUND ${hostname}`);
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, calls };
}

async function refusal(promise: Promise<unknown>): Promise<OutboundRefused> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OutboundRefused);
  return err as OutboundRefused;
}

describe('checkOutboundUrl', () => {
  it('refuses plain http:// to a public address before resolving anything', async () => {
    const { resolve, calls } = fixedResolver({ 'example.com': ['93.184.215.14'] });
    expect((await refusal(checkOutboundUrl('http://example.com/', { resolve }))).rule).toBe('scheme');
    expect((await refusal(checkOutboundUrl('http://93.184.215.14/', { resolve }))).rule).toBe('scheme');
    expect((await refusal(checkOutboundUrl('ftp://example.com/', { resolve }))).rule).toBe('scheme');
    expect(calls).toEqual([]);
  });

  it('refuses IP literals in every spelling the URL parser accepts', async () => {
    for (const [url, rule] of [
      ['https://127.0.0.1/', 'loopback'],
      ['https://2130706433/', 'loopback'],
      ['https://0x7f.1/', 'loopback'],
      ['https://127.1:8000/', 'loopback'],
      ['https://[::1]/', 'loopback'],
      ['https://[::ffff:127.0.0.1]/', 'loopback'],
      ['https://169.254.169.254/latest/meta-data/', 'cloud-metadata'],
      ['https://[fd00:ec2::254]/latest/meta-data/', 'cloud-metadata'],
      ['https://10.1.2.3/', 'private'],
      ['https://0/', 'unspecified'],
    ] as const) {
      const refused = await refusal(checkOutboundUrl(url));
      expect(refused.rule, url).toBe(rule);
      expect(refused.name).toBe('OutboundRefused');
    }
  });

  it('refuses a host name when any of its addresses is private, and says so without the address', async () => {
    const { resolve } = fixedResolver({ 'mixed.example': ['93.184.215.14', '10.0.0.5'], 'inside.example': ['172.20.1.1'] });
    const mixed = await refusal(checkOutboundUrl('https://mixed.example/x', { resolve }));
    expect(mixed.rule).toBe('private');
    expect(mixed.message).toBe('https://mixed.example/x refused: the host is a private address (RFC 1918)');
    expect(mixed.message).not.toContain('10.0.0.5');
    expect((await refusal(checkOutboundUrl('https://inside.example/', { resolve }))).rule).toBe('private');
  });

  it('refuses localhost through the system resolver (/etc/hosts)', async () => {
    expect((await refusal(checkOutboundUrl('https://localhost/'))).rule).toBe('loopback');
  });

  it('refuses a user name or password in the URL', async () => {
    expect((await refusal(checkOutboundUrl('https://user:pw@example.com/'))).rule).toBe('credentials');
  });

  it('passes a name whose every address is public, and pins the first', async () => {
    const { resolve } = fixedResolver({ 'api.example': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] });
    const target = await checkOutboundUrl('https://api.example/v1', { resolve });
    expect(target).toMatchObject({ hostname: 'api.example', address: '93.184.215.14', family: 4, allowedByOrigin: false });
  });

  it('fails a name that does not resolve with OutboundFailed', async () => {
    const { resolve } = fixedResolver({});
    await expect(checkOutboundUrl('https://nowhere.example/', { resolve })).rejects.toMatchObject({ name: 'OutboundFailed', reason: 'unresolvable' });
  });

  it('lets an exact allowed origin through, and nothing beside it', async () => {
    const allowedOrigins = ['http://127.0.0.1:4566'];
    await expect(checkOutboundUrl('http://127.0.0.1:4566/bucket/key', { allowedOrigins })).resolves.toMatchObject({ allowedByOrigin: true });
    expect((await refusal(checkOutboundUrl('http://127.0.0.1:4567/', { allowedOrigins }))).rule).toBe('scheme');
    expect((await refusal(checkOutboundUrl('https://127.0.0.1:4566/', { allowedOrigins }))).rule).toBe('loopback');
    expect((await refusal(checkOutboundUrl('http://localhost:4566/', { allowedOrigins }))).rule).toBe('scheme');
  });

  it("rejects when the host is one of the local runtime's own endpoints, by any name of this machine, though loopback or its origin is allowed", async () => {
    const refusedEndpoints = ['http://127.0.0.1:4566', 'http://127.0.0.1:8000'];
    const { resolve } = fixedResolver({ localhost: ['127.0.0.1', '::1'], 'rebound.example': ['127.0.0.1'] });
    const opts = { refusedEndpoints, allowLoopback: true, allowedOrigins: ['http://127.0.0.1:4566'], resolve };
    for (const url of [
      'http://127.0.0.1:4566/arthr-images/tenants/demo/x.jpg',
      'https://127.0.0.1:8000/',
      'http://localhost:8000/',
      'http://[::1]:4566/',
      'http://[::ffff:127.0.0.1]:4566/',
      'http://127.0.0.2:8000/',
      'http://rebound.example:8000/',
      'http://0.0.0.0:4566/',
    ]) {
      const refused = await refusal(checkOutboundUrl(url, opts));
      expect(refused.rule, url).toBe('internal');
      expect(refused.message).toContain("the host is one of the local runtime's own services");
    }
    // Another port of this machine is the loopback allowance's to judge; the same port elsewhere is another machine's.
    await expect(checkOutboundUrl('http://127.0.0.1:4567/', opts)).resolves.toMatchObject({ allowedByOrigin: true });
    await expect(checkOutboundUrl('https://93.184.215.14:8000/', { refusedEndpoints })).resolves.toMatchObject({ allowedByOrigin: false });
  });
});

describe('guardedFetch against servers on this machine', () => {
  let dir: string;
  let cert: string;
  /** Stand-in for a loopback service (DynamoDB Local): counts every request that reaches it. */
  let plain: http.Server;
  let plainHits = 0;
  let plainOrigin: string;
  let tls: https.Server;
  let tlsPort: number;
  const seen: { path: string; host?: string; servername?: string | false | null; authorization?: string; method: string; body: string }[] = [];

  beforeAll(async () => {
    let key: Buffer;
    ({ dir, key, cert } = selfSignedCert('DNS:localhost,DNS:pinned.test,IP:127.0.0.1', 'outbound-test-'));

    plain = http.createServer((_req, res) => {
      plainHits++;
      res.end('inside');
    });
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    plainOrigin = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;

    tls = https.createServer({ key, cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'https://x');
        seen.push({
          path: url.pathname,
          host: req.headers.host,
          servername: (req.socket as TLSSocket).servername,
          authorization: req.headers.authorization,
          method: req.method ?? '',
          body: Buffer.concat(chunks).toString(),
        });
        const hop = /^\/hop\/(\d+)$/.exec(url.pathname);
        if (hop) {
          const n = Number(hop[1]);
          res.writeHead(302, { location: n > 0 ? `/hop/${n - 1}` : '/ok' }).end();
        } else if (url.pathname === '/to-loopback') {
          res.writeHead(302, { location: `${plainOrigin.replace('http:', 'https:')}/secret` }).end();
        } else if (url.pathname === '/to-plain') {
          res.writeHead(307, { location: `${plainOrigin}/secret` }).end();
        } else if (url.pathname === '/to-other-origin') {
          res.writeHead(307, { location: `https://pinned.test:${tlsPort}/ok` }).end();
        } else if (url.pathname === '/see-other') {
          res.writeHead(303, { location: '/ok' }).end();
        } else if (url.pathname === '/big') {
          res.writeHead(200, { 'content-length': '2048' }).end(Buffer.alloc(2048, 97));
        } else if (url.pathname === '/big-chunked') {
          res.writeHead(200);
          res.write(Buffer.alloc(1024, 97));
          res.end(Buffer.alloc(1024, 98));
        } else if (url.pathname === '/hang') {
          // Never answers: the client's timeout must end it.
        } else {
          res.writeHead(200, { 'content-type': 'text/plain', 'x-multi': ['a', 'b'] }).end(`ok ${req.method}`);
        }
      });
    });
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    tlsPort = (tls.address() as AddressInfo).port;
  });

  afterAll(async () => {
    tls.closeAllConnections();
    await new Promise((r) => tls.close(r));
    await new Promise((r) => plain.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const base = { timeoutMs: 2000, maxResponseBytes: 1024 * 1024 };
  const local = () => ({ ...base, ca: cert, allowedOrigins: [`https://localhost:${tlsPort}`] });

  it('refuses the loopback service without the escape hatch, and never reaches it', async () => {
    expect((await refusal(guardedFetch(`${plainOrigin}/`, {}, base))).rule).toBe('scheme');
    expect((await refusal(guardedFetch(plainOrigin.replace('http:', 'https:'), {}, base))).rule).toBe('loopback');
    expect(plainHits).toBe(0);
  });

  it('reaches the loopback service through an exact allowed origin', async () => {
    const response = await guardedFetch(`${plainOrigin}/x`, {}, { ...base, allowedOrigins: [plainOrigin] });
    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe('inside');
    expect(plainHits).toBe(1);
    plainHits = 0;
  });

  it('connects to the address it checked, with SNI and Host still the name asked for', async () => {
    const { resolve, calls } = fixedResolver({ 'pinned.test': ['127.0.0.1'] });
    seen.length = 0;
    const response = await guardedFetch(
      `https://pinned.test:${tlsPort}/pinned`,
      { headers: { Host: 'evil.example', 'X-Ok': '1' } },
      { ...base, ca: cert, resolve, allowedOrigins: [`https://pinned.test:${tlsPort}`] },
    );
    expect(response.status).toBe(200);
    expect(response.headers['x-multi']).toBe('a, b');
    expect(calls).toEqual(['pinned.test']);
    expect(seen).toEqual([expect.objectContaining({ path: '/pinned', host: `pinned.test:${tlsPort}`, servername: 'pinned.test' })]);
  });

  it('verifies the server certificate: a self-signed one fails without its CA', async () => {
    await expect(guardedFetch(`https://localhost:${tlsPort}/ok`, {}, { ...base, allowedOrigins: [`https://localhost:${tlsPort}`] })).rejects.toMatchObject({
      name: 'OutboundFailed',
      reason: 'network',
    });
  });

  it('refuses a redirect from an allowed https server to a loopback address, on the hop that goes there', async () => {
    expect((await refusal(guardedFetch(`https://localhost:${tlsPort}/to-loopback`, {}, local()))).rule).toBe('loopback');
    expect((await refusal(guardedFetch(`https://localhost:${tlsPort}/to-plain`, {}, local()))).rule).toBe('scheme');
    expect(plainHits).toBe(0);
  });

  it('follows at most maxRedirects redirects', async () => {
    const five = await guardedFetch(`https://localhost:${tlsPort}/hop/4`, {}, local());
    expect(five).toMatchObject({ status: 200, redirected: true, url: `https://localhost:${tlsPort}/ok` });
    await expect(guardedFetch(`https://localhost:${tlsPort}/hop/5`, {}, local())).rejects.toMatchObject({ reason: 'too-many-redirects' });
    await expect(guardedFetch(`https://localhost:${tlsPort}/hop/1`, {}, { ...local(), maxRedirects: 1 })).rejects.toMatchObject({ reason: 'too-many-redirects' });
  });

  it('returns a redirect as it is when asked to', async () => {
    const response = await guardedFetch(`https://localhost:${tlsPort}/hop/0`, { redirect: 'manual' }, local());
    expect(response).toMatchObject({ status: 302, redirected: false });
    expect(response.headers.location).toBe('/ok');
  });

  it('drops credentials on a redirect to another origin, and turns a 303 into a GET without its body', async () => {
    const { resolve } = fixedResolver({ 'pinned.test': ['127.0.0.1'], localhost: ['127.0.0.1'] });
    const opts = { ...base, ca: cert, resolve, allowedOrigins: [`https://localhost:${tlsPort}`, `https://pinned.test:${tlsPort}`] };
    seen.length = 0;
    await guardedFetch(`https://localhost:${tlsPort}/to-other-origin`, { headers: { Authorization: 'Bearer t' } }, opts);
    expect(seen.map((s) => [s.path, s.authorization])).toEqual([
      ['/to-other-origin', 'Bearer t'],
      ['/ok', undefined],
    ]);
    seen.length = 0;
    const response = await guardedFetch(`https://localhost:${tlsPort}/see-other`, { method: 'POST', body: 'payload' }, opts);
    expect(response.body.toString()).toBe('ok GET');
    expect(seen.map((s) => [s.method, s.body])).toEqual([
      ['POST', 'payload'],
      ['GET', ''],
    ]);
  });

  it('fails a response over the size bound, declared or streamed', async () => {
    const opts = { ...local(), maxResponseBytes: 2047 };
    await expect(guardedFetch(`https://localhost:${tlsPort}/big`, {}, opts)).rejects.toMatchObject({ reason: 'response-too-large' });
    await expect(guardedFetch(`https://localhost:${tlsPort}/big-chunked`, {}, opts)).rejects.toMatchObject({ reason: 'response-too-large' });
    const exact = await guardedFetch(`https://localhost:${tlsPort}/big-chunked`, {}, { ...local(), maxResponseBytes: 2048 });
    expect(exact.body.length).toBe(2048);
  });

  it('fails a request body over its bound before sending it', async () => {
    seen.length = 0;
    await expect(
      guardedFetch(`https://localhost:${tlsPort}/ok`, { method: 'POST', body: new Uint8Array(11) }, { ...local(), maxRequestBytes: 10 }),
    ).rejects.toMatchObject({ reason: 'request-too-large' });
    expect(seen).toEqual([]);
  });

  it('times out a server that never answers', async () => {
    const started = performance.now();
    const err = await guardedFetch(`https://localhost:${tlsPort}/hang`, {}, { ...local(), timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundFailed);
    expect(err).toMatchObject({ reason: 'timeout' });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('refuses header values with line breaks and methods that are not tokens', async () => {
    await expect(guardedFetch(`https://localhost:${tlsPort}/ok`, { headers: { 'x-a': 'b\r\nx-injected: 1' } }, local())).rejects.toMatchObject({
      reason: 'invalid-request',
    });
    await expect(guardedFetch(`https://localhost:${tlsPort}/ok`, { method: 'GET /x HTTP/1.1' }, local())).rejects.toMatchObject({
      reason: 'invalid-request',
    });
  });
});
