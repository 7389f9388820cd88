import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { ArnFormat, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { isRateLimited, type RouteDef } from '../../functions/http/route.js';
import { SERVICE_PREFIX } from '../../functions/store/keys.js';
import {
  acknowledgeTenantRoleArn,
  assumeTenantRoleStatement,
  TENANT_PARTITIONS,
  TENANT_RATE_PARTITIONS,
  TenantRole,
  tenantTableStatement,
} from './tenant-role.js';
import { acknowledgeImageObjects, imageStatements, type ImagesAccess } from './images.js';
import { acknowledgeExportObjects, exportsEnvironment, exportStatements, type ExportsAccess } from './exports.js';
import { acknowledgePageObjects, pagesEnvironment, pageStatements, type PagesAccess } from './pages.js';
import { cloudSecretsEnvironment, cloudSecretStatement, webhookSecretStatement } from './cloud-secrets.js';
import { acknowledgeFaceStatements, faceLivenessAssetCommand, faceStatements, facesEnvironment, grantFaceLiveness } from './faces.js';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { ServiceFunction, nagArn, runnerName } from './service-function.js';

const KEY_ACTIONS = { sign: ['kms:Sign'], publicKey: ['kms:GetPublicKey'] } as const;

export interface RouteFunctionProps {
  route: RouteDef;
  /** The deployment's name prefix (`arthr-{label}`): the function is `{prefix}-{operationId}`. */
  namePrefix: string;
  /** Repository root: route handler paths and the lock file are relative to it. */
  repoRoot: string;
  table: ITable;
  /** Names of the table's global secondary indexes (Query is granted on each). */
  indexNames: readonly string[];
  signingKey: IKey;
  /** The role journeys' state machines run with (passed to Step Functions on publication). */
  stateMachineRole: iam.IRole;
  /** ARN pattern of the state machines this stack's functions create. */
  stateMachineArnPattern: string;
  /** The images bucket and its key: granted as `route.aws.images` says, and named in IMAGES_BUCKET. */
  images: ImagesAccess;
  environment: Record<string, string>;
  /** The exports bucket, key and queue: granted as `route.aws.exports` says, and named in the EXPORTS_* variables. */
  exports: ExportsAccess;
  /** The custom pages bucket and origin: granted as `route.aws.pages` says, and named in PAGES_BUCKET and PAGES_ORIGIN. */
  pages: PagesAccess;
  /** The key cloud secrets are sealed with: Encrypt for the routes whose `aws.cloudSecrets` is `seal` (and webhook secrets, `aws.webhooks` Seal). */
  cloudSecretsKey: IKey;
  /** The webhook replay queue: SendMessage for the routes whose `aws.webhooks` has it (a replay). */
  webhookQueue: IQueue;
  /** The layer per package of LAYER_PACKAGES; a route gets those its `layerPackages` names. */
  packageLayers: ReadonlyMap<string, lambda.ILayerVersion>;
  /** The region has Rekognition Face Liveness (FACE_LIVENESS_REGIONS): the routes' `aws.faceLiveness` are granted, and its script built. */
  faceLiveness: boolean;
}

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * One operation's Lambda: a ServiceFunction whose role holds exactly what the route table says
 * the operation may touch (`route.aws`).
 */
export class RouteFunction extends ServiceFunction {
  /** Construct id for a route's function: stable as long as the operationId is. */
  static idFor(route: RouteDef): string {
    return pascal(route.operationId);
  }

  constructor(scope: Construct, props: RouteFunctionProps) {
    const { route } = props;
    const stack = Stack.of(scope);
    const access = route.aws;
    // Named after the deployment and the operation so the console, metrics and logs say which one.
    const functionName = ServiceFunction.physicalName(props.namePrefix, route.operationId);
    super(scope, RouteFunction.idFor(route), {
      functionName,
      description: `${route.method} ${route.path}: ${route.summary}`,
      repoRoot: props.repoRoot,
      entry: route.handler,
      memorySize: route.lambda?.memorySize ?? 256,
      timeout: Duration.seconds(route.lambda?.timeoutSeconds ?? 10),
      // Only the functions that touch images learn the bucket's name.
      environment: {
        ...props.environment,
        ...(access.images?.length ? { IMAGES_BUCKET: props.images.bucket.bucketName } : {}),
        // Only the functions that start or read exports learn where they are.
        ...(access.exports?.length ? exportsEnvironment(props.exports) : {}),
        ...(access.pages?.length ? pagesEnvironment(props.pages) : access.pagesOrigin ? { PAGES_ORIGIN: props.pages.origin } : {}),
        ...(access.cloudSecrets || access.webhooks?.includes('Seal') ? cloudSecretsEnvironment(props.cloudSecretsKey) : {}),
        ...(access.webhooks?.includes('SendMessage') ? { WEBHOOK_REPLAY_QUEUE_URL: props.webhookQueue.queueUrl } : {}),
        // A webhook's queue or bus target may not be in the deployment's own account.
        ...(access.webhooks?.includes('Target') ? { SERVICE_ACCOUNT_ID: stack.account } : {}),
        ...facesEnvironment(props.namePrefix, access.faces ?? []),
        ...(access.functionRunner ? { CLOUD_FUNCTION_RUNNER: runnerName(props.namePrefix) } : {}),
      },
      policyName: route.operationId,
      roleDescription: `Runs ${route.operationId} (${route.method} ${route.path})`,
      statements: routeStatements(props, stack, functionName),
      ...(route.bundleAsset === 'faceLiveness' && props.faceLiveness ? { afterBundling: (output: string) => [faceLivenessAssetCommand(props.repoRoot, output)] } : {}),
      layers: (route.layerPackages ?? []).map((p) => {
        const layer = props.packageLayers.get(p);
        if (!layer) throw new Error(`${route.operationId} needs a layer for ${p}`);
        return layer;
      }),
    });

    if (actsForTenants(route)) {
      this.actForTenants(`Runs ${route.operationId} for one tenant: assumed with the arthr-tenant session tag`, tenantStatements(props, stack));
      if (access.images?.some((a) => a !== 'ListBucket')) acknowledgeImageObjects(this.tenantRole!, props.images.bucket, 'tenant');
      if (access.pages?.some((a) => a !== 'ListBucket')) acknowledgePageObjects(this.tenantRole!, props.pages.bucket, 'tenant');
    }
    if (access.stateMachines) {
      // cdk-nag 3 acknowledges each wildcard finding by its exact resource string.
      Validations.of(this.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${nagArn(props.stateMachineArnPattern, stack)}]`,
        reason:
          'State machines are made at run time, one per published definition version, so their ARNs are known only by ' +
          'the arthr- name prefix this grant (create, or start executions) is limited to.',
      });
    }
    if (!actsForTenants(route) && access.images?.some((a) => a !== 'ListBucket')) acknowledgeImageObjects(this.role, props.images.bucket);
    if (access.exports?.includes('GetObject')) acknowledgeExportObjects(this.role, props.exports.bucket);
    if (access.faces?.length) acknowledgeFaceStatements(this.role, access.faces, stack, props.namePrefix);
    if (access.faceLiveness?.length && props.faceLiveness) grantFaceLiveness(this, access.faceLiveness, route.operationId);
  }
}

/** Whether the route's function touches tenant data, the table's, images or custom pages (so acts through a tenant role). */
function actsForTenants(route: RouteDef): boolean {
  return Boolean(route.aws.table?.length || route.aws.queryIndexes || isRateLimited(route) || route.aws.images?.length || route.aws.pages?.length);
}

/**
 * The tenant role's statements: the route's table actions, each on the partitions of the
 * session's tenant only (`dynamodb:LeadingKeys` `TNT#${aws:PrincipalTag/arthr-tenant}#*`; an index's
 * partition keys start the same way). The route table names each DynamoDB action an operation
 * makes (transactions included: IAM checks each item's PutItem, UpdateItem, ...), so nothing
 * unused is granted; not grantReadData / grantReadWriteData, which also grant Scan, DescribeTable
 * and stream actions.
 */
function tenantStatements(props: RouteFunctionProps, stack: Stack): iam.PolicyStatement[] {
  const statements: iam.PolicyStatement[] = [];
  const access = props.route.aws;
  if (access.table?.length) {
    // A publication also counts its state machine's users: the service's reference items
    // (`SVC#SM#{name}`, no tenant's data), in the same transaction as the version.
    const partitions = [...TENANT_PARTITIONS, ...(access.stateMachines === 'publish' ? [`${SERVICE_PREFIX}SM#*`] : [])];
    statements.push(tenantTableStatement('TableItems', access.table, [props.table.tableArn], partitions));
  }
  if (isRateLimited(props.route)) {
    // The tenant's rate limit (functions/auth/rate-limit.ts): a lease of the tenant's budget, on
    // its rate windows' partition only, whatever else the route may write.
    statements.push(tenantTableStatement('TenantRateLimit', ['UpdateItem'], [props.table.tableArn], TENANT_RATE_PARTITIONS));
  }
  if (access.queryIndexes && props.indexNames.length > 0) {
    statements.push(
      tenantTableStatement('TableIndexes', ['Query'], props.indexNames.map((name) => `${props.table.tableArn}/index/${name}`), TENANT_PARTITIONS),
    );
  }
  // Images under the session's tenant's prefix only (`tenants/${aws:PrincipalTag/arthr-tenant}/`).
  if (access.images?.length) statements.push(...imageStatements(access.images, props.images, stack, 'tenant'));
  // Custom pages likewise (functions/adapters/page-files.ts works with the tenant's session).
  if (access.pages?.length) statements.push(...pageStatements(access.pages, props.pages, 'tenant'));
  return statements;
}

/** The statements `route.aws` calls for (the log group statement is ServiceFunction's). */
function routeStatements(props: RouteFunctionProps, stack: Stack, functionName: string): iam.PolicyStatement[] {
  const statements: iam.PolicyStatement[] = [];
  const access = props.route.aws;
  if (access.signingKey) {
    statements.push(
      new iam.PolicyStatement({
        sid: 'SigningKey',
        actions: [...KEY_ACTIONS[access.signingKey]],
        resources: [props.signingKey.keyArn],
        // A token's signature only (functions/auth/signer.ts): RS256 over a digest made beforehand.
        ...(access.signingKey === 'sign' ? { conditions: { StringEquals: { 'kms:SigningAlgorithm': 'RSASSA_PKCS1_V1_5_SHA_256', 'kms:MessageType': 'DIGEST' } } } : {}),
      }),
    );
  }
  if (access.stateMachines === 'publish') {
    statements.push(
      // Untagged: a state machine is shared by every tenant whose definitions compile alike, so
      // no tag names a tenant (and no IAM condition on a state machine's tags could hold one).
      new iam.PolicyStatement({
        sid: 'PublishStateMachines',
        actions: ['states:CreateStateMachine'],
        resources: [props.stateMachineArnPattern],
      }),
      new iam.PolicyStatement({
        sid: 'PassStateMachineRole',
        actions: ['iam:PassRole'],
        resources: [props.stateMachineRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'states.amazonaws.com' } },
      }),
    );
  }
  if (access.stateMachines === 'start') {
    statements.push(
      new iam.PolicyStatement({ sid: 'StartJourneys', actions: ['states:StartExecution'], resources: [props.stateMachineArnPattern] }),
    );
  }
  if (access.stateMachines === 'sendTask') {
    // The task token names the execution; IAM checks the call against its state machine.
    statements.push(
      new iam.PolicyStatement({ sid: 'ResumeJourneys', actions: ['states:SendTaskSuccess'], resources: [props.stateMachineArnPattern] }),
    );
  }
  if (access.stateMachines === 'endTask') {
    // A step that can also end by an error event (a data form's Retake, Max Attempts Exceeded).
    statements.push(
      new iam.PolicyStatement({
        sid: 'ResumeOrFailJourneySteps',
        actions: ['states:SendTaskSuccess', 'states:SendTaskFailure'],
        resources: [props.stateMachineArnPattern],
      }),
    );
  }
  // Tenant data (the table, images) only through the tenant role (ServiceFunction.actForTenants).
  if (access.images?.length && !actsForTenants(props.route)) statements.push(...imageStatements(access.images, props.images, stack));
  if (access.exports?.length) statements.push(...exportStatements(access.exports, props.exports, stack));
  if (access.cloudSecrets) statements.push(cloudSecretStatement(access.cloudSecrets, props.cloudSecretsKey));
  if (access.webhooks?.includes('Seal')) statements.push(webhookSecretStatement('seal', props.cloudSecretsKey));
  if (access.webhooks?.includes('SendMessage')) {
    statements.push(new iam.PolicyStatement({ sid: 'QueueWebhookReplays', actions: ['sqs:SendMessage'], resources: [props.webhookQueue.queueArn] }));
  }
  if (access.faces?.length) statements.push(...faceStatements(access.faces, stack, props.namePrefix));
  if (access.functionRunner) {
    // By its name (it lives in the journeys' construct): an upload's Python script is compiled there, never here.
    const runner = stack.formatArn({ service: 'lambda', resource: 'function', resourceName: runnerName(props.namePrefix), arnFormat: ArnFormat.COLON_RESOURCE_NAME });
    statements.push(new iam.PolicyStatement({ sid: 'CheckPythonFunctions', actions: ['lambda:InvokeFunction'], resources: [runner] }));
  }
  return statements;
}
