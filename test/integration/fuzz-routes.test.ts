import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type * as z4 from 'zod/v4/core';
import * as z from '../../functions/shared/zod.js';
import { routeList } from '../../functions/routes.js';
import type { RouteDef } from '../../functions/http/route.js';
import { ErrorBodySchema } from '../../functions/shared/schemas.js';
import { call, exampleNamed, issueToken, type CallOptions, type Reply } from './client.js';
import { invalid, valid } from '../fuzz/arbitrary.js';

/**
 * Property-based fuzzing of every route in the route table, from its own zod schemas, over HTTP
 * against the local runtime, in a tenant of its own (`fuzz`): requests of each route's shape
 * (path, query, headers, body) and requests broken in one place. For every answer:
 * - never a 5xx;
 * - a refusal of a JSON route has the error body (`code`, `message`, `details`?); a page's is HTML;
 * - a 2xx is a status the route declares, and its JSON body matches the declared schema.
 *
 * FUZZ_RUNS (default 12) sets the requests per route and kind (valid, invalid); fast-check prints
 * the seed and the shrunk request of a failure, and FUZZ_SEED replays one.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const TENANT = 'fuzz';

/** Values the tenant really has, drawn for path parameters besides made-up ones, so that reads and changes find something. */
const known: Record<string, string[]> = {};
let token: string;
let key: string;

async function ok(res: Promise<Reply>, what: string): Promise<any> {
  const r = await res;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text}`);
  return r.json;
}

beforeAll(async () => {
  key = inject('fuzzKey');
  token = await issueToken(key, TENANT);
  const as = (body?: unknown): CallOptions => ({ tenant: TENANT, token, body });
  const def = await ok(call('POST', '/api/process-manager/processDefinitions', as(exampleNamed('fuzz-def'))), 'definition');
  const pt = await ok(call('POST', '/api/process-manager/processTokens', as({ name: 'fuzz-pt', processDefnName: 'fuzz-def', processDefnVersion: '1' })), 'token');
  const pi = await ok(call('POST', `/api/process-manager/processInstances/create?pt=${pt.id}`, as()), 'instance');
  const url = new URL(pi.redirectUrl ?? pi.uiUrl ?? 'http://x/', 'http://x');
  await ok(call('POST', '/api/identity-store/stores', as({ name: 'fuzzstore', passcodePolicies: { pin: { requirements: { minimumLength: 4 } } } })), 'store');
  await ok(
    call('POST', '/api/identity-store/stores/fuzzstore/passkeyConfig', as({ rpId: 'localhost', rpName: 'Fuzz', allowedOrigins: ['http://localhost'], registrationPolicies: { reg: {} }, authenticationPolicies: { auth: {} } })),
    'passkey config',
  );
  const user = await ok(call('POST', '/api/identity-store/stores/fuzzstore/users', as({ externalId: 'fuzz-user' })), 'user');
  const spare = await ok(call('POST', '/api/arthr/apiKeys', as({ name: 'fuzz-spare', permissions: [`TNT#${TENANT}#ArthrServer:getFromTenant`] })), 'key');
  Object.assign(known, {
    processDefinitionId: [def.id ?? def.processDefinitionId, 'fuzz-def'],
    processDefnId: [def.id ?? def.processDefinitionId],
    processTokenId: [pt.id],
    processInstanceId: [pi.processInstanceId],
    activityId: ['personalDetails', 'faceCapture'],
    c: [url.searchParams.get('c') ?? ''],
    storeName: ['fuzzstore'],
    userId: [user.user?.id ?? user.id, 'fuzz-user'],
    policyName: ['pin'],
    regPolicyName: ['reg'],
    authPolicyName: ['auth'],
    rpId: ['localhost'],
    apiKeyId: [spare.id],
    status: ['DEPLOYED_ACTIVE', 'ARCHIVED', 'DRAFT'],
  });
}, 120_000);

const shapeOf = (schema: z4.$ZodType | undefined): Record<string, z4.$ZodType> =>
  (schema?._zod.def as unknown as { shape?: Record<string, z4.$ZodType> } | undefined)?.shape ?? {};

/** A path parameter: one the tenant has, or one drawn from the route's path schema. */
function paramArb(route: RouteDef, name: string): fc.Arbitrary<string> {
  const schema = shapeOf(route.request.path)[name];
  const drawn = (schema ? valid(schema) : fc.string({ minLength: 1, maxLength: 20 })).map((v) => String(v));
  const have = known[name]?.filter(Boolean) ?? [];
  const any = fc.string({ minLength: 1, maxLength: 30 });
  return fc.oneof(
    ...(have.length ? [{ weight: 3, arbitrary: fc.constantFrom(...have) }] : []),
    { weight: 3, arbitrary: drawn },
    { weight: 1, arbitrary: any },
  );
}

interface Drawn {
  path: string;
  query: string;
  body?: unknown;
  rawBody?: Buffer;
  headers: Record<string, string>;
  auth: 'token' | 'key' | 'none';
}

function queryString(value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return '';
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(value)) {
    for (const item of Array.isArray(v) ? v : [v]) if (item !== undefined) q.append(k, typeof item === 'object' ? JSON.stringify(item) : String(item));
  }
  return q.toString();
}

function requestArb(route: RouteDef, broken: boolean): fc.Arbitrary<Drawn> {
  const names = [...route.path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1]!);
  const path = fc.tuple(...names.map((n) => paramArb(route, n))).map((values) =>
    names.reduce((p, n, i) => p.replace(new RegExp(`\\{${n}\\+?\\}`), encodeURIComponent(values[i]!)), route.path),
  );
  const queryArb = route.request.query ? (broken ? fc.oneof(valid(route.request.query), invalid(route.request.query)) : valid(route.request.query)) : fc.constant({});
  const withC = names.includes('processInstanceId') && route.auth === 'endUser';
  const query = fc.tuple(queryArb, fc.option(fc.constantFrom(...(known.c?.length ? known.c : ['x'])), { nil: undefined })).map(([q, c]) => {
    const s = queryString(q);
    const extra = withC && c !== undefined ? `c=${encodeURIComponent(c)}` : '';
    return [s, extra].filter(Boolean).join('&');
  });
  const auth = fc.constantFrom<Drawn['auth']>(...(route.auth === 'bearerOrApiKey' ? (['token', 'key'] as const) : route.auth === 'apiKey' ? (['key'] as const) : route.auth === 'bearer' ? (['token'] as const) : (['none'] as const)));
  const body: fc.Arbitrary<Pick<Drawn, 'body' | 'rawBody' | 'headers'>> = route.request.multipart
    ? fc.tuple(fc.uint8Array({ maxLength: 2048 }), fc.constantFrom('image/jpeg', 'image/png', 'text/plain')).map(([bytes, type]) => {
        const boundary = 'fuzzboundary';
        const rawBody = Buffer.concat([
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="f"\r\nContent-Type: ${type}\r\n\r\n`),
          Buffer.from(bytes),
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]);
        return { rawBody, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
      })
    : route.request.form
      ? fc.dictionary(fc.string({ maxLength: 20 }), fc.string({ maxLength: 100 }), { maxKeys: 6 }).map((f) => ({
          rawBody: Buffer.from(new URLSearchParams(f).toString()),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }))
      : route.request.body
        ? (broken ? invalid(route.request.body) : valid(route.request.body)).map((b) => ({ body: b, headers: {} }))
        : fc.constant({ headers: {} });
  return fc.record({ path, query, auth, body }).map(({ path: p, query: q, auth: a, body: b }) => ({ path: p, query: q, auth: a, ...b }));
}

async function send(route: RouteDef, req: Drawn): Promise<Reply> {
  const opts: CallOptions = { tenant: TENANT, headers: req.headers };
  if (req.auth === 'token') opts.token = token;
  if (req.auth === 'key') opts.apiKey = key;
  if (req.rawBody) opts.rawBody = req.rawBody;
  else if (req.body !== undefined) opts.rawBody = JSON.stringify(req.body);
  if (req.body !== undefined) opts.headers = { ...opts.headers, 'content-type': 'application/json' };
  if (route.auth === 'public' && route.path.startsWith('/.well-known')) opts.tenant = null;
  return call(route.method, `${req.path}${req.query ? `?${req.query}` : ''}`, opts);
}

function judge(route: RouteDef, req: Drawn, res: Reply): void {
  const where = `${route.operationId} ${route.method} ${req.path}?${req.query} → ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, where).toBeGreaterThanOrEqual(200);
  expect(res.status, where).toBeLessThan(500);
  const type = String(res.headers['content-type'] ?? '');
  if (res.status >= 400) {
    if (route.html && type.startsWith('text/html')) return;
    expect(type, where).toContain('application/json');
    expect(z.safeParse(ErrorBodySchema, res.json).success, where).toBe(true);
    expect(res.json.code, where).toMatch(/^[A-Z][A-Z0-9_]+$/);
    return;
  }
  if (res.status >= 300) return; // a page's redirect
  const declared = route.responses[res.status];
  expect(declared, where).toBeDefined();
  if (declared!.schema && !declared!.contentType && type.includes('json')) {
    const parsed = z.safeParse(declared!.schema, res.json);
    expect(parsed.success, `${where}\n${parsed.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`).toBe(true);
  }
}

describe('fuzzing every route from its schemas', () => {
  for (const route of routeList) {
    it(`${route.operationId}: ${route.method} ${route.path}`, async () => {
      for (const broken of [false, true]) {
        await fc.assert(
          fc.asyncProperty(requestArb(route, broken), async (req) => judge(route, req, await send(route, req))),
          { numRuns: RUNS, seed: SEED, endOnFailure: false, interruptAfterTimeLimit: 40_000 },
        );
      }
    }, 60_000);
  }
});

describe('a body nested 5,050 deep on every route', () => {
  // What the second attack run sent: 10 KB of `{"a":[` that exhausted the stack in the
  // request parser before any credential was checked. Every route answers 4xx, with or without
  // a valid credential, whether it takes a body or not.
  const deep = '{"a":['.repeat(2_525) + ']}'.repeat(2_525);
  for (const route of routeList) {
    if (route.request.multipart || route.request.form) continue;
    it(`${route.operationId}: ${route.method} ${route.path}`, async () => {
      const path = route.path.replace(/\{(\w+)\+?\}/g, (_m, name: string) => encodeURIComponent(known[name]?.[0] ?? 'x'));
      for (const auth of ['none', 'valid'] as const) {
        const opts: CallOptions = { tenant: route.auth === 'public' && route.path.startsWith('/.well-known') ? null : TENANT, rawBody: deep, headers: { 'content-type': 'application/json' } };
        if (auth === 'valid' && (route.auth === 'bearer' || route.auth === 'bearerOrApiKey')) opts.token = token;
        if (auth === 'valid' && route.auth === 'apiKey') opts.apiKey = key;
        if (auth === 'none' && route.auth === 'apiKey') opts.apiKey = 'not-a-key';
        const res = await call(route.method, path, opts);
        const where = `${route.operationId} (${auth}) → ${res.status} ${res.text.slice(0, 200)}`;
        expect(res.status, where).toBeLessThan(500);
        if (route.request.body && (auth === 'valid' || route.auth === 'apiKey' || route.auth === 'public' || route.auth === 'endUser')) {
          expect(res.json?.code ?? res.text, where).toMatch(/^(BODY_TOO_DEEP|PAYLOAD_TOO_LARGE)$/);
        }
      }
    });
  }
});
