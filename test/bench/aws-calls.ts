import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ensureTable, localClient, startDynamoDbLocal, type LocalDynamo } from '../../lib/local/dynamodb.js';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  background,
  count,
  countSignature,
  describeCommand,
  everything,
  newTally,
  since,
  snapshot,
  sum,
  within,
  type Counts,
  type Tally,
} from './counters.js';
import { baseEvent, withJwtClaims } from './lambda-events.js';
import type { CountingBus, TrackingEngine } from './orchestration.js';
import type { ProcessManagerCalls } from './process-calls.js';
import type { JourneyCost } from './journeys.js';
import { median, percentile, round } from './stats.js';

export const TOKEN_ISSUE_DYNAMODB_LIMIT = 1;
export const KEY_READ_DYNAMODB_LIMIT = 1;

const TABLE = 'arthr';
const REGION = 'fir';
const DOMAIN = 'localhost';
const TENANT = 'bench';
const ISSUER = 'http://localhost:1';
const AUDIENCE = 'arthr-api';

export type Handler = (e: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

export interface Invocation {
  status: number;
  ms: number;
  body: unknown;
  tally: Tally;
}

/** What the process-manager and journey measurements need from the set-up environment. */
export interface Harness {
  tenantId: string;
  host: string;
  apiKey: { id: string; secret: string };
  /** A bearer token signed by the bench's signer for the bench key, with every permission it holds. */
  bearer: string;
  /** One call of a real handler, counted in a fresh tally (and in `also`); throws unless it answers `expect`. */
  invoke(name: string, handler: Handler, event: APIGatewayProxyEventV2, opts?: { expect?: number; also?: Tally[] }): Promise<Invocation>;
  engine: TrackingEngine;
  /** The bus the outbox relay puts events on (EventBridge on AWS). */
  bus: CountingBus;
  /** The bench's own reads (polling an instance), kept out of every figure. */
  asBench<T>(fn: () => Promise<T>): Promise<T>;
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

export interface ShutdownFigures {
  /** Executions still running at the end, aborted by engine.shutdown(). */
  executionsAborted: number;
  /**
   * Of those, the ones whose end was already recorded when engine.shutdown() returned: the local
   * orchestrator records an end after `done` settles, which shutdown() does not wait for.
   */
  endsRecordedWhenShutdownReturned: number;
  /** Of those, the ones whose end was recorded (final status + event) before DynamoDB Local stopped (the bench waits up to 5 s each). */
  endsRecorded: number;
  /** Counts made after the measurements: recording the aborted executions' ends. */
  calls: { dynamodb: Counts; stepFunctions: Counts; events: Counts };
  /** Counts no tally claimed during the whole run (expected: none). */
  unattributed: { dynamodb: Counts; stepFunctions: Counts; events: Counts; lambda: Counts };
}

export interface AwsCallResults {
  dynamodbLocal: { endpoint: string; startMs: number };
  operations: OperationCalls[];
  latency: Latency[];
  processManager?: ProcessManagerCalls;
  journeyCost?: JourneyCost;
  shutdown?: ShutdownFigures;
  /** The outbox relay (the table stream's consumer): events relayed, and its calls (GetItem per event, PutEvents per 10). */
  relay?: { events: number; calls: { dynamodb: Counts; events: Counts } };
}

/**
 * Runs the real handlers in this process against DynamoDB Local and counts every AWS call they
 * make: SDK commands (a middleware on the process's DynamoDB client), HTTP requests that reach
 * the endpoint (a wrapper on its request handler), signature operations (a wrapper on the
 * signer, each one KMS Sign call on AWS), and the Step Functions and EventBridge calls (counting
 * orchestrator around the local engine, and the outbox relay's bus, an in-process sink fed by
 * the same poller of DynamoDB Local's stream as the local runtime's).
 */
export async function measureAwsCalls(opts: {
  reps: number;
  latencyRuns: number;
  warmup: number;
  journeyRuns: number;
  /** Called with each part as soon as it is measured (so a later failure keeps it). */
  onPart?: (part: Partial<AwsCallResults>) => void;
}): Promise<AwsCallResults> {
  const tmp = mkdtempSync(join(tmpdir(), 'arthr-bench-'));
  let local: LocalDynamo | undefined;
  let engine: TrackingEngine | undefined;
  let raw: DynamoDBClient | undefined;
  let streamClient: DynamoDBClient | undefined;
  let relay: import('../../lib/local/stream-poller.js').StreamPoller | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    const stopEngine = engine ? Promise.race([engine.shutdown(), new Promise((r) => setTimeout(r, 2000))]) : Promise.resolve();
    void stopEngine
      .catch(() => undefined)
      .then(() => local?.stop())
      .finally(() => {
        rmSync(tmp, { recursive: true, force: true });
        process.exit(signal === 'SIGINT' ? 130 : 143);
      });
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const results: Partial<AwsCallResults> = {};
  try {
    const keyPath = join(tmp, 'signing-key.pem');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(keyPath, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });

    const started = performance.now();
    local = await startDynamoDbLocal(join(tmp, 'dynamodb'));
    const startMs = performance.now() - started;
    results.dynamodbLocal = { endpoint: local.endpoint, startMs: round(startMs, 0) };

    // The handlers read their configuration from the environment, as in Lambda (cf. lib/local/runtime.ts).
    Object.assign(process.env, {
      TABLE_NAME: TABLE,
      DYNAMODB_ENDPOINT: local.endpoint,
      SERVICE_REGION: REGION,
      SERVICE_DOMAIN: DOMAIN,
      TOKEN_ISSUER: ISSUER,
      TOKEN_AUDIENCE: AUDIENCE,
      SIGNING_KEY: `file:${keyPath}`,
    });
    const { resetConfigForTests } = await import('../../functions/config.js');
    resetConfigForTests();

    const admin = localClient(local.endpoint);
    await ensureTable(admin, TABLE);
    admin.destroy();

    const { dynamo } = await import('../../functions/store/client.js');
    const { signerFor } = await import('../../functions/auth/signer.js');
    const { buildAccessTokenClaims, signAccessToken } = await import('../../functions/auth/jwt.js');
    const { createTenantWithFirstKey } = await import('../../functions/tenants/domain.js');
    const { tenantStore } = await import('../../functions/store/tenants.js');
    const { apiKeyStore } = await import('../../functions/store/api-keys.js');
    const { installOrchestrator } = await import('../../functions/process-manager/executions/orchestrator.js');
    const { installEventBus } = await import('../../functions/events/bus.js');
    const { relayRecords } = await import('../../functions/events/relay.js');
    const { relayDeps } = await import('../../functions/webhooks/on-table-stream.js');
    const { startStreamPoller } = await import('../../lib/local/stream-poller.js');
    const { benchEngine, countingOrchestrator, CountingBus } = await import('./orchestration.js');
    const { measureProcessManager } = await import('./process-calls.js');
    const { measureJourneys } = await import('./journeys.js');
    const issueToken = (await import('../../functions/api-keys/issue-token.js')).handler;
    const getApiKey = (await import('../../functions/api-keys/get-api-key.js')).handler;

    // --- the counters -------------------------------------------------------------------
    const bench = newTally('bench');
    const asBench = <T>(fn: () => Promise<T>) => within([bench], fn);
    raw = (await dynamo()).raw;
    raw.middlewareStack.add(
      (next, context) => async (args) => {
        const name = context.commandName ?? 'unknown';
        count('dynamodb', name);
        count('dynamodbItems', describeCommand(name, args.input));
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
      count('http', target.split('.').pop()!);
      return handle(request, options);
    };
    const signer = signerFor(process.env.SIGNING_KEY!);
    const sign = signer.sign.bind(signer);
    signer.sign = (data) => {
      countSignature();
      return sign(data);
    };

    // Journeys: the local engine behind the counting orchestrator (Step Functions on AWS), and the
    // outbox relay on the table's stream with a counting bus (EventBridge on AWS), installed as
    // the local runtime installs its own; the relay's calls are its own tally.
    engine = benchEngine();
    installOrchestrator(countingOrchestrator(engine));
    const bus = new CountingBus();
    installEventBus(bus);
    const relayTally = newTally('relay');
    streamClient = localClient(local.endpoint);
    relay = startStreamPoller({
      client: streamClient,
      endpoint: local.endpoint,
      tableName: TABLE,
      checkpointFile: join(tmp, 'stream-checkpoint.json'),
      handle: (records) => within([relayTally], () => relayRecords(relayDeps, records)),
    });

    const { made, bearer } = await asBench(async () => {
      const made = await createTenantWithFirstKey(
        { tenants: tenantStore, apiKeys: apiKeyStore },
        { tenantId: TENANT, region: REGION, keyName: 'bench', now: new Date(), actor: 'operator' },
      );
      // What a token issue for the bench key would hand out (and the JWT authorizer would accept).
      const claims = buildAccessTokenClaims({
        issuer: ISSUER,
        audience: AUDIENCE,
        region: REGION,
        tenantId: TENANT,
        apiKeyId: made.apiKey.id,
        permissions: made.apiKey.permissions,
        now: new Date(),
        ttlSeconds: 3600,
        jti: randomUUID(),
      });
      return { made, bearer: await signAccessToken(signer, claims) };
    });

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
    const getEvent = (): APIGatewayProxyEventV2 =>
      withJwtClaims(
        baseEvent({
          method: 'GET',
          path: `/api/arthr/apiKeys/${made.apiKey.id}`,
          routeKey: 'GET /api/arthr/apiKeys/{apiKeyId}',
          host,
          headers: {},
          pathParameters: { apiKeyId: made.apiKey.id },
        }),
        { sub: made.apiKey.id, tid: TENANT, scope: 'ArthrServer:getFromTenant' },
      );

    /** One call of the real handler; its access log line is kept off the report (shown on failure). */
    const invoke: Harness['invoke'] = async (name, handler, event, o = {}) => {
      const tally = newTally(name, { after: true });
      const logged: string[] = [];
      const write = process.stdout.write;
      process.stdout.write = ((chunk: string | Uint8Array) => {
        logged.push(String(chunk));
        return true;
      }) as typeof process.stdout.write;
      let res: APIGatewayProxyStructuredResultV2;
      const t0 = performance.now();
      let ms: number;
      try {
        res = await within([tally, ...(o.also ?? [])], () => handler(event));
      } finally {
        ms = performance.now() - t0;
        tally.open = false;
        process.stdout.write = write;
      }
      const expect = o.expect ?? 200;
      if (res.statusCode !== expect) {
        throw new Error(
          `${name} answered ${res.statusCode}, not ${expect}: ${res.body ?? ''}\nhandler log:\n${logged.join('').trim()}`,
        );
      }
      return { status: res.statusCode ?? 0, ms, body: res.body ? (JSON.parse(res.body) as unknown) : undefined, tally };
    };

    const summarise = (operation: OperationCalls['operation'], calls: Invocation[], limit: number): OperationCalls => {
      const n = calls.length;
      const dynamodb: Counts = {};
      for (const c of calls) for (const [k, v] of Object.entries(c.tally.dynamodb)) dynamodb[k] = (dynamodb[k] ?? 0) + v;
      for (const k of Object.keys(dynamodb)) dynamodb[k] = round(dynamodb[k]! / n, 2);
      const totals = calls.map((c) => sum(c.tally.dynamodb));
      const first = calls[0]!.tally;
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
          httpRequests: round(calls.reduce((a, c) => a + sum(c.tally.http), 0) / n, 2),
          signatures: round(calls.reduce((a, c) => a + c.tally.signatures, 0) / n, 2),
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
    results.operations = [
      summarise('issueToken', issues, TOKEN_ISSUE_DYNAMODB_LIMIT),
      summarise('getApiKey', reads, KEY_READ_DYNAMODB_LIMIT),
    ];
    opts.onPart?.(results);

    const harness: Harness = {
      tenantId: TENANT,
      host,
      apiKey: { id: made.apiKey.id, secret: made.secret },
      bearer,
      invoke,
      engine,
      bus,
      asBench,
    };

    // Process manager: instance creation and status read, then whole journeys.
    results.processManager = await measureProcessManager(harness, { reps: opts.reps });
    opts.onPart?.(results);
    results.journeyCost = await measureJourneys(harness, { runs: opts.journeyRuns });
    opts.onPart?.(results);

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
    results.latency = latency;

    // Shut the engine down while DynamoDB Local still runs: it aborts the journeys left waiting
    // at a user step, and their ends are recorded (a read, a status write, an event) as on AWS.
    const recorded = (name: string) =>
      bus.published.some((e) => e.subject.id === name && e.type === 'process-instance.completed');
    const waiting = [...engine.started.keys()].filter((name) => !recorded(name));
    const before = snapshot(everything);
    await asBench(() => engine!.shutdown());
    const endsRecordedWhenShutdownReturned = waiting.filter(recorded).length;
    let endsRecorded = 0;
    await asBench(async () => {
      for (const name of waiting) {
        await engine!.started.get(name);
        if (await bus.waitFor(name, (e) => e.type === 'process-instance.completed', 5000)) endsRecorded++;
      }
    });
    const delta = since(everything, before);
    results.shutdown = {
      executionsAborted: waiting.length,
      endsRecordedWhenShutdownReturned,
      endsRecorded,
      calls: { dynamodb: delta.dynamodbItems, stepFunctions: delta.stepFunctions, events: delta.events },
      unattributed: {
        dynamodb: background.dynamodbItems,
        stepFunctions: background.stepFunctions,
        events: background.events,
        lambda: background.lambda,
      },
    };
    await relay!.drained();
    results.relay = { events: bus.published.length, calls: { dynamodb: relayTally.dynamodbItems, events: relayTally.events } };
    return results as AwsCallResults;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // A no-op when the engine was already shut down above; after a failure, it stops the journeys.
    await engine?.shutdown().catch(() => undefined);
    await relay?.stop();
    streamClient?.destroy();
    raw?.destroy();
    await local?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
