import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ServiceFunction, nagArn, runnerName, tableItemsIn } from './service-function.js';
import type { ReservedConcurrency } from '../concurrency.js';
import { deadLetterQueue } from './dead-letters.js';
import { activityFunctionAccess } from '../../functions/activities/access.js';
import { PYTHON_ASSETS } from '../../functions/cloud-functions/python/engine.js';
import { SERVICE_PREFIX } from '../../functions/store/keys.js';
import { cloudSecretsEnvironment, cloudSecretStatement } from './cloud-secrets.js';
import { acknowledgeFaceStatements, faceStatements, facesEnvironment } from './faces.js';
import { acknowledgeImageObjects, imageStatements, type ImagesAccess } from './images.js';
import type { ImageAction } from '../../functions/http/route.js';
import { sessionTenantPartitions, TENANT_PARTITIONS, tenantTableStatement } from './tenant-role.js';

/** The terminal statuses of a Step Functions execution, as its EventBridge events spell them. */
export const TERMINAL_EXECUTION_STATUSES = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'] as const;

export interface JourneyFunctionsProps {
  repoRoot: string;
  /** The deployment's name prefix (`arthr-{label}`). */
  namePrefix: string;
  table: ITable;
  /** The exact name every compiled state machine's Task states invoke (ACTIVITY_FUNCTION_ARN). */
  activityFunctionName: string;
  /** The exact name every compiled state machine's last state invokes (EXECUTION_END_FUNCTION_ARN). */
  executionEndFunctionName: string;
  /** Start of the ARN of every state machine this stack publishes (`...:stateMachine:arthr-{label}-`). */
  stateMachineArnPrefix: string;
  /** Start of the ARN of every execution of those state machines (`...:execution:arthr-`). */
  executionArnPrefix: string;
  /** The table's index of open instances, which the reconciler scans. */
  openInstancesIndexName: string;
  environment: Record<string, string>;
  /** Concurrency reserved for each function that has a reservation (none by default: lib/concurrency.ts). */
  reservedConcurrency: ReservedConcurrency;
  /** The key cloud secrets are sealed with: the activity function unseals those a step gives its function. */
  cloudSecretsKey: kms.IKey;
  /** The layer per package of LAYER_PACKAGES (the runner loads quickjs-emscripten from its own). */
  packageLayers: ReadonlyMap<string, lambda.ILayerVersion>;
  /** The images bucket and its key: the face steps read captures and uploads, and pre-sign uploads. */
  images: ImagesAccess;
  /** Where custom pages are served (CloudFront): a custom page step frames its page from there. */
  pagesOrigin: string;
  /** Which engine reads identity documents: the embedded one (tesseract.js, its layer) or Textract (granted AnalyzeID). */
  documentEngine: 'embedded' | 'textract';
}

/**
 * The Lambdas journeys need besides the API: the activity function that every Task state
 * invokes; the function that records an execution's end on its instance, invoked by each
 * journey's last state with its outcome and fed by an EventBridge rule on this stack's state
 * machines for the executions that end otherwise (failures, timeouts, stops); the reconciler
 * that catches what both missed; and the janitor that deletes the state machines no active
 * version uses (a pass a day, checkpointed across its hourly runs).
 */
export class JourneyFunctions extends Construct {
  readonly activities: ServiceFunction;
  /** The role the activity function acts through for a step's tenant (lib/constructs/tenant-role.ts). */
  readonly activitiesTenantRole: iam.Role;
  /** Runs tenants' cloud functions (the QuickJS sandbox), invoked by the activity function only. */
  readonly cloudFunctionRunner: ServiceFunction;
  readonly executionEnd: ServiceFunction;
  /** The role the execution-end function acts through for the ended instance's tenant. */
  readonly executionEndTenantRole: iam.Role;
  readonly executionEndRule: events.Rule;
  /** Finds instances whose execution ended without their final status recorded, on a schedule. */
  readonly reconciler: ServiceFunction;
  /** The role the reconciler acts through for each due instance's tenant (its index Scan stays on its own role). */
  readonly reconcilerTenantRole: iam.Role;
  readonly reconcileSchedule: events.Rule;
  readonly janitor: ServiceFunction;
  readonly janitorSchedule: events.Rule;
  /** Execution-end events that could not be delivered or processed, kept for a redrive. */
  readonly executionEndDeadLetters: sqs.Queue;

  constructor(scope: Construct, id: string, props: JourneyFunctionsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const tableArn = props.table.tableArn;

    // --- The cloud function runner: tenant code in a QuickJS sandbox (JavaScript) or a hardened
    // child process running CPython in WebAssembly (Python), in a Lambda of its own whose role
    // grants nothing but its own log group, with no environment: no credential of the service,
    // no table, no bucket (functions/cloud-functions/runner-handler.ts). The activity function
    // invokes it to run, the upload route to compile a Python script.
    const quickjs = props.packageLayers.get('quickjs-emscripten');
    const pyodide = props.packageLayers.get('pyodide');
    if (!quickjs || !pyodide) throw new Error('The cloud function runner needs the quickjs-emscripten and pyodide layers');
    this.cloudFunctionRunner = new ServiceFunction(this, 'CloudFunctionRunner', {
      functionName: runnerName(props.namePrefix),
      description: "Runs tenants' cloud functions (JavaScript in QuickJS, Python in a sandboxed child); invoked by the activity function and the upload check only.",
      repoRoot: props.repoRoot,
      entry: 'functions/cloud-functions/runner-handler.ts',
      // A JavaScript run's QuickJS memory (at most 128 MiB) besides the runtime's own; a Python run
      // has a child of its own (about 220 MB with the interpreter, plus the run's 128 MiB at most)
      // and one more kept ready, so that a warm run does not wait for one to start.
      memorySize: 1536,
      // A function's longest timeout (60 s), with room for a cold start (Python's: its snapshot made in /tmp, a few seconds).
      timeout: Duration.seconds(75),
      environment: {},
      policyName: 'cloud-function-runner',
      roleDescription: "Runs tenants' cloud functions: grants nothing but writing its own logs.",
      statements: [],
      layers: [quickjs, pyodide],
      assets: { dir: 'functions/cloud-functions/python', files: PYTHON_ASSETS },
    });

    // --- Activities. User steps record where the journey waits (an UpdateItem on the instance);
    // each activity module declares what its own code needs.
    const access = activityFunctionAccess();
    // The document steps read documents in the function: the embedded engine (tesseract.js, from
    // its layer) needs about 300 MB beside a decoded 2560 x 1440 photo (docs/documents.md, bench).
    const readsDocuments = access.documents.length > 0;
    const tesseract = props.packageLayers.get('tesseract.js');
    if (readsDocuments && !tesseract) throw new Error('The activity function needs the tesseract.js layer to read documents');
    const textract = readsDocuments && props.documentEngine === 'textract';
    // Face Template Generation runs the embedded face model (its layer, about 230 MB at its peak;
    // docs/faces.md): with the document reader's layer the function stays under Lambda's 250 MB
    // unzipped (about 200 MB with both).
    const human = props.packageLayers.get('@vladmandic/human');
    if (access.faceModel && !human) throw new Error('The activity function needs the @vladmandic/human layer to make face templates');
    const layers = [...(readsDocuments && tesseract ? [tesseract] : []), ...(access.faceModel && human ? [human] : [])];
    this.activities = new ServiceFunction(this, 'Activities', {
      functionName: props.activityFunctionName,
      description: 'Runs journey activities: every Task state of the arthr- state machines invokes it.',
      repoRoot: props.repoRoot,
      entry: 'functions/activities/lambda.ts',
      memorySize: readsDocuments || access.faceModel ? 1024 : 256,
      ...(layers.length ? { layers } : {}),
      // A cloud function step waits for its run (at most 60 s, the runner's timeout 75 s).
      timeout: Duration.seconds(90),
      environment: {
        ...props.environment,
        ...(access.cloudFunctions ? { CLOUD_FUNCTION_RUNNER: this.cloudFunctionRunner.function.functionArn } : {}),
        ...(access.cloudSecrets ? cloudSecretsEnvironment(props.cloudSecretsKey) : {}),
        ...facesEnvironment(props.namePrefix, access.faces),
        ...(access.images.length ? { IMAGES_BUCKET: props.images.bucket.bucketName } : {}),
        ...(readsDocuments ? { DOCUMENT_ENGINE: props.documentEngine } : {}),
        // A custom page step records where its page is served (its frame's URL): no grant on the bucket.
        ...(access.pagesOrigin ? { PAGES_ORIGIN: props.pagesOrigin } : {}),
      },
      // Unreserved by default, it shares the account's concurrency with the API: Task states retry
      // a throttled invoke (statemachines/compile.ts LAMBDA_RETRY), and ActivityThrottles alarms.
      reservedConcurrency: props.reservedConcurrency.activities,
      policyName: 'activities',
      roleDescription: 'Runs journey activities: records the waiting user step with its event, runs the identity store activities (users, passcodes).',
      // The union of what the activity modules declare (functions/activities/access.ts).
      statements: [
        ...(access.cloudFunctions ? [new iam.PolicyStatement({ sid: 'RunCloudFunctions', actions: ['lambda:InvokeFunction'], resources: [this.cloudFunctionRunner.function.functionArn] })] : []),
        ...(access.cloudSecrets ? [cloudSecretStatement('unseal', props.cloudSecretsKey)] : []),
        ...faceStatements(access.faces, stack, props.namePrefix),
        ...(textract ? [new iam.PolicyStatement({ sid: 'ReadIdentityDocuments', actions: access.documents.map((a) => `textract:${a}`), resources: ['*'] })] : []),
        // Tenant data (items, images) only through its tenant role, for the step's journey's tenant (below).
      ],
    });
    if (access.faces.length > 0) acknowledgeFaceStatements(this.activities.role, access.faces, stack, props.namePrefix);
    if (textract) {
      Validations.of(this.activities.role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'Textract AnalyzeID reads the document in the request and supports no resource-level permission.',
      });
    }
    // Each step acts for its journey's tenant (functions/activities/run.ts): the items and images
    // the activity modules declare, that tenant's only.
    this.activitiesTenantRole = this.activities.actForTenants("Runs journey activities for one tenant: assumed with the arthr-tenant session tag of the step's journey", [
      tenantTableStatement('InstanceItems', access.table, [tableArn], TENANT_PARTITIONS),
      ...(access.images.length ? imageStatements(access.images as ImageAction[], props.images, stack, 'tenant') : []),
    ]);
    if (access.images.length > 0) acknowledgeImageObjects(this.activitiesTenantRole, props.images.bucket, 'tenant');

    // --- Execution ends. EventBridge invokes the function asynchronously: EventBridge retries a
    // failed delivery (throttling), Lambda retries a failed run; whatever neither could finish
    // lands in one queue, as the original event, so an instance is never left ACTIVE unseen.
    this.executionEndDeadLetters = deadLetterQueue(this, 'ExecutionEndDeadLetters', {
      whyNoDeadLetterQueue:
        'This queue is itself the dead-letter queue (of the execution-end rule target and of the function\'s asynchronous invocations).',
      // A message here is an instance whose end was not recorded.
      alarmDescription:
        'A journey execution ended but its instance status was not recorded: the event is in the dead-letter queue, ' +
        'to be redriven to the execution-end function once the cause is fixed.',
    });

    this.executionEnd = new ServiceFunction(this, 'ExecutionEnd', {
      functionName: props.executionEndFunctionName,
      description: 'Records a journey execution\'s end on its process instance, with the status change\'s events.',
      repoRoot: props.repoRoot,
      entry: 'functions/process-manager/executions/on-execution-end.ts',
      memorySize: 256,
      timeout: Duration.seconds(30),
      environment: props.environment,
      reservedConcurrency: props.reservedConcurrency.executionEnd,
      policyName: 'onExecutionEnd',
      roleDescription:
        'Records journey execution ends: acts through its tenant role for the instance\'s tenant (reads and updates the instance with its status change\'s events), and asks Step Functions for what an event leaves out.',
      statements: [
        // An event may lack the input or output (left out when large) and never names the error.
        new iam.PolicyStatement({
          sid: 'DescribeJourneyExecutions',
          actions: ['states:DescribeExecution'],
          resources: [`${props.executionArnPrefix}*`],
        }),
      ],
      // Lambda's own handling of a failed run (the default two retries, within six hours).
      deadLetterQueue: this.executionEndDeadLetters,
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
    });
    // Each end acts for its instance's tenant (functions/process-manager/instances/status.ts):
    // the instance and its views, and the status change's events (PutItem only in the outbox).
    const endTenantStatements = () => [
      tenantTableStatement('InstanceItems', ['GetItem', 'UpdateItem'], [tableArn], TENANT_PARTITIONS),
      tenantTableStatement('OutboxEvents', ['PutItem'], [tableArn], sessionTenantPartitions(['TNT#*#EVENTS'])),
    ];
    this.executionEndTenantRole = this.executionEnd.actForTenants("Records a journey execution's end for one tenant: assumed with the arthr-tenant session tag of the ended instance", endTenantStatements());
    Validations.of(this.executionEnd.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(`${props.executionArnPrefix}*`, stack)}]`,
      reason: 'Executions are named after the instances they run, so they are known only at run time; the prefix limits the grant to this stack\'s journey state machines.',
    });

    this.executionEndRule = new events.Rule(this, 'ExecutionEndRule', {
      description: 'Terminal status changes of this stack\'s journey executions, to the execution-end function.',
      // No eventBus: Step Functions sends execution status changes to the default bus.
      eventPattern: {
        source: ['aws.states'],
        detailType: ['Step Functions Execution Status Change'],
        detail: {
          status: [...TERMINAL_EXECUTION_STATUSES],
          stateMachineArn: events.Match.prefix(props.stateMachineArnPrefix),
        },
      },
      targets: [
        new targets.LambdaFunction(this.executionEnd.function, {
          deadLetterQueue: this.executionEndDeadLetters,
          maxEventAge: Duration.hours(1),
          retryAttempts: 10,
        }),
      ],
    });
    // --- The reconciler: the net under the two paths above (a record that failed past its
    // retries, an event EventBridge did not deliver). Every five minutes it scans the sparse
    // index of open instances (keys only) for those due, and asks Step Functions about each
    // one's execution (functions/process-manager/executions/reconcile.ts). A run stops before its
    // timeout; what it did not reach stays due for the next. A failed run is not retried: the
    // next one, five minutes later, does the same work.
    const reconcilerName = ServiceFunction.physicalName(props.namePrefix, 'reconcileExecutions');
    this.reconciler = new ServiceFunction(this, 'Reconciler', {
      functionName: reconcilerName,
      description: 'Records the final status of journeys whose execution ended unrecorded (lost event, failed record), every five minutes.',
      repoRoot: props.repoRoot,
      entry: 'functions/process-manager/executions/reconcile-executions.ts',
      memorySize: 256,
      timeout: Duration.minutes(4),
      environment: props.environment,
      // One run at a time without a reservation: the schedule's 5 minutes outlast the 4-minute
      // timeout, and neither EventBridge nor Lambda retries a run. Only a duplicate delivery
      // (EventBridge is at-least-once) could overlap two; each instance's status change is one
      // conditional write, so the second run records nothing twice, it only reads again.
      reservedConcurrency: props.reservedConcurrency.reconciler,
      policyName: 'reconcileExecutions',
      roleDescription:
        'Reconciles journey executions: scans the open-instance index (keys only), acts through its tenant role for each instance\'s tenant (reads and updates it with its status change\'s events), describes executions.',
      statements: [
        // Across tenants, keys only: what is due. Each instance found is then read and written
        // for its own tenant, through the tenant role.
        new iam.PolicyStatement({
          sid: 'OpenInstancesIndex',
          actions: ['dynamodb:Scan'],
          resources: [`${tableArn}/index/${props.openInstancesIndexName}`],
        }),
        new iam.PolicyStatement({
          sid: 'DescribeJourneyExecutions',
          actions: ['states:DescribeExecution'],
          resources: [`${props.executionArnPrefix}*`],
        }),
      ],
      retryAttempts: 0,
    });
    this.reconcilerTenantRole = this.reconciler.actForTenants("Reconciles journey executions for one tenant: assumed with the arthr-tenant session tag of the due instance's key", endTenantStatements());
    Validations.of(this.reconciler.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(`${props.executionArnPrefix}*`, stack)}]`,
      reason: 'Executions are named after the instances they run, so they are known only at run time; the prefix limits the grant to this stack\'s journey state machines.',
    });

    this.reconcileSchedule = new events.Rule(this, 'ReconcileSchedule', {
      description: 'Every five minutes: the reconciler records the final status of journeys whose execution ended unrecorded.',
      schedule: events.Schedule.rate(Duration.minutes(5)),
      targets: [new targets.LambdaFunction(this.reconciler.function, { retryAttempts: 0 })],
    });

    // --- State machines no active version uses: they are made at run time, outside
    // CloudFormation, so nothing else would ever delete them (functions/process-manager/executions/state-machine-janitor.ts).
    const stateMachines = `${props.stateMachineArnPrefix}*`;
    this.janitor = new ServiceFunction(this, 'StateMachineJanitor', {
      functionName: ServiceFunction.physicalName(props.namePrefix, 'sweepStateMachines'),
      description: 'Deletes the journey state machines that no active definition version uses and that run nothing (a pass a day, checkpointed).',
      repoRoot: props.repoRoot,
      entry: 'functions/process-manager/executions/sweep-state-machines.ts',
      memorySize: 256,
      // A run judges state machines until 3 minutes before this, saves its place and ends; the
      // next hourly run goes on from there (SAFETY_MS in sweep-state-machines.ts).
      timeout: Duration.minutes(15),
      environment: props.environment,
      // One run at a time without a reservation: hourly, with a 15-minute timeout, and a lease in
      // the table that a duplicate delivery (or a retry while a run is still going) finds held.
      reservedConcurrency: props.reservedConcurrency.janitor,
      policyName: 'sweepStateMachines',
      roleDescription:
        'Deletes unused journey state machines: lists them, reads their reference items and its checkpoint, reads the tenant tag and definition versions of those made before they were shared, lists running executions.',
      statements: [
        new iam.PolicyStatement({ sid: 'ListStateMachines', actions: ['states:ListStateMachines'], resources: ['*'] }),
        new iam.PolicyStatement({
          sid: 'OwnStateMachines',
          actions: ['states:ListTagsForResource', 'states:ListExecutions', 'states:DeleteStateMachine'],
          resources: [stateMachines],
        }),
        // The state machines' reference items (claims) and the janitor's checkpoint: the service's own items only.
        tableItemsIn('StateMachineRefs', ['GetItem', 'UpdateItem'], tableArn, [`${SERVICE_PREFIX}*`]),
        // A tenant's definition versions, for state machines made before they were shared (tagged with their tenant).
        tableItemsIn('DefinitionVersions', ['Query'], tableArn, ['TNT#*#PDEFS']),
      ],
    });
    Validations.of(this.janitor.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'states:ListStateMachines supports no resource-level permission; it lists names and ARNs only. Every other action names this deployment\'s state machines.',
    });
    Validations.of(this.janitor.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(stateMachines, stack)}]`,
      reason: 'State machines are made at run time, one per distinct compiled definition (shared by every tenant), so they are known only by this deployment\'s name prefix.',
    });
    this.janitorSchedule = new events.Rule(this, 'StateMachineJanitorSchedule', {
      // Hourly: a run starts a pass once a day, and the runs in between finish a pass that did not
      // fit one run, while its ListStateMachines page token (valid a day) is fresh.
      description: 'Runs the state machine janitor every hour: a pass a day, continued from its checkpoint.',
      schedule: events.Schedule.rate(Duration.hours(1)),
      targets: [new targets.LambdaFunction(this.janitor.function, { retryAttempts: 2, maxEventAge: Duration.hours(2) })],
    });
  }
}
