import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, inject, it } from 'vitest';

/** A raw request to the local gateway, the body written as given (chunked when no length is set). */
function raw(opts: { path: string; headers: Record<string, string>; write: (req: ReturnType<typeof request>) => void }): Promise<{ status: number; body: string }> {
  return new Promise((ok, fail) => {
    let answered = false;
    const req = request({ host: '127.0.0.1', port: inject('port'), method: 'POST', path: opts.path, headers: { host: 'demo.fir.localhost', ...opts.headers } }, (res) => {
      answered = true;
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => ok({ status: res.statusCode!, body }));
    });
    // A write that fails after the answer came (the gateway answers before the body ends) is not the answer.
    req.on('error', (err) => !answered && fail(err));
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

describe('the local gateway at its request line and header limit (10,240 bytes, as the HTTP API)', () => {
  /** A GET written byte for byte: its request line and header values are exactly what is counted. */
  const get = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string }>((ok, fail) => {
      const socket = connect(inject('port'), '127.0.0.1');
      let raw = '';
      socket.on('data', (d) => (raw += d));
      socket.on('error', fail);
      socket.on('end', () => {
        const [head, ...rest] = raw.split('\r\n\r\n');
        // The JSON body, chunked or not (the chunk sizes are outside its braces).
        const body = rest.join('\r\n\r\n');
        ok({ status: Number(head!.split(' ')[1]), body: body.slice(body.indexOf('{'), body.lastIndexOf('}') + 1) });
      });
      const lines = [`GET ${path} HTTP/1.1`, 'Host: demo.fir.localhost', 'Connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
  // "GET {path} HTTP/1.1" and the values "demo.fir.localhost" and "close".
  const counted = (path: string) => `GET ${path} HTTP/1.1`.length + 'demo.fir.localhost'.length + 'close'.length;
  const pathOf = (total: number) => {
    const base = '/openapi.json?pad=';
    return base + 'x'.repeat(total - counted(base));
  };

  it('takes a request of exactly 10,240 bytes', async () => {
    expect(counted(pathOf(10_240))).toBe(10_240);
    expect((await get(pathOf(10_240))).status).toBe(200);
  });

  it('answers one byte more with 431 and the error body', async () => {
    const res = await get(pathOf(10_241));
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'REQUEST_HEADERS_TOO_LARGE' });
  });

  it('counts header values too, and answers a request past what the HTTP parser reads with the error body, not a reset', async () => {
    const big = await get('/openapi.json', { 'x-pad': 'y'.repeat(11_000) });
    expect(big.status).toBe(431);
    const huge = await get(pathOf(100_000));
    expect(huge.status).toBe(431);
    expect(JSON.parse(huge.body)).toMatchObject({ code: 'REQUEST_HEADERS_TOO_LARGE' });
  });
});
