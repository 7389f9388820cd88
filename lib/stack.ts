import { FACE_LIVENESS_REGIONS } from '../functions/faces/liveness-service.js';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArnFormat, CfnOutput, Fn, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { ApiMapping, DomainName, HttpApi, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct, Node } from 'constructs';
import { deploymentPrefix, REGIONS, type ServiceRegion } from '../functions/config.js';
import type { RouteDef } from '../functions/http/route.js';
import { routeList } from '../functions/routes.js';
import { OPEN_INSTANCES_INDEX, TABLE_SCHEMA } from '../functions/store/schema.js';
import { stateMachinePrefix } from '../functions/process-manager/executions/orchestrator.js';
import { Images } from './constructs/images.js';
import { Exports } from './constructs/exports.js';
import { Pages } from './constructs/pages.js';
import { Events } from './constructs/events.js';
import { cloudSecretsKey } from './constructs/cloud-secrets.js';
import { nameKeyUsers, serviceKey } from './constructs/key-policies.js';
import { JourneyFunctions } from './constructs/journey-functions.js';
import { Operations } from './constructs/operations.js';
import { PackageLayer } from './constructs/package-layer.js';
import { reservedConcurrencyFromContext, type ReservedConcurrency } from './concurrency.js';
import { LAYER_COMPANIONS, LAYER_PACKAGES, TRACER_PACKAGE } from './bundling.js';
import type { RouteFunction } from './constructs/route-function.js';
import { RouteStack, routeGroups } from './constructs/route-stack.js';
import { ServiceFunction, nagArn } from './constructs/service-function.js';

/** The repository root: route handler paths in the route table are relative to it. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** What a deployment is configured with; everything comes from cdk.json context (`-c` overrides). */
export interface ArthrSettings {
  /** Service region label (`fir`, `gum`, `oak`): hosts are `{tenant}.{label}.{serviceDomain}`. */
  serviceRegion: ServiceRegion;
  /** The AWS region the label maps to (context `regions`). */
  awsRegion: string;
  serviceDomain: string;
  /** Token issuer; undefined means the API's own default endpoint. */
  issuer?: string;
  audience: string;
  tokenTtlSeconds: number;
  /** The stage's throttle: the ceiling of every tenant's requests together. */
  throttle: { rateLimit: number; burstLimit: number };
  /** Requests per second one tenant may make with its tokens and keys (context `tenantRateLimit`): at most half the stage's rate. */
  tenantRateLimit: number;
  /**
   * Token issues per second one tenant may make (context `tokenRateLimit`, default 10): each is a
   * KMS Sign, whose request quota the account and region share. At most the tenant rate limit.
   */
  tokenRateLimit: number;
  /** ACM certificate for `*.{label}.{serviceDomain}`; without it there is no custom domain. */
  certificateArn?: string;
  /** X-Ray tracing of every function and its AWS calls (context `tracing=true`); off by default, as traces are billed. */
  tracing?: boolean;
  /**
   * Concurrency reserved per function: none unless the context asks (`reservedConcurrency=true`,
   * `activityConcurrency`, `executionEndConcurrency`; lib/concurrency.ts).
   */
  reservedConcurrency: ReservedConcurrency;
  /** Where alarm notifications are mailed (context `alarmEmail`); without it, subscribe to the AlarmTopicArn output. */
  alarmEmail?: string;
  /**
   * Which engine reads identity documents (context `documentEngine`): `embedded` (tesseract.js in
   * the activity function; the default) or `textract` (Amazon Textract's AnalyzeID, which the
   * activity function is then granted). docs/documents.md compares them.
   */
  documentEngine: 'embedded' | 'textract';
}

function str(node: Node, key: string): string | undefined {
  const v: unknown = node.tryGetContext(key);
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new Error(`Context "${key}" must be a string, got ${JSON.stringify(v)}`);
  return v;
}

function int(node: Node, key: string, fallback: number, min: number, max: number): number {
  const v: unknown = node.tryGetContext(key);
  // `-c key=value` hands over strings, cdk.json numbers.
  const n = v === undefined || v === null || v === '' ? fallback : Number(v);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`Context "${key}" must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  }
  return n;
}

/** Reads and checks the context once, so a bad value fails the synth instead of a cold start. */
export function settingsFromContext(node: Node): ArthrSettings {
  const label = str(node, 'region') ?? 'fir';
  if (!(REGIONS as readonly string[]).includes(label)) {
    throw new Error(`Context "region" must be one of ${REGIONS.join(', ')}, got "${label}"`);
  }
  const regions: unknown = node.tryGetContext('regions');
  const awsRegion = regions && typeof regions === 'object' ? (regions as Record<string, unknown>)[label] : undefined;
  if (typeof awsRegion !== 'string' || !/^[a-z]{2}(-[a-z]+)+-\d$/.test(awsRegion)) {
    throw new Error(`Context "regions" must map "${label}" to an AWS region (cdk.json)`);
  }
  const issuer = str(node, 'issuer');
  if (issuer !== undefined && !/^https:\/\/[^/]+/.test(issuer)) {
    // The JWT authorizer fetches `{issuer}/.well-known/openid-configuration` over HTTPS.
    throw new Error(`Context "issuer" must be an https URL, got "${issuer}"`);
  }
  const certificateArn = str(node, 'certificateArn');
  if (certificateArn !== undefined && !certificateArn.startsWith('arn:')) {
    throw new Error(`Context "certificateArn" must be an ACM certificate ARN, got "${certificateArn}"`);
  }
  const settings: ArthrSettings = {
    serviceRegion: label as ServiceRegion,
    awsRegion,
    serviceDomain: str(node, 'serviceDomain') ?? 'example.com',
    audience: str(node, 'audience') ?? 'arthr-api',
    // Same bounds as TOKEN_TTL_SECONDS in functions/config.ts.
    tokenTtlSeconds: int(node, 'tokenTtlSeconds', 3600, 60, 86_400),
    throttle: {
      rateLimit: int(node, 'throttleRateLimit', 1000, 1, 10_000),
      burstLimit: int(node, 'throttleBurstLimit', 2000, 1, 5_000),
    },
    tenantRateLimit: int(node, 'tenantRateLimit', 100, 1, 10_000),
    tokenRateLimit: int(node, 'tokenRateLimit', 10, 1, 1_000),
    // None by default: every reservation raises the Lambda quota the account needs to deploy at all.
    reservedConcurrency: reservedConcurrencyFromContext((key) => node.tryGetContext(key)),
    documentEngine: 'embedded',
  };
  const documentEngine = str(node, 'documentEngine');
  if (documentEngine !== undefined && documentEngine !== 'embedded' && documentEngine !== 'textract') {
    throw new Error(`Context "documentEngine" must be embedded or textract, got "${documentEngine}"`);
  }
  if (documentEngine !== undefined) settings.documentEngine = documentEngine;
  // A tenant that may use the stage's whole rate can starve every other: its share stays below half.
  if (settings.tenantRateLimit * 2 > settings.throttle.rateLimit) {
    throw new Error(
      `Context "tenantRateLimit" (${settings.tenantRateLimit}) must be at most half of "throttleRateLimit" (${settings.throttle.rateLimit}), so that no tenant can use up the stage's throttle`,
    );
  }
  if (settings.tokenRateLimit > settings.tenantRateLimit) {
    throw new Error(`Context "tokenRateLimit" (${settings.tokenRateLimit}) must be at most "tenantRateLimit" (${settings.tenantRateLimit}): token issue is a tenant's smaller budget`);
  }
  const alarmEmail = str(node, 'alarmEmail');
  if (alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarmEmail)) throw new Error(`Context "alarmEmail" must be an email address, got "${alarmEmail}"`);
  if (alarmEmail !== undefined) settings.alarmEmail = alarmEmail;
  if (issuer !== undefined) settings.issuer = issuer;
  if (certificateArn !== undefined) settings.certificateArn = certificateArn;
  const tracing = str(node, 'tracing');
  if (tracing !== undefined && tracing !== 'true' && tracing !== 'false') throw new Error(`Context "tracing" must be true or false, got "${tracing}"`);
  if (tracing === 'true') settings.tracing = true;
  return settings;
}

export interface ArthrStackProps extends StackProps {
  settings: ArthrSettings;
  /** The routes to serve: the route table (functions/routes.ts) unless a test sizes the stack with more. */
  routes?: readonly RouteDef[];
}

/**
 * The service in one AWS region: the table, the token signing key, the HTTP API and one Lambda
 * per operation of the route table (functions/routes.ts), each allowed exactly its `aws` access,
 * in one nested stack per area (lib/constructs/route-stack.ts); for journeys, the activity
 * function and the execution-end function with its EventBridge rule; and the face images bucket
 * with the clean-up that deletes an instance's images when it expires. Every physical name starts
 * with `arthr-{label}` (the stack's own name too), so fir, gum and oak fit in one account-region.
 */
export class ArthrStack extends Stack {
  readonly table: dynamodb.Table;
  /** Encrypts the table, its indexes, stream and backups (sessions, verifiers, task tokens...). */
  readonly tableKey: kms.Key;
  readonly signingKey: kms.Key;
  readonly api: HttpApi;
  readonly functions: ReadonlyMap<string, RouteFunction>;
  /** The nested stacks of routes, by area. */
  readonly routeStacks: ReadonlyMap<string, RouteStack>;
  readonly journeys: JourneyFunctions;
  readonly images: Images;
  readonly exports: Exports;
  readonly pages: Pages;
  readonly events: Events;
  /** Seals tenants' cloud secrets at rest (lib/constructs/cloud-secrets.ts). */
  readonly cloudSecretsKey: kms.Key;
  readonly operations: Operations;
  /** `arthr-{label}`: the start of every physical name of this deployment. */
  readonly namePrefix: string;
  /** Where every state machine logs its errors. */
  readonly stateMachineLogs: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ArthrStackProps) {
    const { settings } = props;
    const label = settings.serviceRegion;
    const namePrefix = deploymentPrefix(label);
    super(scope, id, { ...props, stackName: props.stackName ?? namePrefix });
    this.namePrefix = namePrefix;

    // --- Storage: the single table, shaped by the same schema the local runtime uses, under a key
    // of its own (not DynamoDB's AWS-owned key): its use is in CloudTrail, it can be disabled or
    // scheduled for deletion to make the table, its stream and its backups unreadable, and only
    // this account's principals may use it, only through DynamoDB (whose grants on the table decide
    // who reads what) or to read the stream. DynamoDB Local knows no keys (lib/local/dynamodb.ts).
    this.tableKey = serviceKey(this, 'TableKey', {
      description: `Encrypts the Arthr table, its stream and backups (${namePrefix})`,
      alias: `alias/${namePrefix}-table`,
      enableKeyRotation: true,
      // The retained table (and its point-in-time backups) cannot be read without it.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.tableKey.addToResourcePolicy(
      new iam.PolicyStatement({
        // What the aws/dynamodb key allows: any principal of the account, through DynamoDB in this
        // region only, on behalf of a caller DynamoDB authorised (the functions' table grants, the
        // deployment creating the table, the operator CLI, a restore). Never directly.
        sid: 'TableThroughDynamoDB',
        principals: [new iam.AnyPrincipal()],
        actions: ['kms:Encrypt', 'kms:Decrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:DescribeKey', 'kms:CreateGrant'],
        resources: ['*'],
        conditions: { StringEquals: { 'kms:CallerAccount': this.account, 'kms:ViaService': `dynamodb.${this.region}.amazonaws.com` } },
      }),
    );
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: TABLE_SCHEMA.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE_SCHEMA.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TABLE_SCHEMA.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // Two readers, the most a stream shard should have: the image clean-up (TTL removals of
      // instances) and the outbox relay (new event items, which it reads from the table). Keys
      // only: neither needs more, and no item's data leaves the table. The local runtime makes
      // the same stream (lib/local/dynamodb.ts).
      stream: dynamodb.StreamViewType.KEYS_ONLY,
      encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: this.tableKey,
      // Tenants' records: never deleted with the stack, nor by a mistaken delete-table call.
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const gsi of TABLE_SCHEMA.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: gsi.indexName,
        partitionKey: { name: gsi.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: gsi.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: gsi.projection === 'KEYS_ONLY' ? dynamodb.ProjectionType.KEYS_ONLY : dynamodb.ProjectionType.ALL,
      });
    }

    // --- Token signing key: the private half never leaves KMS; handlers get signatures only.
    // RSA because the API Gateway JWT authorizer verifies RS256 only.
    // Its policy lets the token issue route sign (RS256 digests only) and the routes that check
    // tokens read the public key, and nobody else use it (lib/constructs/key-policies.ts).
    this.signingKey = serviceKey(this, 'SigningKey', {
      keySpec: kms.KeySpec.RSA_2048,
      keyUsage: kms.KeyUsage.SIGN_VERIFY,
      description: `Signs Arthr bearer tokens (RS256) in region ${label}`,
      alias: `alias/${namePrefix}-token-signing`,
      // Deleting it would invalidate every token in flight and lose the published kid.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Asymmetric keys cannot rotate automatically (AwsSolutions-KMS5 checks symmetric keys
    // only, so there is nothing to acknowledge): rotating means a new key and a new kid in the JWKS.

    // --- HTTP API with its $default stage.
    this.api = new HttpApi(this, 'Api', {
      apiName: namePrefix,
      description: `Arthr identity verification API (${label})`,
      // The stage is made below so that it gets throttling and access logs.
      createDefaultStage: false,
    });

    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', {
      retention: logs.RetentionDays.THREE_MONTHS,
      // Who called what: kept after the stack is gone, for investigations.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: settings.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        // JSON, one object per request. No query strings, headers or bodies: those can carry
        // secrets; the tenant and key id come from verified token claims.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            extendedRequestId: '$context.extendedRequestId',
            requestTime: '$context.requestTime',
            ip: '$context.identity.sourceIp',
            userAgent: '$context.identity.userAgent',
            domainName: '$context.domainName',
            httpMethod: '$context.httpMethod',
            routeKey: '$context.routeKey',
            path: '$context.path',
            protocol: '$context.protocol',
            status: '$context.status',
            responseLength: '$context.responseLength',
            responseLatency: '$context.responseLatency',
            integrationLatency: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            authorizerError: '$context.authorizer.error',
            tenantId: '$context.authorizer.claims.tid',
            clientId: '$context.authorizer.claims.client_id',
          }),
        ),
      },
    });

    // The API serves its own discovery document and JWKS publicly, so by default it is its own
    // issuer and the authorizer fetches the keys from it.
    const issuer = settings.issuer ?? this.api.apiEndpoint;

    const authorizer = new HttpJwtAuthorizer('BearerToken', issuer, {
      authorizerName: 'bearer-token',
      jwtAudience: [settings.audience],
      identitySource: ['$request.header.Authorization'],
    });

    // --- Journeys: every published definition version gets a state machine named
    // `arthr-{label}-{hash}` (several versions of a tenant that compile alike share one), run
    // with this role, whose only rights besides logging and tracing are to invoke the activity
    // function and, from each journey's last state, the execution-end function that records its
    // outcome. Both are named in advance: every function's configuration names them, theirs included.
    const functionArn = (name: string) => this.formatArn({ service: 'lambda', resource: 'function', resourceName: name, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
    const activityFunctionName = ServiceFunction.physicalName(namePrefix, 'activities');
    const activityFunctionArn = functionArn(activityFunctionName);
    const executionEndFunctionName = ServiceFunction.physicalName(namePrefix, 'execution-end');
    const executionEndFunctionArn = functionArn(executionEndFunctionName);
    // Every state machine this stack publishes is named `arthr-{label}-{hash}` (functions/process-manager/executions/state-machine-names.ts).
    const machinePrefix = stateMachinePrefix(label);
    const stateMachineArnPattern = this.formatArn({
      service: 'states',
      resource: 'stateMachine',
      resourceName: `${machinePrefix}*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    const stateMachineRole = new iam.Role(this, 'StateMachineRole', {
      // Step Functions may take this role only for this deployment's own state machines, in this
      // account (confused deputy): Step Functions passes both keys when it assumes the role.
      assumedBy: new iam.ServicePrincipal('states.amazonaws.com').withConditions({
        StringEquals: { 'aws:SourceAccount': this.account },
        ArnLike: { 'aws:SourceArn': stateMachineArnPattern },
      }),
      description: 'Runs journey state machines: invokes the activity function and the execution-end function only.',
      inlinePolicies: {
        invokeActivities: new iam.PolicyDocument({
          statements: [
            new iam.PolicyStatement({
              actions: ['lambda:InvokeFunction'],
              resources: [activityFunctionArn, `${activityFunctionArn}:*`, executionEndFunctionArn, `${executionEndFunctionArn}:*`],
            }),
          ],
        }),
      },
    });
    for (const arn of [activityFunctionArn, executionEndFunctionArn]) {
      Validations.of(stateMachineRole).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${nagArn(`${arn}:*`, this)}]`,
        reason: 'The `:*` suffix covers the versions and aliases of that one function, nothing else.',
      });
    }
    // Their errors (never their data: functions/process-manager/executions/step-functions.ts) go to one log
    // group. State machines are made at run time, outside CloudFormation, and outlive the stack,
    // so the group is kept with them.
    this.stateMachineLogs = new logs.LogGroup(this, 'StateMachineLogs', {
      // Under /aws/vendedlogs/, where CloudWatch Logs keeps one resource policy for every
      // state machine's log delivery instead of one per state machine (whose size is limited).
      // Kept, so named after this deployment of the stack (its stack id's UUID): a fixed name
      // would make the next deployment of the label in this account and region fail on the
      // group the last one left. Who needs it gets its ARN (STATE_MACHINE_LOG_GROUP_ARN).
      logGroupName: `/aws/vendedlogs/states/${namePrefix}-${Fn.select(2, Fn.split('/', this.stackId))}`,
      retention: logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    stateMachineRole.attachInlinePolicy(
      new iam.Policy(this, 'StateMachineObservability', {
        statements: [
          // What Step Functions needs to set up log delivery to the group (CloudWatch Logs' vended
          // log delivery, which takes no resource-level permission).
          new iam.PolicyStatement({
            sid: 'LogDelivery',
            actions: [
              'logs:CreateLogDelivery',
              'logs:GetLogDelivery',
              'logs:UpdateLogDelivery',
              'logs:DeleteLogDelivery',
              'logs:ListLogDeliveries',
              'logs:PutResourcePolicy',
              'logs:DescribeResourcePolicies',
              'logs:DescribeLogGroups',
            ],
            resources: ['*'],
          }),
          ...(settings.tracing
            ? [
                new iam.PolicyStatement({
                  sid: 'XRayTraces',
                  actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords', 'xray:GetSamplingRules', 'xray:GetSamplingTargets'],
                  resources: ['*'],
                }),
              ]
            : []),
        ],
      }),
    );
    Validations.of(this.node.findChild('StateMachineObservability')).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Log delivery setup (logs:*LogDelivery*, PutResourcePolicy, DescribeResourcePolicies, DescribeLogGroups) and X-Ray ' +
        'segment writes support no resource-level permission; Step Functions uses them only to deliver its own logs and traces.',
    });
    const faceLiveness = (FACE_LIVENESS_REGIONS as readonly string[]).includes(settings.awsRegion);
    const environment: Record<string, string> = {
      TABLE_NAME: this.table.tableName,
      SERVICE_REGION: label,
      SERVICE_DOMAIN: settings.serviceDomain,
      TOKEN_ISSUER: issuer,
      TOKEN_AUDIENCE: settings.audience,
      TOKEN_TTL_SECONDS: String(settings.tokenTtlSeconds),
      SIGNING_KEY: `kms:${this.signingKey.keyId}`,
      STATE_MACHINE_ROLE_ARN: stateMachineRole.roleArn,
      STATE_MACHINE_LOG_GROUP_ARN: this.stateMachineLogs.logGroupArn,
      STATE_MACHINE_TRACING: settings.tracing ? 'true' : 'false',
      ACTIVITY_FUNCTION_ARN: activityFunctionArn,
      EXECUTION_END_FUNCTION_ARN: executionEndFunctionArn,
      LOG_LEVEL: 'INFO',
      TENANT_RATE_LIMIT: String(settings.tenantRateLimit),
      TOKEN_RATE_LIMIT: String(settings.tokenRateLimit),
      // Powertools' `service`: a dimension of every metric and a field of every log line, so
      // the deployments of several regions in one account keep their metrics apart.
      POWERTOOLS_SERVICE_NAME: namePrefix,
      // Rekognition Face Liveness where the region has it: a capture's Liveness Check REKOGNITION is published only then.
      ...(faceLiveness ? { FACE_LIVENESS: 'rekognition' } : {}),
    };

    // --- Face images in S3, and their deletion when an instance's retention ends.
    this.images = new Images(this, 'Images', {
      repoRoot: REPO_ROOT,
      table: this.table,
      sortKey: TABLE_SCHEMA.sortKey,
      namePrefix,
      // What the store configuration parses (functions/config.ts), and the log level.
      environment: { TABLE_NAME: this.table.tableName, LOG_LEVEL: environment.LOG_LEVEL!, POWERTOOLS_SERVICE_NAME: namePrefix },
    });

    // Route queries read only the indexes made for them (not the reconciler's).
    const indexNames = TABLE_SCHEMA.globalSecondaryIndexes.filter((g) => g.queriedByRoutes).map((g) => g.indexName);

    // --- Cloud secrets: sealed with their own key, opened only by the step that gives them to a function.
    this.cloudSecretsKey = cloudSecretsKey(this);

    // --- Events out: the outbox relay from the table's stream to the stack's own bus.
    this.events = new Events(this, 'Events', {
      repoRoot: REPO_ROOT,
      namePrefix,
      table: this.table,
      environment: { TABLE_NAME: this.table.tableName, LOG_LEVEL: environment.LOG_LEVEL!, POWERTOOLS_SERVICE_NAME: namePrefix },
      secretsKey: this.cloudSecretsKey,
    });


    // --- Asynchronous exports: what is too large for one Lambda response, made into S3.
    this.exports = new Exports(this, 'Exports', {
      repoRoot: REPO_ROOT,
      namePrefix,
      table: this.table,
      indexNames,
      images: this.images,
      accessLogs: this.images.accessLogs,
      environment,
    });

    // --- Custom pages: their bucket, served from an origin of their own (CloudFront).
    this.pages = new Pages(this, 'Pages', { accessLogs: this.images.accessLogs, tenantHosts: `*.${label}.${settings.serviceDomain}` });

    // Packages too large for a handler's bundle, shared by the functions that load them.
    const packageLayers = new Map(
      LAYER_PACKAGES.map((p) => [p, new PackageLayer(this, `Layer${p.replace(/[^A-Za-z0-9]/g, '')}`, { root: REPO_ROOT, packages: [p, ...(LAYER_COMPANIONS[p] ?? [])], description: `${p} and its dependencies, from the repository's lock file` }).layer] as const),
    );
    const functions = new Map<string, RouteFunction>();
    const routeStacks = new Map<string, RouteStack>();
    for (const [area, routes] of routeGroups(props.routes ?? routeList)) {
      const routeStack = new RouteStack(this, {
        area,
        routes,
        httpApi: this.api,
        authorizer,
        namePrefix,
        repoRoot: REPO_ROOT,
        table: this.table,
        indexNames,
        signingKey: this.signingKey,
        stateMachineRole,
        stateMachineArnPattern,
        images: this.images,
        exports: this.exports,
        pages: this.pages,
        cloudSecretsKey: this.cloudSecretsKey,
        // The replay route queues on the replay queue only (fresh deliveries are the relay's).
        webhookQueue: this.events.replays,
        packageLayers,
        environment,
        faceLiveness,
      });
      routeStacks.set(area, routeStack);
      for (const [operationId, fn] of routeStack.functions) functions.set(operationId, fn);
    }
    this.routeStacks = routeStacks;
    this.functions = functions;

    // --- Journeys' own functions: the activity function the state machines invoke (by the
    // name above) and the one that records an execution's end on its instance.
    this.journeys = new JourneyFunctions(this, 'Journeys', {
      repoRoot: REPO_ROOT,
      namePrefix,
      table: this.table,
      activityFunctionName,
      executionEndFunctionName,
      reservedConcurrency: settings.reservedConcurrency,
      cloudSecretsKey: this.cloudSecretsKey,
      packageLayers,
      images: this.images,
      pagesOrigin: this.pages.origin,
      documentEngine: settings.documentEngine,
      stateMachineArnPrefix: this.formatArn({
        service: 'states',
        resource: 'stateMachine',
        resourceName: machinePrefix,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      }),
      openInstancesIndexName: OPEN_INSTANCES_INDEX,
      executionArnPrefix: this.formatArn({
        service: 'states',
        resource: 'execution',
        resourceName: machinePrefix,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      }),
      environment,
    });

    // --- Operations: alarms that notify one topic, and the dashboard.
    this.operations = new Operations(this, 'Operations', {
      namePrefix,
      apiId: this.api.apiId,
      stage: stage.stageName,
      activities: this.journeys.activities,
      activityConcurrency: settings.reservedConcurrency.activities,
      executionEndConcurrency: settings.reservedConcurrency.executionEnd,
      executionEnd: this.journeys.executionEnd,
      janitor: this.journeys.janitor,
      table: this.table,
      stateMachineLogs: this.stateMachineLogs,
      deadLetterQueues: [
        { title: 'Execution ends not recorded', queue: this.journeys.executionEndDeadLetters },
        { title: 'Image clean-ups not done', queue: this.images.cleanupDeadLetters },
        { title: 'Export jobs failed', queue: this.exports.deadLetters },
        { title: 'Events not relayed', queue: this.events.relayDeadLetters },
        { title: 'Webhook deliveries not attempted', queue: this.events.deliveryDeadLetters },
        { title: 'Webhook retries not attempted', queue: this.events.retryDeadLetters },
      ],
      ...(settings.alarmEmail ? { alarmEmail: settings.alarmEmail } : {}),
    });

    // --- Tenant hosts: `{tenantId}.{label}.{serviceDomain}` on one wildcard custom domain.
    const tenantHosts = `*.${label}.${settings.serviceDomain}`;
    if (settings.certificateArn) {
      const domain = new DomainName(this, 'TenantDomain', {
        domainName: tenantHosts,
        certificate: Certificate.fromCertificateArn(this, 'TenantCertificate', settings.certificateArn),
      });
      new ApiMapping(this, 'TenantApiMapping', { api: this.api, domainName: domain, stage });
      new CfnOutput(this, 'TenantDomainTarget', {
        description: `Point a wildcard DNS record ${tenantHosts} (CNAME, or alias in hosted zone TenantDomainHostedZoneId) here.`,
        value: domain.regionalDomainName,
      });
      new CfnOutput(this, 'TenantDomainHostedZoneId', {
        description: 'Hosted zone of TenantDomainTarget, for a Route 53 alias record.',
        value: domain.regionalHostedZoneId,
      });
    }

    new CfnOutput(this, 'ApiUrl', {
      description: settings.certificateArn
        ? `Default endpoint (public documents). Tenant routes are served on https://${tenantHosts}.`
        : `Default endpoint (public documents only). Tenant routes need the host {tenantId}.${label}.${settings.serviceDomain}: deploy with -c certificateArn=<ACM certificate for ${tenantHosts}> to create that custom domain.`,
      value: stage.url,
    });
    new CfnOutput(this, 'TableName', { description: 'The single DynamoDB table.', value: this.table.tableName });
    new CfnOutput(this, 'SigningKeyId', { description: 'KMS key that signs bearer tokens.', value: this.signingKey.keyId });
    new CfnOutput(this, 'ActivityFunctionName', {
      description: 'The Lambda every journey state machine invokes for its activities.',
      value: this.journeys.activities.function.functionName,
    });
    new CfnOutput(this, 'ExecutionEndDeadLetterQueueUrl', {
      description: 'Journey execution ends that could not be recorded on their instance, kept 14 days for a redrive.',
      value: this.journeys.executionEndDeadLetters.queueUrl,
    });
    new CfnOutput(this, 'ImagesBucketName', { description: 'Face images, under tenants/{tenantId}/instances/{id}/.', value: this.images.bucket.bucketName });
    new CfnOutput(this, 'ImageCleanupDeadLetterQueueUrl', {
      description: 'Table stream batches whose expired instances\' images could not be deleted (pointers into the stream, readable for 24 hours).',
      value: this.images.cleanupDeadLetters.queueUrl,
    });
    new CfnOutput(this, 'ExportsBucketName', { description: 'Export files (archives, CSV), under tenants/{tenantId}/exports/{exportId}/, kept 7 days.', value: this.exports.bucket.bucketName });
    new CfnOutput(this, 'PagesBucketName', { description: 'Custom page files, under tenants/{tenantId}/custom-pages/{pageId}/{secret}/, and pending uploads.', value: this.pages.bucket.bucketName });
    new CfnOutput(this, 'PagesOrigin', { description: 'Where custom pages are served from (previewUrl), without a token.', value: this.pages.origin });
    new CfnOutput(this, 'ExportDeadLetterQueueUrl', { description: 'Export jobs that failed every attempt (each marked FAILED).', value: this.exports.deadLetters.queueUrl });
    new CfnOutput(this, 'EventBusName', {
      description: 'The service\'s events (source arthr.events, detail-type the event type): put rules on it, or subscribe a webhook.',
      value: this.events.bus.eventBusName,
    });
    new CfnOutput(this, 'EventRelayDeadLetterQueueUrl', {
      description: 'Table stream records whose events could not be relayed to the bus (pointers; the events stay in the outbox 30 days).',
      value: this.events.relayDeadLetters.queueUrl,
    });
    new CfnOutput(this, 'WebhookDeliveryDeadLetterQueueUrl', {
      description: 'Webhook deliveries the worker could not even attempt (its own reads or writes failing); the deliveries stay PENDING for a replay.',
      value: this.events.deliveryDeadLetters.queueUrl,
    });
    new CfnOutput(this, 'SubscriberDeliveryRoleArn', {
      description:
        "Webhooks with an SQS queue or EventBridge bus target are sent as this role, tagged arthr-tenant={tenantId}: the queue's or bus's policy allows it with aws:PrincipalTag/arthr-tenant equal to its tenant (docs/events-and-webhooks.md, A queue or bus as the target).",
      value: this.events.subscriberRole.roleArn,
    });
    new CfnOutput(this, 'Issuer', { description: 'Bearer token issuer (iss) checked by the JWT authorizer.', value: issuer });
    new CfnOutput(this, 'AlarmTopicArn', {
      description: 'Every alarm of the stack notifies this SNS topic: subscribe the on-call address (or deploy with -c alarmEmail=...).',
      value: this.operations.topic.topicArn,
    });
    new CfnOutput(this, 'DashboardName', { description: 'The CloudWatch dashboard of the service.', value: this.operations.dashboard.dashboardName });

    // --- X-Ray, when the deployment asks for it: every function of the stack, one Tracer layer.
    if (settings.tracing) {
      const tracerLayer = new PackageLayer(this, 'LayerPowertoolsTracer', {
        root: REPO_ROOT,
        packages: [TRACER_PACKAGE],
        description: `${TRACER_PACKAGE} and the X-Ray SDK, from the repository's lock file`,
      }).layer;
      for (const fn of this.node.findAll().filter((c): c is ServiceFunction => c instanceof ServiceFunction)) fn.enableTracing(tracerLayer);
    }

    // Once every function is made: each key's policy names the roles that use it, for what.
    nameKeyUsers(this, [this.signingKey, this.tableKey, this.images.key, this.exports.key, this.cloudSecretsKey]);

    // Last, so that every alarm made above (the dead-letter queues' too) notifies the topic.
    this.operations.notifyAll(this);
  }
}

