import * as z from './shared/zod.js';

/** The service's regions; each maps to an AWS region in cdk.json context. */
export const REGIONS = ['fir', 'gum', 'oak'] as const;
export type ServiceRegion = (typeof REGIONS)[number];

/**
 * What every physical name of a region's deployment starts with (its stack, functions, log
 * groups, key aliases, state machines), so the stacks of fir, gum and oak can live in one
 * account and AWS region without one's names, grants or event rules reaching another's.
 */
export function deploymentPrefix(region: ServiceRegion): string {
  return `arthr-${region}`;
}

/** Standard Webhooks' schedule after the first attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_WEBHOOK_RETRY_SECONDS = '5,300,1800,7200,18000,36000,36000';

/** WEBHOOK_SWEEP_MARGIN_SECONDS, parsed with the store configuration. */
export function webhookSweepMarginSeconds(): number {
  return Number(getStoreConfig().WEBHOOK_SWEEP_MARGIN_SECONDS);
}

/** The seconds before each retry, from a WEBHOOK_RETRY_SECONDS value; a delivery gets one attempt more than it has retries. */
export function webhookRetrySeconds(schedule = DEFAULT_WEBHOOK_RETRY_SECONDS): number[] {
  return schedule.split(',').map(Number);
}

const StoreConfigSchema = z.object({
  TABLE_NAME: z.string().check(z.minLength(1)),
  /** Set only for DynamoDB Local. */
  DYNAMODB_ENDPOINT: z.optional(z.url()),
  /** The S3 bucket of face images (set for the functions that touch images). */
  IMAGES_BUCKET: z.optional(z.string().check(z.minLength(3))),
  /** Set only locally: the S3 stand-in (fauxqs), addressed path-style. */
  S3_ENDPOINT: z.optional(z.url()),
  /**
   * Set only locally: where pre-signed URLs point (the local S3's gateway that checks their
   * signature and expiry before serving the object); on AWS they point at S3 itself.
   */
  S3_PUBLIC_ENDPOINT: z.optional(z.url()),
  /**
   * Set only locally, with S3_ENDPOINT: the secret access key the service signs pre-signed URLs
   * with, which the local S3's gateway checks them against. The local runtime makes a new one at
   * each start and gives it to no one else (never to the cloud function runner): with a key
   * anyone knows (the constant `local` before), anyone could sign a URL to any tenant's object.
   */
  S3_LOCAL_SECRET: z.optional(z.string().check(z.minLength(32))),
  /** The S3 bucket of asynchronous exports (archives, CSV files), for the functions that start, run or read them. */
  EXPORTS_BUCKET: z.optional(z.string().check(z.minLength(3))),
  /** The S3 bucket of custom page files and their pending uploads (functions/adapters/page-files.ts). */
  PAGES_BUCKET: z.optional(z.string().check(z.minLength(3))),
  /**
   * The origin custom pages are served from, never a tenant's own (a CloudFront domain on AWS,
   * `http://pages.localhost:{port}` locally): previewUrl and a page's baseUrl start with it.
   */
  PAGES_ORIGIN: z.optional(z.url()),
  /** The stack's EventBridge bus that events are relayed to (AWS); locally an in-process bus is installed instead. */
  EVENT_BUS_NAME: z.optional(z.string().check(z.minLength(1))),
  /** The SQS FIFO queue webhook deliveries wait in (fauxqs's, locally). */
  WEBHOOK_QUEUE_URL: z.optional(z.url()),
  /** The SQS FIFO queue replayed webhook deliveries wait in, with workers apart from fresh deliveries'. */
  WEBHOOK_REPLAY_QUEUE_URL: z.optional(z.url()),
  /** The standard SQS queue every later attempt of a delivery waits in (with DelaySeconds), apart from the FIFO queues. */
  WEBHOOK_RETRY_QUEUE_URL: z.optional(z.url()),
  /**
   * How long past its due time (created, next attempt, parked) a PENDING delivery may stay before
   * the sweeper takes it for one whose message was lost and queues it again. Above the retry
   * queue's longest hop (15 minutes) and any FIFO backlog worth waiting for.
   */
  WEBHOOK_SWEEP_MARGIN_SECONDS: z._default(z.string().check(z.regex(/^\d{1,6}$/)), '1200'),
  /** Set only locally: the SQS stand-in (fauxqs). */
  SQS_ENDPOINT: z.optional(z.url()),
  /** AWS: the deployment's own account, never a webhook's SQS or EventBridge target. */
  SERVICE_ACCOUNT_ID: z.optional(z.string().check(z.regex(/^\d{12}$/))),
  /**
   * AWS: the role this function acts through for one tenant (functions/adapters/tenant-credentials.ts),
   * assumed with the tenant's session tag; its grants on the table name only that tenant's
   * partitions. Unset locally (DynamoDB Local has no IAM) and for functions that act for no tenant.
   */
  TENANT_ROLE_ARN: z.optional(z.string().check(z.regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/.+/))),
  /** AWS: the role the delivery worker assumes, tagged with the tenant, to send to a relying party's queue or bus. */
  SUBSCRIBER_ROLE_ARN: z.optional(z.string().check(z.minLength(20))),
  /**
   * Set only locally: webhooks may be http:// to a loopback address (a developer's receiver on
   * this machine). On AWS every webhook is https:// to a public address.
   */
  WEBHOOK_ALLOW_LOOPBACK: z.optional(z.enum(['true', 'false'])),
  /**
   * Set only locally: a tenant's document service (Regula Document Reader, named by a cloud
   * secret) may be http:// on a loopback address. On AWS it is https:// to a public address.
   */
  DOCUMENT_SERVICE_ALLOW_LOOPBACK: z.optional(z.enum(['true', 'false'])),
  /**
   * Seconds before each retry of a failed delivery, comma-separated: the Standard Webhooks
   * schedule by default (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: eight attempts over about a
   * day), each with up to 20% jitter. Each at most 43,200 (12 hours).
   */
  WEBHOOK_RETRY_SECONDS: z._default(z.string().check(z.regex(/^\d{1,5}(,\d{1,5}){0,19}$/)), DEFAULT_WEBHOOK_RETRY_SECONDS),
  /** The SQS queue export jobs go to (AWS); locally an in-process worker is installed instead. */
  EXPORTS_QUEUE_URL: z.optional(z.url()),
  /** The key that seals an archive password until its job runs: `kms:<key id or ARN>` on AWS, `file:<path>` locally. */
  EXPORTS_KEY: z.optional(z.string().check(z.regex(/^(kms|file):.+$/, 'must be kms:<key> or file:<path>'))),
  /** The key that seals cloud secrets at rest: `kms:<key id or ARN>` on AWS, `file:<path>` locally. */
  SECRETS_KEY: z.optional(z.string().check(z.regex(/^(kms|file):.+$/, 'must be kms:<key> or file:<path>'))),
  /** The cloud function runner Lambda (its name or ARN), for the step that runs tenant functions; locally a child process is installed instead. */
  CLOUD_FUNCTION_RUNNER: z.optional(z.string().check(z.minLength(1))),
  /**
   * Origins (comma-separated) a cloud function may reach though the outbound guard refuses them:
   * locally, the S3 stand-in's public endpoint on loopback (S3 is public on AWS, where this is unset).
   */
  CLOUD_FUNCTION_ALLOWED_ORIGINS: z.optional(z.string()),
  /**
   * Endpoints (comma-separated URLs) of the local runtime's own services on this machine (DynamoDB
   * Local, fauxqs's S3 and SQS) that tenant code and webhooks may never reach, whatever else the
   * guard would allow; their ports are refused on every loopback address. Unset on AWS, where
   * there are none.
   */
  LOCAL_SERVICE_ENDPOINTS: z.optional(z.string()),
  /**
   * What the Rekognition collections of this deployment's watchlists are named from
   * (`{prefix}.{tenantId}.{watchlistId}`), for the functions that run the face engine on AWS;
   * locally the embedded engine is installed instead.
   */
  FACE_COLLECTION_PREFIX: z.optional(z.string().check(z.regex(/^[a-zA-Z0-9_-]{1,64}$/))),
  /**
   * Which engine reads identity documents (functions/adapters/document-engine.ts): `embedded`
   * (tesseract.js and the MRZ parser, in the function itself; the default, locally and on AWS)
   * or `textract` (Amazon Textract's AnalyzeID in the function's region). The stack sets it from
   * its `documentEngine` property.
   */
  DOCUMENT_ENGINE: z.optional(z.enum(['embedded', 'textract'])),
  /**
   * AWS only: `rekognition` where the deployment's region has Amazon Rekognition Face Liveness
   * (the stack sets it from FACE_LIVENESS_REGIONS), so that a capture's Liveness Check REKOGNITION
   * is published; unset (locally, and in other regions) it is refused at publish.
   */
  FACE_LIVENESS: z.optional(z.enum(['rekognition'])),
  /** AWS only: the role the end user's browser gets a session of, to stream one Face Liveness check (functions/adapters/face-liveness.ts). */
  LIVENESS_BROWSER_ROLE_ARN: z.optional(z.string().check(z.regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/.+/))),
});

const ConfigSchema = z.extend(StoreConfigSchema, {
  /** Region label this deployment serves: requests for another region's hosts are refused. */
  SERVICE_REGION: z.enum(REGIONS),
  /** Hosts are `{tenantId}.{SERVICE_REGION}.{SERVICE_DOMAIN}`. */
  SERVICE_DOMAIN: z.string().check(z.minLength(1)),
  TOKEN_ISSUER: z.url(),
  TOKEN_AUDIENCE: z.string().check(z.minLength(1)),
  /** Bearer token lifetime in seconds (the `ttl` of the issue response). */
  TOKEN_TTL_SECONDS: z._default(z.coerce.number().check(z.int(), z.gte(60), z.lte(86_400)), 3600),
  /** `kms:<key id or ARN>` in AWS, `file:<path to PKCS#8 PEM>` locally. */
  SIGNING_KEY: z.string().check(z.regex(/^(kms|file):.+$/, 'must be kms:<key> or file:<path>')),
  LOG_LEVEL: z._default(z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']), 'INFO'),
  /** AWS only: the role Step Functions assumes to run journeys. */
  STATE_MACHINE_ROLE_ARN: z.optional(z.string()),
  /** AWS only: the log group (ARN ending in `:*`) every state machine logs its errors to. */
  STATE_MACHINE_LOG_GROUP_ARN: z.optional(z.string().check(z.regex(/^arn:[^:]+:logs:.+:\*$/, 'must be a log group ARN ending in :*'))),
  /** AWS only: X-Ray tracing of the state machines published from now on. */
  STATE_MACHINE_TRACING: z._default(z.enum(['true', 'false']), 'false'),
  /**
   * Requests per second one tenant may make with its tokens and keys (bearer and "B or K"
   * routes), whatever the others do; unset, no per-tenant limit (the stack always sets one).
   */
  TENANT_RATE_LIMIT: z.optional(z.coerce.number().check(z.int(), z.gte(1), z.lte(100_000))),
  /**
   * Token issues per second one tenant may make (each is one KMS Sign on AWS, a quota the whole
   * account and region share), counted apart from TENANT_RATE_LIMIT once the key is verified;
   * unset, no limit (the stack always sets one).
   */
  TOKEN_RATE_LIMIT: z.optional(z.coerce.number().check(z.int(), z.gte(1), z.lte(100_000))),
  /** The Lambda that runs activities, named in every compiled state machine. */
  ACTIVITY_FUNCTION_ARN: z._default(z.string(), 'arn:aws:lambda:local:000000000000:function:arthr-activities'),
  /** The Lambda that records a journey's end on its instance: every compiled state machine's last state invokes it. */
  EXECUTION_END_FUNCTION_ARN: z._default(z.string(), 'arn:aws:lambda:local:000000000000:function:arthr-execution-end'),
});

export type Config = z.infer<typeof ConfigSchema>;
export type StoreConfig = z.infer<typeof StoreConfigSchema>;

let cached: Config | undefined;
let cachedStore: StoreConfig | undefined;

function parse<T extends z.ZodMiniType>(schema: T, env: NodeJS.ProcessEnv): z.output<T> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid service configuration: ${problems}`);
  }
  return parsed.data;
}

/** Just what the store needs, so tools that only touch the table (the operator CLI) need no more. */
export function getStoreConfig(env: NodeJS.ProcessEnv = process.env): StoreConfig {
  cachedStore ??= parse(StoreConfigSchema, env);
  return cachedStore;
}

/** The local runtime's own services that tenant code and webhooks may not reach (LOCAL_SERVICE_ENDPOINTS); none on AWS. */
export function localServiceEndpoints(): string[] {
  return getStoreConfig().LOCAL_SERVICE_ENDPOINTS?.split(',').filter(Boolean) ?? [];
}

/** Parsed once per process (cold start); a bad environment fails fast with every problem named. */
export function getConfig(env: NodeJS.ProcessEnv = process.env): Config {
  cached ??= parse(ConfigSchema, env);
  return cached;
}

/** For tests that build several configurations in one process. */
export function resetConfigForTests(): void {
  cached = undefined;
  cachedStore = undefined;
}
