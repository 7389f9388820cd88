import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArnFormat, CfnOutput, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  ApiMapping,
  DomainName,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct, Node } from 'constructs';
import { REGIONS, type ServiceRegion } from '../functions/config.js';
import { routeList } from '../functions/routes.js';
import { TABLE_SCHEMA } from '../functions/store/schema.js';
import { stateMachineName } from '../functions/process-manager/orchestrator.js';
import { Images } from './constructs/images.js';
import { JourneyFunctions } from './constructs/journey-functions.js';
import { PackageLayer } from './constructs/package-layer.js';
import { LAYER_PACKAGES, TRACER_PACKAGE } from './bundling.js';
import { RouteFunction } from './constructs/route-function.js';
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
  throttle: { rateLimit: number; burstLimit: number };
  /** ACM certificate for `*.{label}.{serviceDomain}`; without it there is no custom domain. */
  certificateArn?: string;
  /** X-Ray tracing of every function and its AWS calls (context `tracing=true`); off by default, as traces are billed. */
  tracing?: boolean;
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
      rateLimit: int(node, 'throttleRateLimit', 50, 1, 10_000),
      burstLimit: int(node, 'throttleBurstLimit', 100, 1, 5_000),
    },
  };
  if (issuer !== undefined) settings.issuer = issuer;
  if (certificateArn !== undefined) settings.certificateArn = certificateArn;
  const tracing = str(node, 'tracing');
  if (tracing !== undefined && tracing !== 'true' && tracing !== 'false') throw new Error(`Context "tracing" must be true or false, got "${tracing}"`);
  if (tracing === 'true') settings.tracing = true;
  return settings;
}

export interface ArthrStackProps extends StackProps {
  settings: ArthrSettings;
}

const METHODS: Record<string, HttpMethod> = {
  GET: HttpMethod.GET,
  POST: HttpMethod.POST,
  PUT: HttpMethod.PUT,
  PATCH: HttpMethod.PATCH,
  DELETE: HttpMethod.DELETE,
};

/**
 * The service in one AWS region: the table, the token signing key, the HTTP API and one Lambda
 * per operation of the route table (functions/routes.ts), each allowed exactly its `aws` access;
 * for journeys, the activity function and the execution-end function with its EventBridge rule;
 * and the face images bucket with the clean-up that deletes an instance's images when it expires.
 */
export class ArthrStack extends Stack {
  readonly table: dynamodb.Table;
  readonly signingKey: kms.Key;
  readonly api: HttpApi;
  readonly functions: ReadonlyMap<string, RouteFunction>;
  readonly journeys: JourneyFunctions;
  readonly images: Images;

  constructor(scope: Construct, id: string, props: ArthrStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const label = settings.serviceRegion;

    // --- Storage: the single table, shaped by the same schema the local runtime uses.
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: TABLE_SCHEMA.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE_SCHEMA.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TABLE_SCHEMA.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // For the image clean-up (TTL removals of instances, below). AWS only, so not in the shared
      // schema. Keys only: the clean-up needs nothing else, and no item's data leaves the table.
      stream: dynamodb.StreamViewType.KEYS_ONLY,
      // Tenants' records: never deleted with the stack, nor by a mistaken delete-table call.
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const gsi of TABLE_SCHEMA.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: gsi.indexName,
        partitionKey: { name: gsi.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: gsi.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }

    // --- Token signing key: the private half never leaves KMS; handlers get signatures only.
    // RSA because the API Gateway JWT authorizer verifies RS256 only.
    this.signingKey = new kms.Key(this, 'SigningKey', {
      keySpec: kms.KeySpec.RSA_2048,
      keyUsage: kms.KeyUsage.SIGN_VERIFY,
      description: `Signs Arthr bearer tokens (RS256) in region ${label}`,
      alias: `alias/arthr-${label}-token-signing`,
      // Deleting it would invalidate every token in flight and lose the published kid.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Asymmetric keys cannot rotate automatically (AwsSolutions-KMS5 checks symmetric keys
    // only, so there is nothing to acknowledge): rotating means a new key and a new kid in the JWKS.

    // --- HTTP API with its $default stage.
    this.api = new HttpApi(this, 'Api', {
      apiName: `arthr-${label}`,
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

    // --- Journeys: every published definition version gets a state machine named arthr-<id>,
    // run with this role, whose only right is to invoke the activity function.
    const activityFunctionName = `arthr-${label}-activities`;
    const activityFunctionArn = this.formatArn({ service: 'lambda', resource: 'function', resourceName: activityFunctionName, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
    const stateMachineRole = new iam.Role(this, 'StateMachineRole', {
      assumedBy: new iam.ServicePrincipal('states.amazonaws.com'),
      description: 'Runs journey state machines: invokes the activity function only.',
      inlinePolicies: {
        invokeActivities: new iam.PolicyDocument({
          statements: [new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [activityFunctionArn, `${activityFunctionArn}:*`] })],
        }),
      },
    });
    Validations.of(stateMachineRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(`${activityFunctionArn}:*`, this)}]`,
      reason: 'The `:*` suffix covers the versions and aliases of the one activity function, nothing else.',
    });
    // Every state machine this stack publishes is named stateMachineName(definition id).
    const stateMachinePrefix = stateMachineName('');
    const stateMachineArnPattern = this.formatArn({
      service: 'states',
      resource: 'stateMachine',
      resourceName: `${stateMachinePrefix}*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });

    const environment: Record<string, string> = {
      TABLE_NAME: this.table.tableName,
      SERVICE_REGION: label,
      SERVICE_DOMAIN: settings.serviceDomain,
      TOKEN_ISSUER: issuer,
      TOKEN_AUDIENCE: settings.audience,
      TOKEN_TTL_SECONDS: String(settings.tokenTtlSeconds),
      SIGNING_KEY: `kms:${this.signingKey.keyId}`,
      STATE_MACHINE_ROLE_ARN: stateMachineRole.roleArn,
      ACTIVITY_FUNCTION_ARN: activityFunctionArn,
      LOG_LEVEL: 'INFO',
    };

    // --- Face images in S3, and their deletion when an instance's retention ends.
    this.images = new Images(this, 'Images', {
      repoRoot: REPO_ROOT,
      table: this.table,
      sortKey: TABLE_SCHEMA.sortKey,
      label,
      // What the store configuration parses (functions/config.ts), and the log level.
      environment: { TABLE_NAME: this.table.tableName, LOG_LEVEL: environment.LOG_LEVEL! },
    });

    // Packages too large for a handler's bundle, shared by the functions that load them.
    const packageLayers = new Map(
      LAYER_PACKAGES.map((p) => [p, new PackageLayer(this, `Layer${p.replace(/[^A-Za-z0-9]/g, '')}`, { root: REPO_ROOT, packages: [p], description: `${p} and its dependencies, from the repository's lock file` }).layer] as const),
    );
    const functions = new Map<string, RouteFunction>();
    const indexNames = TABLE_SCHEMA.globalSecondaryIndexes.map((g) => g.indexName);
    for (const route of routeList) {
      const fn = new RouteFunction(this, {
        route,
        repoRoot: REPO_ROOT,
        table: this.table,
        indexNames,
        signingKey: this.signingKey,
        stateMachineRole,
        stateMachineArnPattern,
        images: this.images,
        packageLayers,
        environment,
      });
      functions.set(route.operationId, fn);

      const method = METHODS[route.method];
      if (!method) throw new Error(`Route ${route.operationId}: unsupported method ${route.method}`);
      const httpRoute = new HttpRoute(this, `${RouteFunction.idFor(route)}Route`, {
        httpApi: this.api,
        routeKey: HttpRouteKey.with(route.path, method),
        integration: new HttpLambdaIntegration(`${RouteFunction.idFor(route)}Integration`, fn.function, {
          payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
        }),
        ...(route.auth === 'bearer'
          ? {
              authorizer,
              // Tokens carry the bare permission names in `scope`; the wrapper then checks
              // that the token's tenant is the host's.
              authorizationScopes: [requiredPermission(route)],
            }
          : { authorizer: new HttpNoneAuthorizer() }),
      });
      if (route.auth !== 'bearer') {
        Validations.of(httpRoute).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason: {
            apiKey: `${route.method} ${route.path} takes an API key in X-API-Key, checked by the function against its stored hash.`,
            bearerOrApiKey: `${route.method} ${route.path} takes a bearer token or an API key, both verified by the function (a gateway JWT authorizer would refuse API-key callers).`,
            endUser: `${route.method} ${route.path} is a journey page for end users, authorised by the instance capability in its URL, checked by the function against the stored hash.`,
            public: `${route.method} ${route.path} is intentionally public: a document or static asset with no tenant data (discovery, keys, API description, journey page scripts).`,
            bearer: '',
          }[route.auth],
        });
      }
    }
    this.functions = functions;

    // --- Journeys' own functions: the activity function the state machines invoke (by the
    // name above) and the one that records an execution's end on its instance.
    this.journeys = new JourneyFunctions(this, 'Journeys', {
      repoRoot: REPO_ROOT,
      table: this.table,
      activityFunctionName,
      stateMachineArnPrefix: this.formatArn({
        service: 'states',
        resource: 'stateMachine',
        resourceName: stateMachinePrefix,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      }),
      environment,
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
    new CfnOutput(this, 'Issuer', { description: 'Bearer token issuer (iss) checked by the JWT authorizer.', value: issuer });

    // --- X-Ray, when the deployment asks for it: every function of the stack, one Tracer layer.
    if (settings.tracing) {
      const tracerLayer = new PackageLayer(this, 'LayerPowertoolsTracer', {
        root: REPO_ROOT,
        packages: [TRACER_PACKAGE],
        description: `${TRACER_PACKAGE} and the X-Ray SDK, from the repository's lock file`,
      }).layer;
      for (const fn of this.node.findAll().filter((c): c is ServiceFunction => c instanceof ServiceFunction)) fn.enableTracing(tracerLayer);
    }
  }
}

function requiredPermission(route: (typeof routeList)[number]): string {
  if (!route.permission) throw new Error(`Bearer route ${route.operationId} names no permission`);
  return route.permission;
}
