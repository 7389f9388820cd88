/**
 * `npm run demo`: the typical integration flow against a running `npm start`, as a relying
 * party's backend would do it, printing each call and its answer. It ends with the redirect URL
 * for a person to open in a browser, then follows the instance's status until the journey ends
 * (Ctrl-C to stop watching), and reads what the end user provided: the user data, the checks,
 * and the password-protected archive (written next to the local data).
 *
 * Reads the base URL and the demo key from .local/bootstrap.json (LOCAL_DIR to change).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';

const dir = process.env.LOCAL_DIR ?? '.local';
let boot: { baseUrl: string; apiKey: string };
try {
  boot = JSON.parse(readFileSync(join(dir, 'bootstrap.json'), 'utf8'));
} catch {
  console.error(`No ${join(dir, 'bootstrap.json')}: start the service first with \`npm start\`.`);
  process.exit(2);
}
const base = new URL(boot.baseUrl);

/** Plain HTTP to loopback with the tenant host, so no resolver for *.localhost is needed. */
function send(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; json: any; raw: Buffer }> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((ok, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: Number(base.port),
        method,
        path,
        headers: { host: base.host, ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const json = (res.headers['content-type'] ?? '').includes('json') && raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
          ok({ status: res.statusCode ?? 0, json, raw });
        });
      },
    );
    req.on('error', (err) => fail(new Error(`${err.message}: is \`npm start\` running on ${boot.baseUrl}?`)));
    if (payload) req.write(payload);
    req.end();
  });
}

const secret = (s: string) => (s.length > 16 ? `${s.slice(0, 12)}…` : s);

async function step(title: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  console.log(`\n== ${title}\n${method} ${boot.baseUrl}${path}`);
  if (body !== undefined) console.log(JSON.stringify(body, null, 2));
  const res = await send(method, path, headers, body);
  // Long values (a token, an image's base64) are cut short for the screen.
  const shown = JSON.parse(JSON.stringify(res.json ?? null, (k, v) => (typeof v === 'string' && (k === 'token' || k === 'data') ? secret(v) : v)));
  console.log(`-> ${res.status}\n${JSON.stringify(shown, null, 2)}`);
  if (res.status >= 400) process.exit(1);
  return res.json;
}

const issued = await step('1. Exchange the API key for a bearer token', 'POST', '/api/arthr/apiKeys/issue', { 'x-api-key': boot.apiKey }, {});
const auth = { authorization: `Bearer ${issued.token}` };
const token = await step('2. Create a process token for the identity-check journey', 'POST', '/api/process-manager/processTokens', auth, {
  name: `demo ${new Date().toISOString()}`,
  processDefnName: 'identity-check',
  processDefnVersion: '1',
  parameters: { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com' },
});
const created = await step('3. Create a process instance', 'POST', `/api/process-manager/processInstances/create?pt=${token.id}`, auth);
const read = () => send('GET', `/api/process-manager/processInstances/${created.processInstanceId}`, auth);
await step('4. Read its status', 'GET', `/api/process-manager/processInstances/${created.processInstanceId}`, auth);

console.log(`\n== 5. Open this in a browser (add &lang=de for German):\n${created.redirectUrl}\n`);
console.log('Watching the status (Ctrl-C to stop)...');
let last = '';
for (;;) {
  const { json } = await read();
  if (json.status !== last) console.log(`${new Date().toISOString()}  ${json.status}`);
  last = json.status;
  if (!['PENDING', 'ACTIVE'].includes(last)) break;
  await new Promise((r) => setTimeout(r, 1000));
}

// What the relying party reads afterwards.
const defnId = (await read()).json.processDefnId;
const userData = `/api/userdata-server/processDefinitions/${defnId}/processInstances/${created.processInstanceId}`;
await step('6. Read what the end user provided (images base64 in `data`, cut short here)', 'GET', `${userData}/userdata`, auth);
await step('7. Read the check results', 'GET', `${userData}/userdata/checks`, auth);
const password = `Demo-${randomBytes(12).toString('base64url')}`;
console.log(`\n== 8. Download the user data as an AES-256 zip\nPOST ${boot.baseUrl}${userData}/userdataarchive`);
const zip = await send('POST', `${userData}/userdataarchive`, auth, { config: { password } });
if (zip.status !== 200) {
  console.log(`-> ${zip.status}\n${zip.raw.toString('utf8')}`);
  process.exit(1);
}
const file = join(dir, `userdata-${created.processInstanceId}.zip`);
writeFileSync(file, zip.raw, { mode: 0o600 });
console.log(`-> 200, ${zip.raw.length} bytes written to ${file}\n   password: ${password}`);
// AES-256 entries: Info-ZIP's unzip (Debian's) cannot open them; these two can (docs/instances.md#user-data).
console.log(`   open it with: 7z x -p'${password}' ${file}   (or: bsdtar -xf ${file} --passphrase '${password}')`);
