/**
 * For Node only: a fetch that reaches the local runtime's tenant hosts. `npm start` serves each
 * tenant at `http://{tenant}.fir.localhost:{port}`; browsers and curl send any `*.localhost` to
 * the loopback address themselves, but Node asks the system resolver, which on many machines
 * knows `localhost` alone (ENOTFOUND). This fetch connects to 127.0.0.1 and keeps the tenant's
 * host in the Host header, as the service expects; any other URL goes to the global fetch.
 */
import { request as httpRequest } from 'node:http';

export async function localhostFetch(input: Request): Promise<Response> {
  const url = new URL(input.url);
  if (url.protocol !== 'http:' || !url.hostname.endsWith('.localhost')) return fetch(input);
  const body = input.body ? Buffer.from(await input.arrayBuffer()) : undefined;
  const headers: Record<string, string> = Object.fromEntries(input.headers);
  headers.host = url.host;
  if (body) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: url.port || 80, method: input.method, path: url.pathname + url.search, headers, signal: input.signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const status = res.statusCode ?? 502;
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(name, v);
        }
        // A Response of these statuses may not have a body, even an empty one.
        const empty = status === 204 || status === 205 || status === 304;
        resolve(new Response(empty ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? '', headers: responseHeaders }));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
