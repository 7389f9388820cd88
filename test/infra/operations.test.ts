import { rmSync } from 'node:fs';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reservedFunctionNames } from '../../lib/concurrency.js';
import { asArray, joined, ofType, refId, resourceAt, statementsOf, synthesize, unacknowledgedNagFindings, type Resource, type Synthesized } from './support.js';

describe('ArthrStack operations', () => {
  let synth: Synthesized;
  let template: Template;
  let topicId: string;
  const fn = (path: string) => resourceAt(template, 'AWS::Lambda::Function', `ArthrStack/Journeys/${path}/Function`);

  beforeAll(() => {
    synth = synthesize({ alarmEmail: 'oncall@example.com' }, { bundle: false });
    template = synth.template;
    [topicId] = resourceAt(template, 'AWS::SNS::Topic', 'ArthrStack/Operations/Topic');
  }, 120_000);
  afterAll(() => {
    if (synth) rmSync(synth.outdir, { recursive: true, force: true });
  });

  describe('alarms', () => {
    it('every alarm of the stack notifies the topic when it fires and when it clears', () => {
      const alarms = Object.entries(ofType(template, 'AWS::CloudWatch::Alarm'));
      expect(alarms.length).toBeGreaterThanOrEqual(10);
      for (const [id, a] of alarms) {
        expect(a.Properties.AlarmActions, id).toEqual([{ Ref: topicId }]);
        expect(a.Properties.OKActions, id).toEqual([{ Ref: topicId }]);
        expect(a.Properties.ActionsEnabled ?? true, id).toBe(true);
      }
    });

    it('watch what users notice and what journeys run on', () => {
      const names = Object.values(ofType(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties.AlarmName).filter(Boolean).sort();
      expect(names).toEqual(
        ['ActivityThrottles', 'ApiLatency', 'ApiServerErrors', 'ExecutionEndErrors', 'ExecutionEndThrottles', 'ExecutionsFailed', 'JanitorErrors', 'TableThrottles'].map((n) => `arthr-fir-${n}`),
      );
      const byName = (n: string) => Object.values(ofType(template, 'AWS::CloudWatch::Alarm')).find((a) => a.Properties.AlarmName === `arthr-fir-${n}`)!.Properties;
      // API errors as a share of requests, only once there is traffic to judge.
      const errors = byName('ApiServerErrors');
      expect(errors.Metrics.find((m: { Expression?: string }) => m.Expression)?.Expression).toBe('IF(requests >= 20, 100 * errors / requests, 0)');
      expect(JSON.stringify(errors.Metrics)).toContain('"MetricName":"5xx"');
      expect(byName('ApiLatency')).toMatchObject({ MetricName: 'Latency', ExtendedStatistic: 'p99', Threshold: 5000 });
      expect(byName('ActivityThrottles')).toMatchObject({ MetricName: 'Throttles', Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn('Activities')[0] } }] });
      expect(byName('ExecutionEndErrors')).toMatchObject({ MetricName: 'Errors', Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn('ExecutionEnd')[0] } }] });
      expect(byName('ExecutionsFailed')).toMatchObject({ Namespace: 'arthr-fir', MetricName: 'ExecutionsFailed', Threshold: 1 });
    });

    it('count failed executions from the state machines\u2019 error logs', () => {
      const [groupId] = resourceAt(template, 'AWS::Logs::LogGroup', 'ArthrStack/StateMachineLogs');
      const filters = Object.values(ofType(template, 'AWS::Logs::MetricFilter'));
      expect(filters.map((f) => f.Properties)).toEqual([
        {
          LogGroupName: { Ref: groupId },
          FilterPattern: '{ $.type = "ExecutionFailed" }',
          MetricTransformations: [{ MetricNamespace: 'arthr-fir', MetricName: 'ExecutionsFailed', MetricValue: '1', DefaultValue: 0 }],
        },
      ]);
    });

    it('mail the topic to the address given, over an encrypted topic that refuses plain HTTP', () => {
      template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com', TopicArn: { Ref: topicId } });
      const topic = ofType(template, 'AWS::SNS::Topic')[topicId]!;
      expect(topic.Properties.TopicName).toBe('arthr-fir-alarms');
      const keyId = refId(topic.Properties.KmsMasterKeyId)!;
      // CloudWatch publishes to it, so it may use the key (it could not use the AWS-managed SNS key).
      const key = ofType(template, 'AWS::KMS::Key')[keyId]!;
      expect(key.Properties.EnableKeyRotation).toBe(true);
      const cloudwatch = asArray<{ Principal?: { Service?: string }; Action: string[]; Condition?: unknown }>(key.Properties.KeyPolicy.Statement).find((s) => s.Principal?.Service === 'cloudwatch.amazonaws.com');
      expect(cloudwatch?.Action).toEqual(['kms:Decrypt', 'kms:GenerateDataKey*']);
      // For this account's alarms only (confused deputy); the account itself only administers the key.
      expect(cloudwatch?.Condition).toMatchObject({ StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } });
      expect(joined((cloudwatch?.Condition as { ArnLike: Record<string, unknown> }).ArnLike['aws:SourceArn'])).toBe('arn:aws:cloudwatch:eu-west-1:<AWS::AccountId>:alarm:*');
      const policy = Object.values(ofType(template, 'AWS::SNS::TopicPolicy')).find((p) => asArray(p.Properties.Topics).some((t) => refId(t) === topicId))!;
      expect(JSON.stringify(policy.Properties.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
    });
  });

  describe('the dashboard', () => {
    let body: string;
    beforeAll(() => {
      const [, dashboard] = resourceAt(template, 'AWS::CloudWatch::Dashboard', 'ArthrStack/Operations/Dashboard');
      expect(dashboard.Properties.DashboardName).toBe('arthr-fir');
      body = joined(dashboard.Properties.DashboardBody);
    });

    it('shows the service\u2019s own metrics of this deployment (its service dimension)', () => {
      for (const metric of ['TokensIssued', 'InstancesCreated']) expect(body).toContain(`["arthr","${metric}","service","arthr-fir"`);
      for (const status of ['COMPLETED_ENDED_SUCCESS', 'COMPLETED_ENDED_ERROR', 'REVIEW', 'COMPLETED_TERMINATED', 'COMPLETED_PROCESS_ERROR']) {
        expect(body).toContain(`["arthr","JourneysCompleted","service","arthr-fir","status","${status}"`);
      }
      // Activity errors by activity type, whichever types occur.
      expect(body).toContain(`SEARCH('{arthr,activityType,service} MetricName=\\"ActivityErrors\\" service=\\"arthr-fir\\"', 'Sum', 300)`);
    });

    it('shows the API, the journey functions, the table, the dead letters and the alarms', () => {
      for (const m of ['"Count"', '"5xx"', '"Latency"', '"Invocations"', '"Throttles"', '"ConcurrentExecutions"', '"ConsumedReadCapacityUnits"', '"ApproximateNumberOfMessagesVisible"', '"ExecutionsFailed"']) {
        expect(body).toContain(m);
      }
      expect(body).toContain('"type":"alarm"');
    });

    it('graphs every dead-letter queue of the stack by what it holds, each of them alarming on its first message', () => {
      // The queues nothing redrives further: every dead-letter queue (the export jobs and the webhook deliveries redrive to theirs).
      const queues = Object.entries(ofType(template, 'AWS::SQS::Queue'));
      const deadLetters = queues.filter(([, q]) => q.Properties.RedrivePolicy === undefined);
      const path = (id: string) => String(queues.find(([q]) => q === id)![1].Metadata?.['aws:cdk:path']).replace(/\/Resource$/, '');
      const widget = (JSON.parse(body) as { widgets: { properties: { title?: string; metrics?: unknown[][] } }[] }).widgets.find((w) => w.properties.title === 'Dead letters')!;
      const graphed = widget.properties.metrics!.map((m) => {
        expect(m.slice(0, 3)).toEqual(['AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'QueueName']);
        const id = /^<(.+)\.QueueName>$/.exec(m[3] as string)![1]!;
        return [path(id), (m[4] as { label: string }).label];
      });
      expect(graphed).toEqual([
        ['ArthrStack/Journeys/ExecutionEndDeadLetters', 'Execution ends not recorded'],
        ['ArthrStack/Images/CleanupDeadLetters', 'Image clean-ups not done'],
        ['ArthrStack/Exports/JobDeadLetters', 'Export jobs failed'],
        ['ArthrStack/Events/RelayDeadLetters', 'Events not relayed'],
        ['ArthrStack/Events/DeliveryDeadLetters', 'Webhook deliveries not attempted'],
        ['ArthrStack/Events/RetryDeadLetters', 'Webhook retries not attempted'],
      ]);
      expect(graphed.map(([p]) => p).sort()).toEqual(deadLetters.map(([id]) => path(id)).sort());
      for (const [id] of deadLetters) {
        const alarms = Object.values(ofType(template, 'AWS::CloudWatch::Alarm')).filter((a) => asArray<{ Value: unknown }>(a.Properties.Dimensions).some((d) => refId(d.Value) === id));
        expect(alarms.map((a) => a.Properties), path(id)).toEqual([
          expect.objectContaining({ MetricName: 'ApproximateNumberOfMessagesVisible', ComparisonOperator: 'GreaterThanThreshold', Threshold: 0 }),
        ]);
      }
    });
  });

  describe('capacity', () => {
    // By function name, as the preflight (lib/preflight.ts) looks the reservations up.
    const names = reservedFunctionNames('arthr-fir');
    const reservations = (t: Template) =>
      Object.fromEntries(
        Object.values(ofType(t, 'AWS::Lambda::Function'))
          .filter((f) => f.Properties.ReservedConcurrentExecutions !== undefined)
          .map((f) => [f.Properties.FunctionName, f.Properties.ReservedConcurrentExecutions]),
      );
    const withContext = (context: Record<string, unknown>) => {
      const other = synthesize(context, { bundle: false });
      try {
        return { reserved: reservations(other.template), alarms: Object.values(ofType(other.template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties) };
      } finally {
        rmSync(other.outdir, { recursive: true, force: true });
      }
    };

    it('reserves no concurrency by default, so that an account with a small Lambda quota can deploy', () => {
      const functions = Object.values(ofType(template, 'AWS::Lambda::Function'));
      expect(functions.length).toBeGreaterThan(10);
      expect(reservations(template)).toEqual({});
      const throttles = Object.values(ofType(template, 'AWS::CloudWatch::Alarm')).find((a) => a.Properties.AlarmName === 'arthr-fir-ActivityThrottles')!;
      expect(throttles.Properties.AlarmDescription).toContain("the account's Lambda concurrency");
    });

    it('keeps the reconciler and the janitor to one run at a time with their schedules: each run ends before the next is due', () => {
      const rule = (id: string) => resourceAt(template, 'AWS::Events::Rule', `ArthrStack/Journeys/${id}`)[1].Properties;
      const seconds = (rate: string) => {
        const [, n, unit] = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(rate)!;
        return Number(n) * { minute: 60, minutes: 60, hour: 3600, hours: 3600, day: 86_400, days: 86_400 }[unit as 'minute'];
      };
      for (const [fnId, ruleId] of [['Reconciler', 'ReconcileSchedule'], ['StateMachineJanitor', 'StateMachineJanitorSchedule']]) {
        expect(fn(fnId!)[1].Properties.Timeout, fnId).toBeLessThan(seconds(rule(ruleId!).ScheduleExpression));
      }
      // The reconciler is not retried at all (a retry could start while the next scheduled run goes).
      const [reconcilerId] = fn('Reconciler');
      const invokeConfig = Object.values(ofType(template, 'AWS::Lambda::EventInvokeConfig')).find((c) => refId(c.Properties.FunctionName) === reconcilerId);
      expect(invokeConfig?.Properties.MaximumRetryAttempts).toBe(0);
      expect(rule('ReconcileSchedule').Targets[0].RetryPolicy).toEqual({ MaximumRetryAttempts: 0 });
    });

    it('reserves for the journeys\u2019 functions, the reconciler and the janitor with -c reservedConcurrency=true', () => {
      const { reserved, alarms } = withContext({ reservedConcurrency: 'true' });
      expect(reserved).toEqual({ [names.activities]: 100, [names.executionEnd]: 100, [names.reconciler]: 1, [names.janitor]: 1 });
      expect(alarms.find((a) => a.AlarmName === 'arthr-fir-ActivityThrottles')!.AlarmDescription).toContain('reserved concurrency (100)');
    }, 120_000);

    it('reserves for one function given its own value, and nothing for the others', () => {
      expect(withContext({ activityConcurrency: '250', executionEndConcurrency: '20' }).reserved).toEqual({ [names.activities]: 250, [names.executionEnd]: 20 });
    }, 120_000);
  });

  describe('the state machine janitor', () => {
    it('runs every hour (a pass a day, continued from its checkpoint while its page token is fresh)', () => {
      const [janitorId] = fn('StateMachineJanitor');
      const [, rule] = resourceAt(template, 'AWS::Events::Rule', 'ArthrStack/Journeys/StateMachineJanitorSchedule');
      expect(rule.Properties.ScheduleExpression).toBe('rate(1 hour)');
      expect(rule.Properties.Targets.map((t: Resource['Properties']) => refId(t.Arn))).toEqual([janitorId]);
    });

    it('may list state machines, and only read tags, list executions and delete this deployment\u2019s, use the service\u2019s items and query definitions', () => {
      const [, janitor] = fn('StateMachineJanitor');
      expect(janitor.Properties.FunctionName).toBe('arthr-fir-sweepStateMachines');
      const statements = statementsOf(template, refId(janitor.Properties.Role)!);
      const grant = (action: string) => statements.filter((s) => asArray(s.Action).includes(action)).flatMap((s) => asArray(s.Resource).map(joined));
      const leading = (action: string) => statements.filter((s) => asArray(s.Action).includes(action)).map((s) => (s.Condition as Record<string, Record<string, unknown>> | undefined)?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys']);
      expect(grant('states:ListStateMachines')).toEqual(['*']);
      for (const a of ['states:ListTagsForResource', 'states:ListExecutions', 'states:DeleteStateMachine']) {
        expect(grant(a), a).toEqual(['arn:aws:states:eu-west-1:<AWS::AccountId>:stateMachine:arthr-fir-*']);
      }
      const table = `<${Object.keys(ofType(template, 'AWS::DynamoDB::Table'))[0]}.Arn>`;
      for (const a of ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:UpdateItem']) expect(grant(a), a).toEqual([table]);
      // The reference items and the checkpoint are the service's (SVC#); versions are read in definition partitions only.
      expect(leading('dynamodb:GetItem')).toEqual([['SVC#*']]);
      expect(leading('dynamodb:UpdateItem')).toEqual([['SVC#*']]);
      expect(leading('dynamodb:Query')).toEqual([['TNT#*#PDEFS']]);
      expect(statements.flatMap((s) => asArray(s.Action)).sort()).toEqual(
        [
          'dynamodb:GetItem',
          'dynamodb:Query',
          'dynamodb:UpdateItem',
          'logs:CreateLogStream',
          'logs:PutLogEvents',
          'states:DeleteStateMachine',
          'states:ListExecutions',
          'states:ListStateMachines',
          'states:ListTagsForResource',
        ].sort(),
      );
    });
  });

  it('passes the cdk-nag AwsSolutions pack with no unacknowledged finding', () => {
    expect(unacknowledgedNagFindings(synth.app)).toEqual([]);
  });
});
