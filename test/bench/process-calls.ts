/**
 * AWS calls of the process manager's hot operations, counted per call on DynamoDB Local with
 * the real handlers: instance creation (create-process-instance, three ways of calling it) and
 * the instance status read (get-process-instance).
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Handler, Harness, Invocation } from './aws-calls.js';
import { READ_COMMANDS, WRITE_COMMANDS, meanCounts, newTally, opName, sum, within, type Counts, type Tally } from './counters.js';
import { baseEvent, withJwtClaims } from './lambda-events.js';
import { round } from './stats.js';

export const IDENTITY_CHECK = 'identity-check';

/** What one call (or the mean of several) cost, by kind of AWS call. */
export interface CallFigures {
  /** DynamoDB commands by operation (`GetItem`). */
  dynamodb: Counts;
  /** DynamoDB commands by operation and item addressed (`GetItem processToken`). */
  dynamodbByItem: Counts;
  dynamodbTotal: number;
  reads: number;
  writes: number;
  /** Reads made to authenticate the caller (the API key item, for X-API-Key). */
  authReads: number;
  httpRequests: number;
  /** Step Functions API calls (orchestrator calls). */
  stepFunctions: Counts;
  /** EventBridge PutEvents (event publisher calls). */
  events: Counts;
  /** Activity function invocations (Lambda invokes by Step Functions on AWS). */
  lambda: Counts;
  /** KMS Sign on AWS. */
  signatures: number;
}

export interface ProcessOperationCalls {
  operation: 'createProcessInstance' | 'getProcessInstance';
  /** How the caller authenticated. */
  auth: string;
  invocations: number;
  firstCall: CallFigures;
  /** Means over all counted invocations. */
  perCall: CallFigures & { dynamodbTotalMin: number; dynamodbTotalMax: number };
  target: string;
  verdict: 'OK' | 'OVER' | 'OFF';
  /** Why a verdict is not OK, per kind of excess. */
  problems: string[];
}

export interface ProcessManagerCalls {
  /** One-off set-up through the real code paths (not per operation). */
  setup: { publishDefinition: CallFigures; createProcessToken: CallFigures; definition: string; processTokenId: string };
  operations: ProcessOperationCalls[];
  /** Work each created instance set off after the response: its journey reaching the first user step. */
  afterCreation: { instances: number; perInstance: CallFigures; firstStep: string };
  /** Status reads with the tenant rate limit on, as on AWS: what the limit adds to a read, and the pace beside DynamoDB Local's own. */
  rateLimitedStatusReads: RateLimitedReads;
}

/** The most DynamoDB calls a rate-limited status read may cost on average: its GetItem, and a lease write now and then. */
export const RATE_LIMITED_READ_TARGET = 1.1;

export interface RateLimitedReads {
  limitPerSecond: number;
  reads: number;
  dynamodbPerRead: number;
  leaseWritesPerRead: number;
  /** Reads a second through the handler, and bare GetItems of the same item a second, in the same run. */
  readsPerSecond: number;
  getItemsPerSecond: number;
  /** readsPerSecond / getItemsPerSecond: how near the handler comes to the storage's own ceiling. */
  ratioToGetItemCeiling: number;
  target: string;
  verdict: 'OK' | 'OVER';
}

export function figuresOf(t: Tally): CallFigures {
  const dynamodb: Counts = {};
  for (const [k, v] of Object.entries(t.dynamodb)) dynamodb[opName(k)] = (dynamodb[opName(k)] ?? 0) + v;
  const of = (set: Set<string>) => Object.entries(dynamodb).reduce((a, [k, v]) => a + (set.has(k) ? v : 0), 0);
  return {
    dynamodb,
    dynamodbByItem: { ...t.dynamodbItems },
    dynamodbTotal: sum(dynamodb),
    reads: of(READ_COMMANDS),
    writes: of(WRITE_COMMANDS),
    authReads: t.dynamodbItems['GetItem apiKey'] ?? 0,
    httpRequests: sum(t.http),
    stepFunctions: { ...t.stepFunctions },
    events: { ...t.events },
    lambda: { ...t.lambda },
    signatures: t.signatures,
  };
}

export function meanFigures(list: CallFigures[]): CallFigures {
  const n = list.length;
  const mean = (f: (c: CallFigures) => number) => round(list.reduce((a, c) => a + f(c), 0) / n, 2);
  return {
    dynamodb: meanCounts(list.map((c) => c.dynamodb), n),
    dynamodbByItem: meanCounts(list.map((c) => c.dynamodbByItem), n),
    dynamodbTotal: mean((c) => c.dynamodbTotal),
    reads: mean((c) => c.reads),
    writes: mean((c) => c.writes),
    authReads: mean((c) => c.authReads),
    httpRequests: mean((c) => c.httpRequests),
    stepFunctions: meanCounts(list.map((c) => c.stepFunctions), n),
    events: meanCounts(list.map((c) => c.events), n),
    lambda: meanCounts(list.map((c) => c.lambda), n),
    signatures: mean((c) => c.signatures),
  };
}

type Judge = (f: CallFigures) => { over: string[]; off: string[] };

/** "Instance creation = one transactional write + one StartExecution", nothing else written or started. */
const creationTarget: Judge = (f) => {
  const tw = f.dynamodb.TransactWriteItems ?? 0;
  const start = f.stepFunctions.StartExecution ?? 0;
  const over: string[] = [];
  const off: string[] = [];
  if (tw > 1) over.push(`TransactWriteItems ${tw}`);
  if (tw < 1) off.push('no TransactWriteItems');
  if (f.writes - tw > 0) over.push(`${f.writes - tw} other DynamoDB write(s)`);
  if (start > 1) over.push(`StartExecution ${start}`);
  if (start < 1) off.push('no StartExecution');
  if (sum(f.stepFunctions) - start > 0) over.push(`other Step Functions calls: ${JSON.stringify(f.stepFunctions)}`);
  if (sum(f.events) > 0) over.push(`PutEvents ${sum(f.events)}`);
  return { over, off };
};

/** Exactly one DynamoDB read. */
const statusReadTarget: Judge = (f) => {
  const over: string[] = [];
  const off: string[] = [];
  if (f.dynamodbTotal > 1) over.push(`${f.dynamodbTotal} DynamoDB calls`);
  if (f.reads < 1) off.push('no DynamoDB read');
  if (f.writes > 0) over.push(`${f.writes} DynamoDB write(s)`);
  if (sum(f.stepFunctions) + sum(f.events) > 0) over.push('Step Functions or EventBridge calls');
  return { over, off };
};

function summarise(
  operation: ProcessOperationCalls['operation'],
  auth: string,
  calls: Invocation[],
  target: string,
  judge: Judge,
): ProcessOperationCalls {
  const each = calls.map((c) => figuresOf(c.tally));
  const totals = each.map((f) => f.dynamodbTotal);
  const problems = new Set<string>();
  let over = false;
  let off = false;
  for (const f of each) {
    const j = judge(f);
    j.over.forEach((p) => problems.add(p));
    j.off.forEach((p) => problems.add(p));
    over ||= j.over.length > 0;
    off ||= j.off.length > 0;
  }
  return {
    operation,
    auth,
    invocations: calls.length,
    firstCall: each[0]!,
    perCall: { ...meanFigures(each), dynamodbTotalMin: Math.min(...totals), dynamodbTotalMax: Math.max(...totals) },
    target,
    verdict: over ? 'OVER' : off ? 'OFF' : 'OK',
    problems: [...problems],
  };
}

export const CREATE_PATH = '/api/process-manager/processInstances/create';

export function createInstanceEvent(h: Harness, processTokenId: string, headers: Record<string, string>): APIGatewayProxyEventV2 {
  return baseEvent({
    method: 'POST',
    path: CREATE_PATH,
    routeKey: `POST ${CREATE_PATH}`,
    host: h.host,
    headers,
    rawQueryString: `pt=${processTokenId}`,
  });
}

export function statusReadEvent(h: Harness, processInstanceId: string): APIGatewayProxyEventV2 {
  return withJwtClaims(
    baseEvent({
      method: 'GET',
      path: `/api/process-manager/processInstances/${processInstanceId}`,
      routeKey: 'GET /api/process-manager/processInstances/{processInstanceId}',
      host: h.host,
      headers: {},
      pathParameters: { processInstanceId },
    }),
    { sub: h.apiKey.id, tid: h.tenantId, scope: 'ProcessManager:getProcessInstance' },
  );
}

/** Polls (as the bench, uncounted) until `test` holds for the instance; throws after `timeoutMs`. */
export async function waitForInstance(
  h: Harness,
  processInstanceId: string,
  test: (r: { status: string; currentStep?: { activityId: string } } | undefined) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const { processInstanceStore } = await import('../../functions/store/process-instances.js');
  const deadline = Date.now() + timeoutMs;
  await h.asBench(async () => {
    for (;;) {
      const r = await processInstanceStore.get(h.tenantId, processInstanceId);
      if (test(r)) return;
      if (Date.now() > deadline) {
        throw new Error(`instance ${processInstanceId}: ${what} not reached within ${timeoutMs} ms (status ${r?.status}, step ${r?.currentStep?.activityId ?? 'none'})`);
      }
      await new Promise((ok) => setTimeout(ok, 2));
    }
  });
}

/**
 * Publishes an example definition to the bench tenant (unless it is there already) with
 * `publishDefinition`, and makes a new process token for it through the real handler with
 * X-API-Key, as a client would.
 */
export async function setUpDefinition(
  h: Harness,
  name: string,
): Promise<{ processTokenId: string; publish: Tally | undefined; token: Invocation }> {
  const { publishDefinition } = await import('../../functions/process-manager/definitions/publish.js');
  const { definitions, customDataForms, stateMachines, themes } = await import('../../functions/process-manager/deps.js');
  const { orchestrator } = await import('../../functions/process-manager/executions/orchestrator.js');
  const { definitionStore } = await import('../../functions/store/process-definitions.js');
  const { EXAMPLES } = await import('../../statemachines/examples/index.js');
  const createProcessToken = (await import('../../functions/process-manager/tokens/create-process-token.js')).handler;
  const json = EXAMPLES[name] as { name: string; version: number } | undefined;
  if (!json) throw new Error(`no example definition ${name}`);

  let publish: Tally | undefined;
  if (!(await h.asBench(() => definitionStore.getByNameVersion(h.tenantId, json.name, json.version)))) {
    publish = newTally('publishDefinition');
    await within([publish], () => publishDefinition({ definitions, stateMachines, orchestrator, forms: customDataForms, themes }, structuredClone(json), { tenantId: h.tenantId, actor: 'operator', now: new Date() }));
    publish.open = false;
  }
  const token = await h.invoke(
    'createProcessToken',
    createProcessToken,
    baseEvent({
      method: 'POST',
      path: '/api/process-manager/processTokens',
      routeKey: 'POST /api/process-manager/processTokens',
      host: h.host,
      headers: { 'x-api-key': h.apiKey.secret, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `bench ${json.name} ${randomUUID()}`, processDefnName: json.name, processDefnVersion: json.version }),
    }),
    { expect: 201 },
  );
  return { processTokenId: (token.body as { id: string }).id, publish, token };
}

export async function measureProcessManager(h: Harness, opts: { reps: number }): Promise<ProcessManagerCalls> {
  const createInstance = (await import('../../functions/process-manager/instances/create-process-instance.js')).handler;
  const getInstance = (await import('../../functions/process-manager/instances/get-process-instance.js')).handler;
  const { processTokenId, publish, token } = await setUpDefinition(h, IDENTITY_CHECK);
  if (!publish) throw new Error(`${IDENTITY_CHECK} was already published in the bench tenant`);

  const ways = [
    { auth: 'X-API-Key', headers: () => ({ 'x-api-key': h.apiKey.secret }) },
    { auth: 'Bearer (verified in the handler)', headers: () => ({ authorization: `Bearer ${h.bearer}` }) },
    {
      auth: 'Bearer + Idempotency-Key',
      headers: () => ({ authorization: `Bearer ${h.bearer}`, 'idempotency-key': randomUUID() }),
    },
  ] as const;
  const creations = ways.map(() => [] as Invocation[]);
  for (let i = 0; i < opts.reps; i++) {
    for (const [w, way] of ways.entries()) {
      creations[w]!.push(await h.invoke('createProcessInstance', createInstance, createInstanceEvent(h, processTokenId, way.headers()), { expect: 201 }));
    }
  }
  const created = creations.flat();
  const ids = created.map((c) => (c.body as { processInstanceId: string }).processInstanceId);

  // Each journey runs on: wait until every one has recorded its first user step.
  const firstStep = 'personalDetails';
  for (const id of ids) await waitForInstance(h, id, (r) => r?.currentStep?.activityId === firstStep, `step ${firstStep}`);

  const reads: Invocation[] = [];
  for (let i = 0; i < opts.reps; i++) {
    reads.push(await h.invoke('getProcessInstance', getInstance, statusReadEvent(h, ids[i % ids.length]!)));
  }

  const rateLimitedStatusReads = await measureRateLimitedReads(h, getInstance, ids[0]!, opts.reps * 20);

  const creationTargetText = 'TransactWriteItems 1 + StartExecution 1, no other write';
  return {
    setup: {
      definition: `${IDENTITY_CHECK} v1`,
      processTokenId,
      publishDefinition: figuresOf(publish),
      createProcessToken: figuresOf(token.tally),
    },
    operations: [
      ...ways.map((way, w) => summarise('createProcessInstance', way.auth, creations[w]!, creationTargetText, creationTarget)),
      summarise('getProcessInstance', 'JWT authorizer claims', reads, 'exactly 1 DynamoDB read', statusReadTarget),
    ],
    afterCreation: {
      instances: created.length,
      perInstance: meanFigures(created.map((c) => figuresOf(c.tally.after!))),
      firstStep,
    },
    rateLimitedStatusReads,
  };
}

/**
 * Status reads of one instance, one after another, with TENANT_RATE_LIMIT set (the tenant's
 * budget leased per container, functions/auth/rate-limit.ts), then as many bare GetItems of the
 * instance's item: DynamoDB calls per read, and the reads' pace beside the GetItems'.
 */
async function measureRateLimitedReads(h: Harness, getInstance: Handler, processInstanceId: string, reads: number): Promise<RateLimitedReads> {
  const limitPerSecond = 1000;
  const { resetConfigForTests } = await import('../../functions/config.js');
  const { dynamo } = await import('../../functions/store/client.js');
  const { keys } = await import('../../functions/store/keys.js');
  const saved = process.env.TENANT_RATE_LIMIT;
  process.env.TENANT_RATE_LIMIT = String(limitPerSecond);
  resetConfigForTests();
  try {
    const calls: Invocation[] = [];
    const started = performance.now();
    for (let i = 0; i < reads; i++) calls.push(await h.invoke('getProcessInstance', getInstance, statusReadEvent(h, processInstanceId)));
    const readsMs = performance.now() - started;
    const each = calls.map((c) => figuresOf(c.tally));
    const dynamodbPerRead = round(each.reduce((a, f) => a + f.dynamodbTotal, 0) / reads, 3);
    const leaseWritesPerRead = round(each.reduce((a, f) => a + f.writes, 0) / reads, 3);
    const { doc, tableName, commands } = await dynamo();
    const key = keys.instance(h.tenantId, processInstanceId);
    const getStarted = performance.now();
    await h.asBench(async () => {
      for (let i = 0; i < reads; i++) await doc.send(new commands.GetCommand({ TableName: tableName, Key: key }));
    });
    const getMs = performance.now() - getStarted;
    const readsPerSecond = round((reads / readsMs) * 1000, 0);
    const getItemsPerSecond = round((reads / getMs) * 1000, 0);
    return {
      limitPerSecond,
      reads,
      dynamodbPerRead,
      leaseWritesPerRead,
      readsPerSecond,
      getItemsPerSecond,
      ratioToGetItemCeiling: round(readsPerSecond / getItemsPerSecond, 2),
      target: `at most ${RATE_LIMITED_READ_TARGET} DynamoDB calls a read on average`,
      verdict: dynamodbPerRead <= RATE_LIMITED_READ_TARGET ? 'OK' : 'OVER',
    };
  } finally {
    if (saved === undefined) delete process.env.TENANT_RATE_LIMIT;
    else process.env.TENANT_RATE_LIMIT = saved;
    resetConfigForTests();
  }
}
