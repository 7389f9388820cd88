import { request } from 'node:http';
import { describe, expect, inject, it } from 'vitest';

/** A raw request to the local gateway, the body written as given (chunked when no length is set). */
function raw(opts: { path: string; headers: Record<string, string>; write: (req: ReturnType<typeof request>) => void }): Promise<{ status: number; body: string }> {
  return new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port: inject('port'), method: 'POST', path: opts.path, headers: { host: 'demo.fir.localhost', ...opts.headers } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => ok({ status: res.statusCode!, body }));
    });
    req.on('error', fail);
    opts.write(req);
  });
}

describe('the local gateway at its body limit', () => {
  const over = Buffer.alloc(10 * 1024 * 1024 + 1, 0x20);

  it('answers a declared length over 10 MB with 413 and the error body, not a reset', async () => {
    const res = await raw({
      path: '/api/process-manager/processTokens',
      headers: { 'content-type': 'application/json', 'content-length': String(over.length) },
      write: (req) => req.end(over),
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('answers a chunked body that grows over 10 MB the same way', async () => {
    const res = await raw({
      path: '/api/process-manager/processTokens',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      write: (req) => {
        for (let at = 0; at < over.length; at += 1024 * 1024) req.write(over.subarray(at, at + 1024 * 1024));
        req.end();
      },
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('refuses a Host with two ports', async () => {
    const res = await raw({ path: '/api/arthr/apiKeys/issue', headers: { host: 'demo.fir.localhost:80:80', 'x-api-key': inject('demoKey'), 'content-type': 'application/json', 'content-length': '2' }, write: (req) => req.end('{}') });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'INVALID_HOST' });
  });
});
