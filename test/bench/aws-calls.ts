import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyStructuredResultV2,
} from 'aws-lambda';
import { ensureTable, localClient, startDynamoDbLocal, type LocalDynamo } from '../../lib/local/dynamodb.js';
import { median, percentile, round } from './stats.js';

export const TOKEN_ISSUE_DYNAMODB_LIMIT = 1;
export const KEY_READ_DYNAMODB_LIMIT = 1;

const TABLE = 'arthr';
const REGION = 'fir';
const DOMAIN = 'localhost';
const TENANT = 'bench';

type Counts = Record<string, number>;

interface Invocation {
  status: number;
  ms: number;
  /** AWS SDK commands sent through the DynamoDB client, by command name. */
  dynamodb: Counts;
  /** HTTP requests that reached the DynamoDB endpoint, by X-Amz-Target operation (retries included). */
  http: Counts;
  signatures: number;
}

export interface OperationCalls {
  operation: 'issueToken' | 'getApiKey';
  invocations: number;
  /** The first invocation in the process (cold caches). */
  firstCall: { dynamodb: Counts; dynamodbTotal: number; httpRequests: number; signatures: number };
  /** Means over all counted invocations. */
  perCall: {
    dynamodb: Counts;
    dynamodbTotal: number;
    dynamodbTotalMin: number;
    dynamodbTotalMax: number;
    httpRequests: number;
    /** `signer.sign` calls: each is one KMS Sign call on AWS (the local file signer makes none). */
    signatures: number;
    /** AWS calls other than DynamoDB made here: none can be, the local signer is a file. */
    kmsCallsLocal: number;
  };
  target: { dynamodbPerCallMax: number };
  verdict: 'OK' | 'OVER';
}

export interface Latency {
  operation: string;
  runs: number;
  medianMs: number;
  p95Ms: number;
  minMs: number;
  maxMs: number;
}

export interface AwsCallResults {
  dynamodbLocal: { endpoint: string; startMs: number };
  operations: OperationCalls[];
  latency: Latency[];
}

function bump(counts: Counts, key: string, by = 1): void {
  counts[key] = (counts[key] ?? 0) + by;
}

const sum = (c: Counts) => Object.values(c).reduce((a, b) => a + b, 0);

function baseEvent(opts: {
  method: string;
  path: string;
  routeKey: string;
  host: string;
  headers: Record<string, string>;
  body?: string;
  pathParameters?: Record<string, string>;
}): APIGatewayProxyEventV2 {
  const now = new Date();
  const requestId = randomUUID();
  return {
    version: '2.0',
    routeKey: opts.routeKey,
    rawPath: opts.path,
    rawQueryString: '',
    headers: { host: opts.host, 'user-agent': 'arthr-bench', ...opts.headers },
    requestContext: {
      accountId: '123456789012',
      apiId: 'bench',
      domainName: opts.host,
      domainPrefix: opts.host.split('.')[0]!,
      http: { method: opts.method, path: opts.path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'arthr-bench' },
      requestId,
      routeKey: opts.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(opts.pathParameters ? { pathParameters: opts.pathParameters } : {}),
    ...(opts.body !== undefined ? { body: opts.body } : {}),
    isBase64Encoded: false,
  };
}

/**
 * Runs the real token-issue and key-read handlers in this process against DynamoDB Local and
 * counts every AWS call they make: SDK commands (a middleware on the process's DynamoDB
 * client), HTTP requests that reach the endpoint (a wrapper on its request handler) and
 * signature operations (a wrapper on the signer, each one KMS Sign call on AWS).
 */
export async function measureAwsCalls(opts: { reps: number; latencyRuns: number; warmup: number }): Promise<AwsCallResults> {
  const tmp = mkdtempSync(join(tmpdir(), 'arthr-bench-'));
  let local: LocalDynamo | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    void (local?.stop() ?? Promise.resolve()).finally(() => {
      rmSync(tmp, { recursive: true, force: true });
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const keyPath = join(tmp, 'signing-key.pem');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(keyPath, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });

    const started = performance.now();
    local = await startDynamoDbLocal(join(tmp, 'dynamodb'));
    const startMs = performance.now() - started;

    // The handlers read their configuration from the environment, as in Lambda (cf. lib/local/runtime.ts).
    Object.assign(process.env, {
      TABLE_NAME: TABLE,
      DYNAMODB_ENDPOINT: local.endpoint,
      SERVICE_REGION: REGION,
      SERVICE_DOMAIN: DOMAIN,
      TOKEN_ISSUER: 'http://localhost:1',
      TOKEN_AUDIENCE: 'arthr-api',
      SIGNING_KEY: `file:${keyPath}`,
    });
    const { resetConfigForTests } = await import('../../functions/config.js');
    resetConfigForTests();

    const admin = localClient(local.endpoint);
    await ensureTable(admin, TABLE);
    admin.destroy();

    const { dynamo } = await import('../../functions/store/client.js');
    const { signerFor } = await import('../../functions/auth/signer.js');
    const { createTenantWithFirstKey } = await import('../../functions/tenants/domain.js');
    const { tenantStore } = await import('../../functions/store/tenants.js');
    const { apiKeyStore } = await import('../../functions/store/api-keys.js');
    const issueToken = (await import('../../functions/api-keys/issue-token.js')).handler;
    const getApiKey = (await import('../../functions/api-keys/get-api-key.js')).handler;

    const made = await createTenantWithFirstKey(
      { tenants: tenantStore, apiKeys: apiKeyStore },
      { tenantId: TENANT, region: REGION, keyName: 'bench', now: new Date(), principal: 'operator' },
    );

    // --- the counters -------------------------------------------------------------------
    let current: Invocation = { status: 0, ms: 0, dynamodb: {}, http: {}, signatures: 0 };
    const raw = (await dynamo()).raw;
    raw.middlewareStack.add(
      (next, context) => async (args) => {
        bump(current.dynamodb, context.commandName ?? 'unknown');
        return next(args);
      },
      { step: 'initialize', name: 'benchCounter' },
    );
    const requestHandler = raw.config.requestHandler as unknown as {
      handle(request: { headers: Record<string, string> }, options?: unknown): Promise<unknown>;
    };
    const handle = requestHandler.handle.bind(requestHandler);
    requestHandler.handle = (request, options) => {
      const target = request.headers['x-amz-target'] ?? request.headers['X-Amz-Target'] ?? 'unknown';
      bump(current.http, target.split('.').pop()!);
      return handle(request, options);
    };
    const signer = signerFor(process.env.SIGNING_KEY!);
    const sign = signer.sign.bind(signer);
    signer.sign = (data) => {
      current.signatures++;
      return sign(data);
    };

    // --- the requests -------------------------------------------------------------------
    const host = `${TENANT}.${REGION}.${DOMAIN}`;
    const issueEvent = () =>
      baseEvent({
        method: 'POST',
        path: '/api/arthr/apiKeys/issue',
        routeKey: 'POST /api/arthr/apiKeys/issue',
        host,
        headers: { 'x-api-key': made.secret, 'content-type': 'application/json' },
        body: '{}',
      });
    const getEvent = (): APIGatewayProxyEventV2 => {
      const e: APIGatewayProxyEventV2WithJWTAuthorizer = {
        ...baseEvent({
          method: 'GET',
          path: `/api/arthr/apiKeys/${made.apiKey.id}`,
          routeKey: 'GET /api/arthr/apiKeys/{apiKeyId}',
          host,
          headers: {},
          pathParameters: { apiKeyId: made.apiKey.id },
        }),
        requestContext: {
          ...baseEvent({ method: 'GET', path: '', routeKey: '', host, headers: {} }).requestContext,
          authorizer: {
            principalId: '',
            integrationLatency: 0,
            jwt: {
              claims: { sub: made.apiKey.id, tid: TENANT, scope: 'ArthrServer:getFromTenant' },
              scopes: ['ArthrServer:getFromTenant'],
            },
          },
        },
      };
      return e;
    };

    /** One call of the real handler; its access log line is kept off the report (shown on failure). */
    const invoke = async (
      name: string,
      handler: (e: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>,
      event: APIGatewayProxyEventV2,
    ): Promise<Invocation> => {
      current = { status: 0, ms: 0, dynamodb: {}, http: {}, signatures: 0 };
      const logged: string[] = [];
      const write = process.stdout.write;
      process.stdout.write = ((chunk: string | Uint8Array) => {
        logged.push(String(chunk));
        return true;
      }) as typeof process.stdout.write;
      let res: APIGatewayProxyStructuredResultV2;
      const t0 = performance.now();
      try {
        res = await handler(event);
      } finally {
        current.ms = performance.now() - t0;
        process.stdout.write = write;
      }
      current.status = res.statusCode ?? 0;
      if (res.statusCode !== 200) {
        throw new Error(
          `${name} answered ${res.statusCode}, not 200: ${res.body ?? ''}\nhandler log:\n${logged.join('').trim()}`,
        );
      }
      return current;
    };

    const summarise = (operation: OperationCalls['operation'], calls: Invocation[], limit: number): OperationCalls => {
      const n = calls.length;
      const dynamodb: Counts = {};
      for (const c of calls) for (const [k, v] of Object.entries(c.dynamodb)) bump(dynamodb, k, v);
      for (const k of Object.keys(dynamodb)) dynamodb[k] = round(dynamodb[k]! / n, 2);
      const totals = calls.map((c) => sum(c.dynamodb));
      const first = calls[0]!;
      const max = Math.max(...totals);
      return {
        operation,
        invocations: n,
        firstCall: {
          dynamodb: first.dynamodb,
          dynamodbTotal: sum(first.dynamodb),
          httpRequests: sum(first.http),
          signatures: first.signatures,
        },
        perCall: {
          dynamodb,
          dynamodbTotal: round(totals.reduce((a, b) => a + b, 0) / n, 2),
          dynamodbTotalMin: Math.min(...totals),
          dynamodbTotalMax: max,
          httpRequests: round(calls.reduce((a, c) => a + sum(c.http), 0) / n, 2),
          signatures: round(calls.reduce((a, c) => a + c.signatures, 0) / n, 2),
          kmsCallsLocal: 0,
        },
        target: { dynamodbPerCallMax: limit },
        verdict: max <= limit ? 'OK' : 'OVER',
      };
    };

    // Counting: the first call of each handler is the process's first (cold) one.
    const issues: Invocation[] = [];
    const reads: Invocation[] = [];
    for (let i = 0; i < opts.reps; i++) {
      issues.push(await invoke('issueToken', issueToken, issueEvent()));
      reads.push(await invoke('getApiKey', getApiKey, getEvent()));
    }
    const operations = [
      summarise('issueToken', issues, TOKEN_ISSUE_DYNAMODB_LIMIT),
      summarise('getApiKey', reads, KEY_READ_DYNAMODB_LIMIT),
    ];

    // Latency (informational): warm handlers, one call at a time.
    const latency: Latency[] = [];
    for (const [name, handler, event] of [
      ['issueToken', issueToken, issueEvent],
      ['getApiKey', getApiKey, getEvent],
    ] as const) {
      for (let i = 0; i < opts.warmup; i++) await invoke(name, handler, event());
      const ms: number[] = [];
      for (let i = 0; i < opts.latencyRuns; i++) ms.push((await invoke(name, handler, event())).ms);
      latency.push({
        operation: name,
        runs: ms.length,
        medianMs: round(median(ms), 2),
        p95Ms: round(percentile(ms, 95), 2),
        minMs: round(Math.min(...ms), 2),
        maxMs: round(Math.max(...ms), 2),
      });
    }

    raw.destroy();
    return { dynamodbLocal: { endpoint: local.endpoint, startMs: round(startMs, 0) }, operations, latency };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await local?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
