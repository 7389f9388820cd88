import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { RemovalPolicy, Stack, Validations, type Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { LAMBDA_BUNDLING } from '../bundling.js';
import { acknowledgeTenantRoleArn, assumeTenantRoleStatement, TenantRole } from './tenant-role.js';

/**
 * How cdk-nag writes an ARN built by `Stack.formatArn` or from a resource attribute: the partition
 * as aws, other references as `<AWS::...>`, attributes as `<LogicalId.Attribute>`.
 */
export function nagArn(arn: string, stack: Stack): string {
  // cdk-nag writes an IAM policy variable (`${aws:PrincipalTag/...}`) as `<aws:PrincipalTag/...>`.
  const variables = (s: string) => s.replace(/\$\{(aws:[^}]+)\}/g, '<$1>');
  const resolved: unknown = stack.resolve(arn);
  if (typeof resolved === 'string') return variables(resolved);
  const parts = (resolved as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  return parts
    .map((part) => {
      if (typeof part === 'string') return variables(part);
      const getAtt = (part as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'];
      if (getAtt) return `<${getAtt[0]}.${getAtt[1]}>`;
      const ref = (part as { Ref: string }).Ref;
      return ref === 'AWS::Partition' ? 'aws' : `<${ref}>`;
    })
    .join('');
}

export interface ServiceFunctionProps {
  /** Layers holding packages the bundle leaves out (lib/bundling.ts LAYER_PACKAGES). */
  layers?: lambda.ILayerVersion[];
  /** Files the code reads at run time, copied beside the bundle (`dir` relative to the repository root). */
  assets?: { dir: string; files: readonly string[] };
  /** Commands run after the bundle is built, given its folder (files made for it there: lib/liveness-asset.ts). */
  afterBundling?: (output: string) => string[];
  /** Physical name (see `physicalName`: it starts with the deployment's prefix); also names the log group. */
  functionName: string;
  description: string;
  /** Repository root: `entry` and the lock file are relative to it. */
  repoRoot: string;
  /** Entry file, relative to the repository root; it exports `handler`. */
  entry: string;
  memorySize: number;
  timeout: Duration;
  environment: Record<string, string>;
  /** Name of the role's one inline policy. */
  policyName: string;
  roleDescription: string;
  /** Everything the function may do besides writing to its own log group. */
  statements: iam.PolicyStatement[];
  /**
   * Asynchronous invocations only (EventBridge, S3...): where Lambda puts an event once its
   * retries are spent, so that no event is dropped unseen. Lambda grants itself SendMessage on it.
   */
  deadLetterQueue?: IQueue;
  /** Asynchronous invocations only: Lambda's own retries after a function error (0 to 2). */
  retryAttempts?: number;
  /** Asynchronous invocations only: how long Lambda keeps trying an event. */
  maxEventAge?: Duration;
  /**
   * Concurrency set aside for this function alone, which is also its ceiling: what a function
   * must always be able to run (journeys' steps, their ends) is not starved by the API's
   * functions, and cannot starve them in turn. Only when the deployment's context asks for it
   * (lib/concurrency.ts): each reservation raises the Lambda quota an account needs to deploy.
   */
  reservedConcurrency?: number;
}

/**
 * A Lambda of this service, whatever invokes it: its own log group, its own role holding exactly
 * the statements given (plus its own log group), and the shared esbuild settings.
 */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  /** The entry file, relative to the repository root (what the bundle tests build). */
  readonly entry: string;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  /**
   * The role's one inline policy: later statements (tracing) go here, not into a resource of their
   * own. Read by the key policies (lib/constructs/key-policies.ts), which name this role for the KMS
   * actions it holds.
   */
  readonly policy: iam.PolicyDocument;

  /** The function's physical name (`functionName` of its props). */
  readonly physicalName: string;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const { functionName } = props;
    this.physicalName = functionName;
    this.entry = props.entry;

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      logGroupName: `/aws/lambda/${functionName}`,
      retention: logs.RetentionDays.ONE_MONTH,
      // Operational logs only (handlers never log bodies, headers or secrets); they expire
      // after a month anyway, so they go with the stack rather than block a re-create.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const statements: iam.PolicyStatement[] = [
      new iam.PolicyStatement({
        sid: 'OwnLogGroupOnly',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        // The log group's ARN attribute ends in `:*`, which covers its streams and nothing else.
        resources: [this.logGroup.logGroupArn],
      }),
      ...props.statements,
    ];

    // A role per function with an inline policy: no AWSLambdaBasicExecutionRole (which may write
    // to every log group in the account) and nothing shared between functions.
    this.policy = new iam.PolicyDocument({ statements });
    this.role = new iam.Role(this, 'Role', {
      // Lambda of this account only (confused deputy). aws:SourceAccount alone: Lambda passes it
      // when it assumes an execution role (AWS's own Lambda trust policy samples carry it), while
      // aws:SourceArn is not documented for execution roles, and a condition Lambda does not meet
      // would stop every function.
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com').withConditions({
        StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
      }),
      // Its own path, so that a key policy can name this role (aws:PrincipalArn) before it exists
      // and without a reference to it, which would make a cycle (lib/constructs/key-policies.ts).
      path: ServiceFunction.rolePath(functionName),
      description: props.roleDescription,
      inlinePolicies: { [props.policyName]: this.policy },
    });

    this.function = new NodejsFunction(this, 'Function', {
      functionName,
      description: props.description.slice(0, 256),
      entry: path.join(props.repoRoot, props.entry),
      handler: 'handler',
      projectRoot: props.repoRoot,
      depsLockFilePath: path.join(props.repoRoot, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      environment: props.environment,
      ...(props.deadLetterQueue ? { deadLetterQueue: props.deadLetterQueue } : {}),
      ...(props.retryAttempts !== undefined ? { retryAttempts: props.retryAttempts } : {}),
      ...(props.maxEventAge ? { maxEventAge: props.maxEventAge } : {}),
      ...(props.reservedConcurrency !== undefined ? { reservedConcurrentExecutions: props.reservedConcurrency } : {}),
      ...(props.layers?.length ? { layers: props.layers } : {}),
      bundling: {
        // The same settings the bundle benchmark measures (lib/bundling.ts).
        format: OutputFormat.ESM,
        minify: LAMBDA_BUNDLING.minify,
        target: LAMBDA_BUNDLING.target,
        sourceMap: LAMBDA_BUNDLING.sourcemap,
        externalModules: [...LAMBDA_BUNDLING.external],
        banner: LAMBDA_BUNDLING.banner,
        mainFields: [...LAMBDA_BUNDLING.mainFields],
        // esbuild is a dev dependency, so synth never needs Docker.
        forceDockerBundling: false,
        ...(props.assets || props.afterBundling ? { commandHooks: bundlingHooks(props.repoRoot, props.assets, props.afterBundling) } : {}),
      },
    });

    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'The runtime is pinned to nodejs22.x by design (DESIGN.md); moving to a newer runtime is a deliberate, tested change.',
    });
  }

  /** The role it acts through for one tenant, and that role's policy (`actForTenants`). */
  tenantRole?: iam.Role;
  tenantPolicy?: iam.PolicyDocument;

  /**
   * Tenant data through a tenant role only (lib/constructs/tenant-role.ts): `statements` go to a
   * role at `/{functionName}/tenant/` that this function's role assumes with the tenant's session
   * tag; the function learns it in TENANT_ROLE_ARN, and its storage then calls as that tenant
   * (functions/store/client.ts, functions/adapters/images.ts). Key policies name the tenant role
   * for the KMS actions in `statements` (lib/constructs/key-policies.ts).
   */
  actForTenants(description: string, statements: iam.PolicyStatement[]): iam.Role {
    if (this.tenantRole) throw new Error(`${this.node.path} already acts for tenants`);
    const made = new TenantRole(this, 'Tenant', { functionName: this.physicalName, functionRole: this.role, description, statements });
    this.tenantRole = made.role;
    this.tenantPolicy = made.policy;
    this.policy.addStatements(assumeTenantRoleStatement(this, this.physicalName));
    this.function.addEnvironment('TENANT_ROLE_ARN', made.role.roleArn);
    acknowledgeTenantRoleArn(this.role, nagArn(TenantRole.arnPattern(this, this.physicalName), Stack.of(this)));
    return made.role;
  }

  /**
   * X-Ray for this function (a deployment with tracing on): active tracing, Powertools Tracer
   * from `tracerLayer` (functions/observability/tracer.ts captures the AWS SDK clients when
   * POWERTOOLS_TRACE_ENABLED is true), and the two X-Ray actions, which take no resource but `*`.
   */
  enableTracing(tracerLayer: lambda.ILayerVersion): void {
    (this.function.node.defaultChild as lambda.CfnFunction).tracingConfig = { mode: lambda.Tracing.ACTIVE };
    this.function.addEnvironment('POWERTOOLS_TRACE_ENABLED', 'true');
    this.function.addLayers(tracerLayer);
    // Into the role's inline policy: a separate AWS::IAM::Policy per function would cost one of
    // CloudFormation's 500 resources per function.
    this.policy.addStatements(
      new iam.PolicyStatement({ sid: 'XRayTraces', actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], resources: ['*'] }),
    );
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permission; they only send this function\'s own traces.',
    });
  }

  /**
   * The path of a function's role, `/{functionName}/`: its ARN is `...:role/{functionName}/{generated
   * name}`, known at synth time up to the generated name, and unique to the function.
   */
  static rolePath(functionName: string): string {
    return `/${functionName}/`;
  }

  /**
   * `{prefix}-{suffix}`, the deployment's prefix first (functions/config.ts `deploymentPrefix`),
   * within Lambda's 64 characters: a longer suffix is cut and a hash of the whole of it appended,
   * so the name stays unique, stable and prefixed (never left to CloudFormation to generate).
   */
  static physicalName(prefix: string, suffix: string, max = 64): string {
    const name = `${prefix}-${suffix}`;
    if (name.length <= max) return name;
    const hash = createHash('sha256').update(suffix).digest('hex').slice(0, 8);
    return `${prefix}-${suffix.slice(0, max - prefix.length - 2 - hash.length)}-${hash}`;
  }
}

/**
 * A grant on the table's items limited to partitions whose key matches one of `partitions` (IAM
 * wildcards, `dynamodb:LeadingKeys`): what a function may touch when it needs only some kinds of item.
 */
export function tableItemsIn(sid: string, actions: string[], tableArn: string, partitions: string[]): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid,
    actions: actions.map((a) => `dynamodb:${a}`),
    resources: [tableArn],
    conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': partitions } },
  });
}

/** The cloud function runner's name: journey-functions.ts gives it, the routes that invoke it (a Python upload's check) find it by it. */
export const runnerName = (namePrefix: string) => ServiceFunction.physicalName(namePrefix, 'cloud-function-runner');

/** A path as one shell word. */
export const shellQuote = (p: string) => `'${p.replace(/'/g, `'\\''`)}'`;

/**
 * Copies files the bundle reads at run time next to it (the bundle finds them beside its own
 * file), then runs the function's own commands on the bundle's folder.
 */
function bundlingHooks(repoRoot: string, assets: { dir: string; files: readonly string[] } | undefined, after: ((output: string) => string[]) | undefined) {
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (_input: string, output: string) => [
      ...(assets?.files ?? []).map((f) => `cp ${shellQuote(path.join(repoRoot, assets!.dir, f))} ${shellQuote(path.join(output, f))}`),
      ...(after?.(output) ?? []),
    ],
  };
}
