import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { defaultEventBusArn } from './route-function.js';
import { ServiceFunction } from './service-function.js';
import { deadLetterQueue } from './dead-letters.js';
import { activityFunctionAccess } from '../../functions/activities/access.js';

/** The terminal statuses of a Step Functions execution, as its EventBridge events spell them. */
export const TERMINAL_EXECUTION_STATUSES = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'] as const;

export interface JourneyFunctionsProps {
  repoRoot: string;
  table: ITable;
  /** The exact name every compiled state machine's Task states invoke (ACTIVITY_FUNCTION_ARN). */
  activityFunctionName: string;
  /** Start of the ARN of every state machine this stack publishes (`...:stateMachine:arthr-`). */
  stateMachineArnPrefix: string;
  environment: Record<string, string>;
}

/**
 * The two Lambdas journeys need besides the API: the activity function that every Task state
 * invokes, and the function that records an execution's end on its instance, fed by an
 * EventBridge rule on this stack's state machines.
 */
export class JourneyFunctions extends Construct {
  readonly activities: ServiceFunction;
  readonly executionEnd: ServiceFunction;
  readonly executionEndRule: events.Rule;
  /** Execution-end events that could not be delivered or processed, kept for a redrive. */
  readonly executionEndDeadLetters: sqs.Queue;

  constructor(scope: Construct, id: string, props: JourneyFunctionsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const tableArn = props.table.tableArn;

    // --- Activities. User steps record where the journey waits (an UpdateItem on the instance);
    // each activity module declares what its own code needs.
    const access = activityFunctionAccess();
    this.activities = new ServiceFunction(this, 'Activities', {
      functionName: props.activityFunctionName,
      description: 'Runs journey activities: every Task state of the arthr- state machines invokes it.',
      repoRoot: props.repoRoot,
      entry: 'functions/activities/lambda.ts',
      memorySize: 256,
      timeout: Duration.seconds(30),
      environment: props.environment,
      policyName: 'activities',
      roleDescription: 'Runs journey activities: records the waiting user step, runs the identity store activities (users, passcodes) and publishes the step change.',
      // The union of what the activity modules declare (functions/activities/access.ts).
      statements: [
        new iam.PolicyStatement({
          sid: 'InstanceItems',
          actions: access.table.map((a) => `dynamodb:${a}`),
          resources: [tableArn],
        }),
        ...(access.events
          ? [new iam.PolicyStatement({ sid: 'PublishInstanceEvents', actions: ['events:PutEvents'], resources: [defaultEventBusArn(stack)] })]
          : []),
      ],
    });

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
      functionName: ServiceFunction.stackScopedName(this, 'onExecutionEnd'),
      description: 'Records a journey execution\'s end on its process instance and publishes the status change.',
      repoRoot: props.repoRoot,
      entry: 'functions/process-manager/on-execution-end.ts',
      memorySize: 256,
      timeout: Duration.seconds(30),
      environment: props.environment,
      policyName: 'onExecutionEnd',
      roleDescription: 'Records journey execution ends: reads and updates instances, publishes their status changes.',
      statements: [
        new iam.PolicyStatement({
          sid: 'InstanceItems',
          actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
          resources: [tableArn],
        }),
        new iam.PolicyStatement({
          sid: 'PublishInstanceEvents',
          actions: ['events:PutEvents'],
          resources: [defaultEventBusArn(stack)],
        }),
      ],
      // Lambda's own handling of a failed run (the default two retries, within six hours).
      deadLetterQueue: this.executionEndDeadLetters,
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
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
  }
}
