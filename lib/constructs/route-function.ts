import * as path from 'node:path';
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { RouteDef } from '../../functions/http/route.js';
import { LAMBDA_BUNDLING } from '../bundling.js';

/**
 * DynamoDB actions per table access level. Written out rather than `grantReadData` /
 * `grantReadWriteData`, which also grant Scan, DescribeTable and the stream actions that no
 * handler uses. Transactions need no action of their own: IAM checks each item's PutItem,
 * UpdateItem, DeleteItem or ConditionCheckItem.
 */
const TABLE_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:Query'];
const TABLE_WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];
/** Only Query reads an index. */
const INDEX_READ_ACTIONS = ['dynamodb:Query'];
const KEY_ACTIONS = { sign: ['kms:Sign'], publicKey: ['kms:GetPublicKey'] } as const;

export interface RouteFunctionProps {
  route: RouteDef;
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
  environment: Record<string, string>;
}

/** How cdk-nag writes an ARN built by `Stack.formatArn`: the partition as aws, other references as `<AWS::...>`. */
export function nagArn(arn: string, stack: Stack): string {
  const resolved: unknown = stack.resolve(arn);
  if (typeof resolved === 'string') return resolved;
  const parts = (resolved as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  return parts
    .map((part) => {
      if (typeof part === 'string') return part;
      const ref = (part as { Ref: string }).Ref;
      return ref === 'AWS::Partition' ? 'aws' : `<${ref}>`;
    })
    .join('');
}

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * One operation's Lambda: its own log group, its own role holding exactly what the route table
 * says the operation may touch (`route.aws`), and the shared esbuild settings.
 */
export class RouteFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  /** Construct id for a route's function: stable as long as the operationId is. */
  static idFor(route: RouteDef): string {
    return pascal(route.operationId);
  }

  constructor(scope: Construct, props: RouteFunctionProps) {
    const { route } = props;
    super(scope, RouteFunction.idFor(route));

    const stack = Stack.of(this);
    // Named after the stack and the operation so the console, metrics and logs say which one.
    const candidate = `${stack.stackName}-${route.operationId}`;
    const functionName = candidate.length <= 64 ? candidate : undefined;

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      ...(functionName ? { logGroupName: `/aws/lambda/${functionName}` } : {}),
      retention: logs.RetentionDays.ONE_MONTH,
      // Operational logs only (the wrapper never logs bodies, headers or secrets); they expire
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
    ];

    const access = route.aws;
    if (access.table) {
      const itemActions = access.table === 'readWrite' ? [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS] : TABLE_READ_ACTIONS;
      statements.push(
        new iam.PolicyStatement({ sid: 'TableItems', actions: itemActions, resources: [props.table.tableArn] }),
      );
      if (access.queryIndexes && props.indexNames.length > 0) {
        statements.push(
          new iam.PolicyStatement({
            sid: 'TableIndexes',
            actions: INDEX_READ_ACTIONS,
            resources: props.indexNames.map((name) => `${props.table.tableArn}/index/${name}`),
          }),
        );
      }
    }
    if (access.signingKey) {
      statements.push(
        new iam.PolicyStatement({
          sid: 'SigningKey',
          actions: [...KEY_ACTIONS[access.signingKey]],
          resources: [props.signingKey.keyArn],
        }),
      );
    }

    if (access.stateMachines === 'publish') {
      statements.push(
        new iam.PolicyStatement({
          sid: 'PublishStateMachines',
          actions: ['states:CreateStateMachine', 'states:TagResource'],
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
    if (access.events === 'publish') {
      statements.push(
        new iam.PolicyStatement({
          sid: 'PublishInstanceEvents',
          actions: ['events:PutEvents'],
          resources: [stack.formatArn({ service: 'events', resource: 'event-bus', resourceName: 'default' })],
        }),
      );
    }
    // A role per function with an inline policy: no AWSLambdaBasicExecutionRole (which may write
    // to every log group in the account) and nothing shared between operations.
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${route.operationId} (${route.method} ${route.path})`,
      inlinePolicies: { [route.operationId]: new iam.PolicyDocument({ statements }) },
    });

    if (access.stateMachines === 'publish' || access.stateMachines === 'start') {
      // cdk-nag 3 acknowledges each wildcard finding by its exact resource string.
      Validations.of(this.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${nagArn(props.stateMachineArnPattern, stack)}]`,
        reason:
          'State machines are made at run time, one per published definition version, so their ARNs are known only by ' +
          'the arthr- name prefix this grant (create, or start executions) is limited to.',
      });
    }

    this.function = new NodejsFunction(this, 'Function', {
      ...(functionName ? { functionName } : {}),
      description: `${route.method} ${route.path}: ${route.summary}`.slice(0, 256),
      entry: path.join(props.repoRoot, route.handler),
      handler: 'handler',
      projectRoot: props.repoRoot,
      depsLockFilePath: path.join(props.repoRoot, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.seconds(10),
      role: this.role,
      logGroup: this.logGroup,
      environment: props.environment,
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
      },
    });

    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'The runtime is pinned to nodejs22.x by design (DESIGN.md); moving to a newer runtime is a deliberate, tested change.',
    });
  }
}
