import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import { serviceKey } from './key-policies.js';
import type { ServiceFunction } from './service-function.js';

/** The final statuses a journey can end in (the JourneysCompleted metric's `status` dimension). */
export const FINAL_STATUSES = ['COMPLETED_ENDED_SUCCESS', 'COMPLETED_ENDED_ERROR', 'REVIEW', 'COMPLETED_TERMINATED', 'COMPLETED_PROCESS_ERROR'] as const;

/** Namespace of the service's own metrics (functions/observability/metrics.ts). */
export const METRICS_NAMESPACE = 'arthr';

export interface OperationsProps {
  /** `arthr-{label}`: names the topic, the dashboard and the alarms, and is the metrics' `service` dimension. */
  namePrefix: string;
  apiId: string;
  /** The HTTP API stage whose metrics are watched (`$default`). */
  stage: string;
  activities: ServiceFunction;
  /** The activity function's reserved concurrency, when the deployment reserves any (lib/concurrency.ts). */
  activityConcurrency?: number;
  /** The execution-end function's reserved concurrency, when the deployment reserves any. */
  executionEndConcurrency?: number;
  executionEnd: ServiceFunction;
  janitor: ServiceFunction;
  table: ITable;
  stateMachineLogs: logs.ILogGroup;
  deadLetterQueues: { title: string; queue: IQueue }[];
  alarmEmail?: string;
}

/**
 * How operators learn that something is wrong, and see how the service is doing: one SNS topic
 * that every alarm of the stack notifies (when it fires and when it clears), the alarms on the
 * symptoms users notice (API errors and latency, journeys failing) and on the journeys' own
 * functions, and one dashboard with the service's business metrics beside them.
 */
export class Operations extends Construct {
  readonly topic: sns.Topic;
  readonly dashboard: cloudwatch.Dashboard;
  /** Journey executions that failed (a process error: not a decline, a timeout or an abort), from the state machines' logs. */
  readonly executionsFailed: cloudwatch.Metric;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const { namePrefix } = props;
    const fiveMinutes = Duration.minutes(5);

    // --- Notifications. Encrypted with a key of its own: CloudWatch cannot publish to a topic
    // under the AWS-managed SNS key, so the key lets CloudWatch use it (the account only
    // administers it), for the alarms of this account and region only (confused deputy).
    const stack = Stack.of(this);
    const key = serviceKey(this, 'TopicKey', {
      description: `Encrypts the alarm notifications of ${namePrefix}`,
      alias: `alias/${namePrefix}-alarms`,
      enableKeyRotation: true,
    });
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          // Every alarm of the account and region: some are named by CloudFormation, and a pattern
          // that missed one would drop its notifications silently.
          ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'cloudwatch', resource: 'alarm', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }) },
        },
      }),
    );
    this.topic = new sns.Topic(this, 'Topic', {
      topicName: `${namePrefix}-alarms`,
      displayName: `Arthr ${namePrefix} alarms`,
      masterKey: key,
      enforceSSL: true,
    });
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));

    // --- Metrics.
    const api = (metricName: string, statistic: string) =>
      new cloudwatch.Metric({ namespace: 'AWS/ApiGateway', metricName, dimensionsMap: { ApiId: props.apiId, Stage: props.stage }, statistic, period: fiveMinutes });
    const requests = api('Count', cloudwatch.Stats.SUM);
    const serverErrors = api('5xx', cloudwatch.Stats.SUM);
    const clientErrors = api('4xx', cloudwatch.Stats.SUM);
    const own = (metricName: string, dimensions: Record<string, string> = {}) =>
      new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { service: namePrefix, ...dimensions }, statistic: cloudwatch.Stats.SUM, period: fiveMinutes });

    // A failed execution (an activity error no boundary event routes, an activity this
    // deployment cannot run): the instance ends COMPLETED_PROCESS_ERROR. Counted from the state
    // machines' error logs, so it holds even when recording the end on the instance fails.
    const filter = new logs.MetricFilter(this, 'ExecutionsFailedFilter', {
      logGroup: props.stateMachineLogs,
      filterPattern: logs.FilterPattern.stringValue('$.type', '=', 'ExecutionFailed'),
      metricNamespace: namePrefix,
      metricName: 'ExecutionsFailed',
      metricValue: '1',
      defaultValue: 0,
    });
    this.executionsFailed = filter.metric({ statistic: cloudwatch.Stats.SUM, period: fiveMinutes });

    // --- Alarms (each notifies the topic: see `notifyAll`).
    const alarm = (alarmId: string, metric: cloudwatch.Metric | cloudwatch.MathExpression, opts: { description: string; threshold: number; periods?: number; operator?: cloudwatch.ComparisonOperator }) =>
      metric.createAlarm(this, alarmId, {
        alarmName: `${namePrefix}-${alarmId}`,
        alarmDescription: opts.description,
        threshold: opts.threshold,
        evaluationPeriods: opts.periods ?? 1,
        comparisonOperator: opts.operator ?? cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });

    alarm(
      'ApiServerErrors',
      // A share, so a quiet hour's single error does not page anyone; only with traffic to judge.
      new cloudwatch.MathExpression({
        expression: 'IF(requests >= 20, 100 * errors / requests, 0)',
        usingMetrics: { requests, errors: serverErrors },
        label: '5xx % of requests',
        period: fiveMinutes,
      }),
      { description: 'Over 1% of API requests answered 5xx in two 5-minute periods running (functions failing, a quota used up, the table throttling).', threshold: 1, periods: 2 },
    );
    alarm('ApiLatency', api('Latency', 'p99'), {
      description: 'The slowest 1% of API requests took over 5 seconds, three 5-minute periods running.',
      threshold: 5_000,
      periods: 3,
    });
    alarm('ExecutionsFailed', this.executionsFailed, {
      description: 'Journey executions failed (instances ending COMPLETED_PROCESS_ERROR): see the state machines\' log group for which, and the activity function\'s log.',
      threshold: 1,
    });
    alarm('ActivityThrottles', props.activities.function.metricThrottles({ period: fiveMinutes, statistic: cloudwatch.Stats.SUM }), {
      description:
        props.activityConcurrency !== undefined
          ? `The activity function hit its reserved concurrency (${props.activityConcurrency}): journeys' steps are retried and slowed. Raise -c activityConcurrency.`
          : "The activity function was throttled: the account's Lambda concurrency (shared with the API's functions) was used up, so journeys' steps are retried and slowed. Ask for a higher quota, or reserve with -c activityConcurrency.",
      threshold: 1,
    });
    alarm('ExecutionEndErrors', props.executionEnd.function.metricErrors({ period: fiveMinutes, statistic: cloudwatch.Stats.SUM }), {
      description: 'Recording a journey\'s end on its instance failed (it is retried; what still fails lands in the execution-end dead-letter queue).',
      threshold: 1,
    });
    alarm('ExecutionEndThrottles', props.executionEnd.function.metricThrottles({ period: fiveMinutes, statistic: cloudwatch.Stats.SUM }), {
      description:
        props.executionEndConcurrency !== undefined
          ? `The execution-end function hit its reserved concurrency (${props.executionEndConcurrency}): journeys' ends are recorded late. Raise -c executionEndConcurrency.`
          : "The execution-end function was throttled: the account's Lambda concurrency was used up, so journeys' ends are recorded late. Ask for a higher quota, or reserve with -c executionEndConcurrency.",
      threshold: 1,
    });
    alarm('JanitorErrors', props.janitor.function.metricErrors({ period: Duration.hours(1), statistic: cloudwatch.Stats.SUM }), {
      description: 'The state machine janitor failed (or could not judge some state machines): unused state machines accumulate towards the account\'s quota (activating a definition then answers 503).',
      threshold: 1,
    });
    const tableThrottles = new cloudwatch.MathExpression({
      expression: 'reads + writes',
      usingMetrics: {
        reads: new cloudwatch.Metric({ namespace: 'AWS/DynamoDB', metricName: 'ReadThrottleEvents', dimensionsMap: { TableName: props.table.tableName }, statistic: cloudwatch.Stats.SUM, period: fiveMinutes }),
        writes: new cloudwatch.Metric({ namespace: 'AWS/DynamoDB', metricName: 'WriteThrottleEvents', dimensionsMap: { TableName: props.table.tableName }, statistic: cloudwatch.Stats.SUM, period: fiveMinutes }),
      },
      label: 'throttled reads and writes',
      period: fiveMinutes,
    });
    alarm('TableThrottles', tableThrottles, {
      description: 'The table throttled reads or writes in two 5-minute periods running (a hot partition, or on-demand capacity ramping).',
      threshold: 1,
      periods: 2,
    });

    // --- The dashboard: the service's own metrics first, then what they run on.
    const graph = (title: string, metrics: cloudwatch.IMetric[], width = 8) => new cloudwatch.GraphWidget({ title, left: metrics, width, height: 6 });
    const fn = (f: ServiceFunction) => [
      f.function.metricInvocations({ period: fiveMinutes }),
      f.function.metricErrors({ period: fiveMinutes }),
      f.function.metricThrottles({ period: fiveMinutes }),
    ];
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: namePrefix,
      defaultInterval: Duration.hours(24),
      widgets: [
        [
          graph('Tokens issued', [own('TokensIssued')]),
          graph('Instances created', [own('InstancesCreated')]),
          graph('Journeys completed, by status', FINAL_STATUSES.map((status) => own('JourneysCompleted', { status }).with({ label: status }))),
        ],
        [
          graph('Activity errors, by activity type', [
            new cloudwatch.MathExpression({
              expression: `SEARCH('{${METRICS_NAMESPACE},activityType,service} MetricName="ActivityErrors" service="${namePrefix}"', 'Sum', 300)`,
              label: '',
              period: fiveMinutes,
            }),
          ]),
          graph('Journey executions failed', [this.executionsFailed]),
          graph('API requests and errors', [requests, clientErrors, serverErrors]),
        ],
        [
          graph('API latency', [api('Latency', 'p50'), api('Latency', 'p99'), api('IntegrationLatency', 'p99')]),
          graph('Activity function', [...fn(props.activities), props.activities.function.metric('ConcurrentExecutions', { statistic: cloudwatch.Stats.MAXIMUM, period: fiveMinutes })]),
          graph('Execution-end function', fn(props.executionEnd)),
        ],
        [
          graph('Table: consumed capacity and throttles', [
            props.table.metricConsumedReadCapacityUnits({ period: fiveMinutes }),
            props.table.metricConsumedWriteCapacityUnits({ period: fiveMinutes }),
            tableThrottles,
          ]),
          graph(
            'Dead letters',
            props.deadLetterQueues.map((d) => d.queue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, statistic: cloudwatch.Stats.MAXIMUM, label: d.title })),
          ),
          new cloudwatch.AlarmStatusWidget({
            title: 'Alarms',
            width: 8,
            height: 6,
            alarms: this.node.findAll().filter((c): c is cloudwatch.Alarm => c instanceof cloudwatch.Alarm),
          }),
        ],
      ],
    });
  }

  /** Every alarm under `scope` (this stack's, its nested stacks') notifies the topic when it fires and when it clears. */
  notifyAll(scope: IConstruct): cloudwatch.Alarm[] {
    const alarms = scope.node.findAll().filter((c): c is cloudwatch.Alarm => c instanceof cloudwatch.Alarm);
    const action = new SnsAction(this.topic);
    for (const a of alarms) {
      a.addAlarmAction(action);
      a.addOkAction(action);
    }
    return alarms;
  }
}
