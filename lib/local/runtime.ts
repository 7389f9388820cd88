import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { routeList } from '../../functions/routes.js';
import { createTenantWithFirstKey } from '../../functions/tenants/domain.js';
import { apiKeyStore } from '../../functions/store/api-keys.js';
import { tenantStore } from '../../functions/store/tenants.js';
import { signerFor } from '../../functions/auth/signer.js';
import { ensureTable, freePort, localClient, startDynamoDbLocal } from './dynamodb.js';
import { holdPort, startHttpServer } from './server.js';
import type { RequestRecord } from './text-log.js';
import { LocalStepFunctions } from './engine.js';
import { localOrchestrator } from './orchestrator.js';
import { installOrchestrator, orchestrator as installedOrchestrator, stateMachineNameOf } from '../../functions/process-manager/executions/orchestrator.js';
import { publishBpmnUpload, publishDefinition } from '../../functions/process-manager/definitions/publish.js';
import { setDefinitionStatus } from '../../functions/process-manager/definitions/definitions.js';
import type { BpmnUpload } from '../../functions/process-manager/definitions/definition-schemas.js';
import { definitions, stateMachines } from '../../functions/process-manager/deps.js';
import { definitionStore } from '../../functions/store/process-definitions.js';
import { compileDefinition } from '../../statemachines/compile.js';
import { BPMN_EXAMPLES, EXAMPLES, EXAMPLE_FORMS, EXAMPLE_PAGES, EXAMPLE_THEMES } from '../../statemachines/examples/index.js';
import { customPages as customPageDeps, themeAssets, themes as themeStore } from '../../functions/theme-server/deps.js';
import { addCustomPage } from '../../functions/theme-server/custom-pages.js';
import { addTheme, addThemeAsset, setThemeStatus } from '../../functions/theme-server/themes.js';
import type { Palette } from '../../functions/theme-server/palette.js';
import { inTenantScope } from '../../functions/shared/tenant-scope.js';
import { TextReader, Uint8ArrayReader, Uint8ArrayWriter, ZipWriter } from '@zip.js/zip.js';
import { customDataForms, themes } from '../../functions/process-manager/deps.js';
import { addCustomDataForm } from '../../functions/process-manager/forms/custom-data-forms.js';
import type { ProcessDefinitionRecord } from '../../functions/process-manager/definitions/definitions.js';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { localFunctions } from './functions.js';
import { installEventBus } from '../../functions/events/bus.js';
import { relayRecords } from '../../functions/events/relay.js';
import { relayDeps } from '../../functions/webhooks/on-table-stream.js';
import { startStreamPoller } from './stream-poller.js';
import { ensureWebhookQueues, requeuePendingDeliveries, startDeliveryWorker } from './webhook-queue.js';
import { deliveryQueue } from '../../functions/adapters/delivery-queue.js';
import { webhookSecretSealer } from '../../functions/adapters/sealer.js';
import { deliverDeps, handleDeliveries } from '../../functions/webhooks/on-delivery.js';
import { log } from '../../functions/observability/logger.js';
import { localEventBus } from './events.js';
import { startSweeper } from './sweeper.js';
import { startDeliverySweeper } from './webhook-sweeper.js';
import { endOrphanedJourneys, startReconciler } from './reconciler.js';
import { asOperation, recordDynamoCalls, recordMethods, recordS3Calls, writeUsage } from './aws-usage.js';
import { localS3Client, mirrorToDisk, startLocalS3 } from './s3.js';
import { localPagesOrigin, pagesHostHandler } from './pages-host.js';
import { pageFileStore, pagesS3Own } from '../../functions/adapters/page-files.js';
import { imageStore, s3 } from '../../functions/adapters/images.js';
import { exportObjects, exportsS3 } from '../../functions/store/exports.js';
import { installExportQueue } from '../../functions/adapters/export-queue.js';
import { installFunctionRunner } from '../../functions/adapters/function-runner.js';
import { startCloudFunctionRunner } from './cloud-function-runner.js';
import { installFaceEngine } from '../../functions/adapters/face-engine.js';
import { stopOcr } from '../../functions/documents/ocr.js';
import { startLocalFaceEngine } from './face-engine.js';
import { secretSealer } from '../../functions/adapters/sealer.js';
import { secretSealer as cloudSecretSealer } from '../../functions/cloud-functions/deps.js';
import { localExportQueue } from './exports.js';
import { dynamo as storeClient } from '../../functions/store/client.js';
import { deploymentPrefix, getConfig, webhookRetrySeconds } from '../../functions/config.js';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { identityStoreStore } from '../../functions/store/identity-store.js';
import { DEFAULT_REQUIREMENTS, newStore } from '../../functions/identity-store/stores/stores.js';

export const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');
export const LOCAL_TABLE = 'arthr';
export const LOCAL_REGION = 'fir';
export const LOCAL_DOMAIN = 'localhost';
export const DEMO_TENANT = 'demo';

export interface Bootstrap {
  baseUrl: string;
  tenantId: string;
  region: string;
  apiKey: string;
}

export interface RuntimeInfo {
  pid: number;
  dynamodbEndpoint: string;
  tableName: string;
  s3Endpoint: string;
  imagesBucket: string;
  exportsBucket: string;
  /** Where pre-signed URLs point (the local S3 gateway that checks them). */
  s3PublicEndpoint: string;
  /** Custom page bundles: their bucket, and the origin that serves them without a token. */
  pagesBucket: string;
  pagesOrigin: string;
  issuer: string;
}

export interface LocalRuntime {
  baseUrl: string;
  port: number;
  bootstrap: Bootstrap | undefined;
  createdDemo: boolean;
  /** Example definitions published to the demo tenant at this start (`name vN`). */
  published: string[];
  engine: LocalStepFunctions;
  stop(): Promise<StopSummary>;
}

/** What a stop did to the journeys in flight. */
export interface StopSummary {
  /** Journeys whose executions the stop ended (their instances COMPLETED_TERMINATED). */
  journeysEnded: number;
  /** Of those, the ends that could not be recorded now: the next start ends them. */
  notRecorded: number;
}

/** Thrown when another runtime is running on the same data folder. */
export class DataFolderInUseError extends Error {
  override readonly name = 'DataFolderInUseError';
}

/**
 * One runtime per data folder: a second one would share DynamoDB Local's files, and its start
 * ends every journey the table has open, the first runtime's live ones included. runtime.json
 * names the running one; a stale file (its process gone) is what a crash leaves.
 */
function refuseIfRunning(localDir: string): void {
  const path = join(localDir, 'runtime.json');
  if (!existsSync(path)) return;
  let pid: unknown;
  try {
    pid = (JSON.parse(readFileSync(path, 'utf8')) as Partial<RuntimeInfo>).pid;
  } catch {
    return;
  }
  if (typeof pid !== 'number' || pid === process.pid) return;
  try {
    process.kill(pid, 0);
  } catch {
    return;
  }
  throw new DataFolderInUseError(`Another local runtime (pid ${pid}) is running on ${localDir}: stop it first, or give this one another LOCAL_DIR.`);
}

/** The local signing key: RSA 2048 in PKCS#8 PEM, readable by this user only. */
function ensureSigningKey(path: string): void {
  if (existsSync(path)) return;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(path, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
}

/** The local stand-in for the exports KMS key: 32 random bytes (AES-256-GCM), readable by this user only. */
/** A 32-byte AES key file (the exports and cloud secrets keys), made once, owner-only. */
function ensureKeyFile(path: string): void {
  if (existsSync(path)) return;
  writeFileSync(path, randomBytes(32), { mode: 0o600 });
}

/**
 * The whole service on one machine: DynamoDB Local with its data under `localDir`, the table
 * made from the shared schema, the handlers behind the API Gateway stand-in on loopback, and
 * on first start the `demo` tenant with an API key holding every permission.
 */
export async function startLocalRuntime(opts: { localDir: string; port: number; host?: string; requestLog?: (r: RequestRecord) => void }): Promise<LocalRuntime> {
  const localDir = resolve(opts.localDir);
  mkdirSync(localDir, { recursive: true, mode: 0o700 });
  refuseIfRunning(localDir);
  // Every tenant's items, face images and the signing key are in here: this user's only, also
  // for a folder an earlier version made with the default mode.
  chmodSync(localDir, 0o700);
  const keyPath = join(localDir, 'signing-key.pem');
  ensureSigningKey(keyPath);
  chmodSync(keyPath, 0o600);
  const exportsKeyPath = join(localDir, 'exports-key.bin');
  const secretsKeyPath = join(localDir, 'secrets-key.bin');
  for (const path of [exportsKeyPath, secretsKeyPath]) {
    ensureKeyFile(path);
    chmodSync(path, 0o600);
  }

  // The port asked for is held from here until the service listens on it: DynamoDB Local and the
  // other local parts take free ports of their own meanwhile, and one of them could otherwise be
  // given this one (a caller that picked a free port and let it go, as the README check does).
  const held = opts.port ? await holdPort(opts.host ?? '127.0.0.1', opts.port) : undefined;
  const dynamo = await startDynamoDbLocal(join(localDir, 'dynamodb'));
  const s3Dir = join(localDir, 's3');
  const exportsDir = join(localDir, 's3-exports');
  const pagesDir = join(localDir, 's3-pages');
  for (const dir of [s3Dir, exportsDir, pagesDir]) if (existsSync(dir)) chmodSync(dir, 0o700);
  const localS3 = await startLocalS3({ images: s3Dir, exports: exportsDir, pages: pagesDir }).catch(async (err: unknown) => {
    await dynamo.stop();
    throw err;
  });
  try {
    const port = opts.port || (await freePort());
    const issuer = `http://localhost:${port}`;
    const webhookQueues = await ensureWebhookQueues(localS3.endpoint, webhookRetrySeconds(process.env.WEBHOOK_RETRY_SECONDS).length + 1, deploymentPrefix(LOCAL_REGION));
    // The handlers read their configuration from the environment, as in Lambda.
    Object.assign(process.env, {
      TABLE_NAME: LOCAL_TABLE,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      SERVICE_REGION: LOCAL_REGION,
      SERVICE_DOMAIN: LOCAL_DOMAIN,
      TOKEN_ISSUER: issuer,
      TOKEN_AUDIENCE: process.env.TOKEN_AUDIENCE ?? 'arthr-api',
      SIGNING_KEY: `file:${keyPath}`,
      IMAGES_BUCKET: localS3.bucket,
      S3_ENDPOINT: localS3.endpoint,
      S3_PUBLIC_ENDPOINT: localS3.publicEndpoint,
      // This start's secret, for the service's own S3 clients and presigner only. The cloud
      // function runner's child gets none of this environment (see cloud-function-runner.ts).
      S3_LOCAL_SECRET: localS3.credentials.secretAccessKey,
      EXPORTS_BUCKET: localS3.exportsBucket,
      // Custom page bundles: their bucket, and the origin that serves them (lib/local/pages-host.ts).
      PAGES_BUCKET: localS3.pagesBucket,
      PAGES_ORIGIN: localPagesOrigin(port),
      EXPORTS_KEY: `file:${exportsKeyPath}`,
      SECRETS_KEY: `file:${secretsKeyPath}`,
      // Cloud functions may reach the S3 stand-in's public endpoint on loopback (a pre-signed
      // upload URL), as they reach S3 on AWS; nothing else private.
      CLOUD_FUNCTION_ALLOWED_ORIGINS: new URL(localS3.publicEndpoint).origin,
      // ...and never the runtime's own services, whatever else a guard would let through: fauxqs
      // serves S3 and SQS to any credentials, DynamoDB Local every tenant's items and the stream.
      // Only the gateway's signature check stands between tenant code and the objects.
      LOCAL_SERVICE_ENDPOINTS: [localS3.endpoint, dynamo.endpoint].join(','),
      // Webhooks: the SQS stand-in (fauxqs, the S3 stand-in's server), and receivers on this
      // machine allowed (http:// to loopback); every other private address is refused as on AWS.
      SQS_ENDPOINT: localS3.endpoint,
      WEBHOOK_QUEUE_URL: webhookQueues.deliveries,
      WEBHOOK_REPLAY_QUEUE_URL: webhookQueues.replays,
      WEBHOOK_RETRY_QUEUE_URL: webhookQueues.retries,
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      // A tenant's Regula Document Reader service on this machine likewise (a developer's own, or a test's stand-in).
      DOCUMENT_SERVICE_ALLOW_LOOPBACK: 'true',
      // The tenant rate limit runs here as on AWS (one counting write per request); the default is
      // high enough that the test suite, several files at once on one tenant, never meets it.
      TENANT_RATE_LIMIT: process.env.TENANT_RATE_LIMIT ?? '1000',
      // Token issue's own budget, likewise (the suite issues a token per test file and more).
      TOKEN_RATE_LIMIT: process.env.TOKEN_RATE_LIMIT ?? '1000',
    });
    mirrorToDisk((await s3()).client, localS3.bucket, s3Dir);
    mirrorToDisk((await exportsS3()).client, localS3.exportsBucket, exportsDir);
    mirrorToDisk((await pagesS3Own()).client, localS3.pagesBucket, pagesDir);
    // Cloud functions run in a child process of their own (the sandbox), as in the runner Lambda on AWS.
    const functionRunner = startCloudFunctionRunner();
    installFunctionRunner(functionRunner);
    // Faces: the embedded model in a worker thread stands for Rekognition (its watchlists in a file).
    const faceEngine = startLocalFaceEngine({ collectionsFile: join(localDir, 'face-collections.json') });
    installFaceEngine(faceEngine);
    // Export jobs run in process, as the SQS-fed worker runs them on AWS.
    const exportJobs = localExportQueue();
    installExportQueue(exportJobs);

    const admin = localClient(dynamo.endpoint);
    await ensureTable(admin, LOCAL_TABLE);

    // Journeys: the engine keeps state machines in memory, so every stored definition version
    // gets its state machine again at each start.
    // The same functions the state machines invoke on AWS, called in process.
    const engine = new LocalStepFunctions({ invoke: localFunctions() });
    const orchestrator = localOrchestrator(engine);
    const bus = localEventBus();
    const usageFile = process.env.RECORD_AWS_USAGE;
    if (usageFile) {
      // Each local stand-in counts as the AWS action it replaces.
      recordDynamoCalls((await storeClient()).raw);
      recordS3Calls((await s3()).client);
      recordS3Calls((await exportsS3()).client, { [localS3.exportsBucket]: 'exports' });
      recordS3Calls((await pagesS3Own()).client, { [localS3.pagesBucket]: 'pages' });
      // What makes no call locally counts as the AWS action it stands for: a pre-signed URL is
      // a GetObject made with the signer's rights, the sealer is KMS, the local queue is SQS.
      recordMethods(imageStore, { url: 's3:GetObject', uploadUrl: 's3:PutObject' });
      recordMethods(exportObjects, { url: 's3:GetObject (exports)' });
      recordMethods(pageFileStore, { uploadUrl: 's3:PutObject (pages)' });
      recordMethods(secretSealer, { seal: 'kms:Encrypt', unseal: 'kms:Decrypt' });
      recordMethods(cloudSecretSealer, { seal: 'kms:Encrypt (secrets)', unseal: 'kms:Decrypt (secrets)' });
      recordMethods(exportJobs, { enqueue: 'sqs:SendMessage' });
      recordMethods(deliveryQueue, { send: 'sqs:SendMessage (webhooks)', sendReplays: 'sqs:SendMessage (webhook replays)', retry: 'sqs:SendMessage (webhook retries)' });
      recordMethods(webhookSecretSealer, { seal: 'kms:Encrypt (webhook secrets)', unseal: 'kms:Decrypt (webhook secrets)' });
      recordMethods(functionRunner, { run: 'lambda:InvokeFunction' });
      // Liveness is the embedded model on AWS too: no AWS call.
      recordMethods(faceEngine, {
        detect: 'rekognition:DetectFaces',
        compare: 'rekognition:CompareFaces',
        createWatchlist: 'rekognition:CreateCollection',
        deleteWatchlist: 'rekognition:DeleteCollection',
        addMember: 'rekognition:IndexFaces',
        removeMember: 'rekognition:DeleteFaces',
        search: 'rekognition:SearchFacesByImage',
      });
      recordMethods(orchestrator, {
        publishStateMachine: 'states:CreateStateMachine',
        startExecution: 'states:StartExecution',
        sendTaskSuccess: 'states:SendTaskSuccess',
        sendTaskFailure: 'states:SendTaskFailure',
        describeExecution: 'states:DescribeExecution',
      });
      recordMethods(bus, { put: 'events:PutEvents' });
      recordMethods(signerFor(`file:${keyPath}`), { sign: 'kms:Sign', publicJwk: 'kms:GetPublicKey' });
    }
    installOrchestrator(orchestrator);
    installEventBus(bus);
    // Webhook deliveries: what a stop or crash left queued comes back from the table first (before
    // the relay queues anything newer of the same subjects), then the worker below takes them.
    const requeued = await requeuePendingDeliveries(admin, LOCAL_TABLE, deliveryQueue);
    if (requeued) log().info('webhook deliveries queued again after a restart', { requeued });
    // The outbox relay: what the table stream's event source mapping runs on AWS, fed by a poller
    // of DynamoDB Local's stream that keeps its place in a file across restarts.
    const relay = startStreamPoller({
      client: admin,
      endpoint: dynamo.endpoint,
      tableName: LOCAL_TABLE,
      checkpointFile: join(localDir, 'stream-checkpoint.json'),
      handle: (records) => asOperation('relayEvents', () => relayRecords(relayDeps, records)),
    });
    const deliveryWorker = startDeliveryWorker({
      endpoint: localS3.endpoint,
      queueUrl: webhookQueues.deliveries,
      handle: (records) => asOperation('deliverWebhooks', () => handleDeliveries(deliverDeps(), records)),
    });
    // Replays have loops of their own (fewer, as their mapping's concurrency is lower on AWS): a
    // tenant's replay of hundreds of events takes these, never the fresh deliveries' loops above.
    const replayWorker = startDeliveryWorker({
      endpoint: localS3.endpoint,
      queueUrl: webhookQueues.replays,
      workers: 2,
      handle: (records) => asOperation('deliverWebhooks', () => handleDeliveries(deliverDeps(), records)),
    });
    // Every later attempt (retries, deliveries released from parking, the sweeper's), on loops of
    // their own as the retry queue's mapping on AWS: a failing endpoint's retries never take the
    // loops of fresh deliveries.
    const retryWorker = startDeliveryWorker({
      endpoint: localS3.endpoint,
      queueUrl: webhookQueues.retries,
      workers: 2,
      handle: (records) => asOperation('deliverWebhooks', () => handleDeliveries(deliverDeps(), records)),
    });
    // What the sweeper's schedule does on AWS (every five minutes): PENDING deliveries whose message was lost, queued again.
    const deliverySweeper = startDeliverySweeper(Number(process.env.WEBHOOK_SWEEP_INTERVAL_SECONDS ?? 60));
    await republishDefinitions(admin, engine);
    // The engine starts empty: a journey still open in the table lost its execution with the last
    // run (a stop that could not record its end, a crash, a SIGKILL), so it ends now, before the
    // first request, rather than stay open until the reconciler's first look at it.
    await asOperation('reconcileExecutions', () => endOrphanedJourneys(new Date()));
    const sweeper = startSweeper(admin, LOCAL_TABLE, Number(process.env.SWEEP_INTERVAL_SECONDS ?? 60));
    // Every five minutes, as the reconciler's schedule on AWS.
    const reconciler = startReconciler(Number(process.env.RECONCILE_INTERVAL_SECONDS ?? 300));

    const baseUrl = `http://${DEMO_TENANT}.${LOCAL_REGION}.${LOCAL_DOMAIN}:${port}`;
    const bootstrapPath = join(localDir, 'bootstrap.json');
    let bootstrap: Bootstrap | undefined;
    let createdDemo = false;
    if (!(await tenantStore.get(DEMO_TENANT))) {
      const made = await createTenantWithFirstKey(
        { tenants: tenantStore, apiKeys: apiKeyStore },
        { tenantId: DEMO_TENANT, region: LOCAL_REGION, keyName: 'demo', now: new Date(), actor: 'operator' },
      );
      bootstrap = { baseUrl, tenantId: DEMO_TENANT, region: LOCAL_REGION, apiKey: made.secret };
      createdDemo = true;
    } else if (existsSync(bootstrapPath)) {
      bootstrap = { ...(JSON.parse(readFileSync(bootstrapPath, 'utf8')) as Bootstrap), baseUrl };
    }
    if (bootstrap) {
      writeFileSync(bootstrapPath, `${JSON.stringify(bootstrap, null, 2)}\n`, { mode: 0o600 });
      chmodSync(bootstrapPath, 0o600);
    }
    await ensureExampleForms(DEMO_TENANT);
    await inTenantScope(() => ensureExamplePages(DEMO_TENANT), DEMO_TENANT);
    const exampleThemes = await inTenantScope(() => ensureExampleThemes(DEMO_TENANT), DEMO_TENANT);
    const published = await publishExamples(DEMO_TENANT, exampleThemes);
    await ensureExampleStore(DEMO_TENANT);

    const signer = signerFor(`file:${keyPath}`);
    const jwk = await signer.publicJwk();
    await held?.release();
    const http = await startHttpServer({
      routes: routeList,
      root: ROOT,
      host: opts.host ?? '127.0.0.1',
      port,
      jwks: async () => ({ keys: [jwk] }),
      issuer,
      audience: process.env.TOKEN_AUDIENCE!,
      ...(opts.requestLog && { requestLog: opts.requestLog }),
      // Read straight from the S3 stand-in, as CloudFront reads the bucket through its origin access control.
      pagesHost: pagesHostHandler(localS3Client(localS3.endpoint, localS3.credentials), localS3.pagesBucket, port),
    });

    const runtimePath = join(localDir, 'runtime.json');
    const info: RuntimeInfo = {
      pid: process.pid,
      dynamodbEndpoint: dynamo.endpoint,
      tableName: LOCAL_TABLE,
      s3Endpoint: localS3.endpoint,
      imagesBucket: localS3.bucket,
      exportsBucket: localS3.exportsBucket,
      s3PublicEndpoint: localS3.publicEndpoint,
      pagesBucket: localS3.pagesBucket,
      pagesOrigin: localPagesOrigin(port),
      issuer,
    };
    writeFileSync(runtimePath, `${JSON.stringify(info, null, 2)}\n`);

    return {
      baseUrl,
      port,
      bootstrap,
      createdDemo,
      published,
      engine,
      async stop() {
        await within('the HTTP server', http.close());
        await within('the reconciler', reconciler.stop());
        // The journeys in flight are counted as they are stopped; their executions' last tasks are given their time.
        const aborted = engine.runningCount();
        await within('the journeys engine', engine.shutdown());
        await within('the export jobs', exportJobs.settle());
        // Journeys the shutdown aborted end as COMPLETED_TERMINATED, recorded before the table stops
        // (DynamoDB Local is in a process group of its own, so a terminal's Ctrl-C leaves it to this).
        const failed = (await within('the record of the journeys ended', orchestrator.settle()))?.failed ?? aborted;
        await within('the sweeper', sweeper.stop());
        // The events of the last changes go out before the table stops (what is left, the next start relays).
        await Promise.race([relay.drained(), new Promise((r) => setTimeout(r, 2_000))]);
        await within('the event relay', relay.stop());
        await within('the webhook sweeper', deliverySweeper.stop());
        await within('the webhook workers', Promise.all([deliveryWorker.stop(), replayWorker.stop(), retryWorker.stop()]));
        await within('the cloud function runner', functionRunner.stop());
        await within('the face engine', faceEngine.stop());
        await within('the document reader', stopOcr());
        admin.destroy();
        if (usageFile) writeUsage(usageFile);
        await within('DynamoDB Local', dynamo.stop());
        await within('the S3 stand-in', localS3.stop());
        rmSync(runtimePath, { force: true });
        return { journeysEnded: aborted, notRecorded: Math.min(failed, aborted) };
      },
    };
  } catch (err) {
    await dynamo.stop();
    await localS3.stop();
    throw err;
  }
}

/**
 * A part of the stop, given at most `ms`: a part that never ends (a stand-in's server waiting on a
 * connection, a worker that does not answer) must not leave Ctrl-C hanging. It is named on stderr,
 * and the stop goes on: what it did not finish, the next start finds (journeys, events).
 */
async function within<T>(part: string, done: Promise<T>, ms = 20_000): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  // Referenced, on purpose: a part waiting on a promise that nothing else keeps alive (no socket,
  // no timer: an execution the engine never settles) would otherwise let Node exit in the middle
  // of the stop, silently, before "Stopped." and before the table had the journeys' ends.
  const late = new Promise<{ late: true }>((ok) => {
    timer = setTimeout(() => ok({ late: true }), ms);
  });
  const outcome = await Promise.race([done.then((value) => ({ late: false as const, value })), late]);
  clearTimeout(timer);
  if (outcome.late) {
    process.stderr.write(`stop: ${part} did not finish within ${ms / 1000} s; going on.\n`);
    return undefined;
  }
  return outcome.value;
}

/** Every definition version in the table gets its state machine in the (fresh) engine. */
async function republishDefinitions(client: ReturnType<typeof localClient>, engine: LocalStepFunctions): Promise<void> {
  const { ACTIVITY_FUNCTION_ARN, EXECUTION_END_FUNCTION_ARN } = getConfig();
  let start: Record<string, unknown> | undefined;
  do {
    const out = await client.send(
      new ScanCommand({
        TableName: LOCAL_TABLE,
        FilterExpression: 'itemType = :t',
        ExpressionAttributeValues: { ':t': { S: 'ProcessDefinition' } },
        ExclusiveStartKey: start as never,
      }),
    );
    for (const item of out.Items ?? []) {
      const record = unmarshall(item) as ProcessDefinitionRecord;
      // A DRAFT never activated has no state machine yet: its activation makes it.
      if (!record.stateMachineArn) continue;
      const { definition } = await definitionStore.getContent(record);
      const asl = compileDefinition(definition, { activityFunctionArn: ACTIVITY_FUNCTION_ARN, executionEndFunctionArn: EXECUTION_END_FUNCTION_ARN });
      // Under the name it was published with (which versions that compiled alike share).
      engine.createStateMachine(stateMachineNameOf(record.stateMachineArn), asl);
    }
    start = out.LastEvaluatedKey;
  } while (start);
}

/**
 * The identity store the passcode-registration example names (`customers`, passcode policy
 * `passcodeAuth1` with the default requirements), made in the demo tenant when it is missing.
 */
async function ensureExampleStore(tenantId: string): Promise<void> {
  if (await identityStoreStore.get(tenantId, 'customers')) return;
  const store = newStore({
    tenantId,
    name: 'customers',
    description: 'The store of the passcode-registration example.',
    passcodePolicies: { passcodeAuth1: { requirements: DEFAULT_REQUIREMENTS } },
    actor: 'operator',
    now: new Date(),
  });
  await identityStoreStore.create(store);
}

/** The data forms the examples name, added (active) to the demo tenant when it does not have them yet. */
async function ensureExampleForms(tenantId: string): Promise<void> {
  for (const form of EXAMPLE_FORMS) {
    if (await customDataForms.getVersion(tenantId, form.name, form.version)) continue;
    await addCustomDataForm(customDataForms, { ...form, status: 'DEPLOYED_ACTIVE', creationOption: 'example' }, { tenantId, actor: 'operator', now: new Date() });
  }
}

/** The example custom pages, uploaded (a zip of their files, as a client sends one) and activated, when the demo tenant has no version 1. */
async function ensureExamplePages(tenantId: string): Promise<void> {
  for (const example of EXAMPLE_PAGES) {
    if (await customPageDeps.pages.getVersion(tenantId, example.name, 1)) continue;
    const writer = new ZipWriter(new Uint8ArrayWriter(), { useWebWorkers: false });
    for (const file of example.files) await writer.add(file, new TextReader(readFileSync(new URL(file, example.folder), 'utf8')));
    const archive = Buffer.from(await writer.close()).toString('base64');
    await addCustomPage(customPageDeps, { name: example.name, description: example.description, archive, status: 'DEPLOYED_ACTIVE', creationOption: 'example' }, { tenantId, actor: 'operator', now: new Date() });
  }
}

/**
 * The example themes, added with their assets and activated when the demo tenant has no version
 * 1: the id of each by name (a theme's id is made when it is added; the examples name it by name).
 */
async function ensureExampleThemes(tenantId: string): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const example of EXAMPLE_THEMES) {
    const existing = await themeStore.getVersion(tenantId, example.name, 1);
    if (existing) {
      ids[example.name] = existing.id;
      continue;
    }
    const ctx = { tenantId, actor: 'operator', now: new Date() };
    const theme = await addTheme(themeStore, { name: example.name, description: example.description, palette: example.palette as Palette }, ctx);
    for (const asset of example.assets) {
      const bytes = readFileSync(asset.file);
      await addThemeAsset({ themes: themeStore, assets: themeAssets }, { id: theme.id, name: asset.name, fileExtension: asset.fileExtension, assetResource: bytes.toString('base64') }, ctx);
    }
    await setThemeStatus(themeStore, { tenantId, id: theme.id, status: 'DEPLOYED_ACTIVE', actor: 'operator', now: new Date() });
    ids[example.name] = theme.id;
  }
  return ids;
}

/** The example journeys, published to the demo tenant when it does not have them yet. */
async function publishExamples(tenantId: string, themeIds: Record<string, string>): Promise<string[]> {
  const published: string[] = [];
  for (const json of Object.values(EXAMPLES)) {
    const { name, version } = json as { name: string; version: number };
    if (await definitionStore.getByNameVersion(tenantId, name, version)) continue;
    await publishDefinition({ definitions, stateMachines, orchestrator: installedOrchestrator, forms: customDataForms, themes }, structuredClone(json), { tenantId, actor: 'operator', now: new Date() });
    published.push(`${name} v${version}`);
  }
  // The BPMN examples as the family's tools deploy them: uploaded (DRAFT), then activated.
  for (const example of BPMN_EXAMPLES) {
    if (await definitionStore.versionRef(tenantId, example.name, 1)) continue;
    const ctx = { tenantId, actor: 'operator', now: new Date() };
    const data = readFileSync(example.file).toString('base64');
    const { record } = await publishBpmnUpload(
      { definitions, stateMachines, orchestrator: installedOrchestrator, forms: customDataForms, themes },
      { name: example.name, description: example.description, resources: { bpmn: { data, type: 'BPMN' } }, ...(example.theme ? { themeId: themeIds[example.theme] } : {}) } as BpmnUpload,
      ctx,
    );
    await setDefinitionStatus(
      { definitions, stateMachines, orchestrator: installedOrchestrator },
      { tenantId, definitionId: record.id, status: 'DEPLOYED_ACTIVE', actor: 'operator', now: new Date() },
    );
    published.push(`${record.name} v${record.version} (BPMN)`);
  }
  return published;
}
