import { rmSync } from 'node:fs';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTBOX_STREAM_FILTER } from '../../functions/events/relay.js';
import { keys } from '../../functions/store/keys.js';
import { TABLE_SCHEMA } from '../../functions/store/schema.js';
import {
  asArray,
  joined,
  ofType,
  refId,
  resourceAt,
  statementsOf,
  synthesize,
  unacknowledgedNagFindings,
  type Resource,
  type Statement,
  type Synthesized,
} from './support.js';

const LOG_ACTIONS = ['logs:CreateLogStream', 'logs:PutLogEvents'];
/** The account's default bus in region fir (eu-west-1), as `joined` reads it: where events used to go. */
const DEFAULT_BUS = 'arn:aws:events:eu-west-1:<AWS::AccountId>:event-bus/default';

/**
 * Lambda event filtering as the relay's pattern uses it, written out here independently of
 * functions/events/relay.ts: nested objects, and arrays of rules, each an exact value or a
 * `{prefix}` of a string (a field matches when one rule does; a missing field never matches).
 */
function filterMatches(pattern: Record<string, unknown>, event: unknown): boolean {
  return Object.entries(pattern).every(([field, want]) => {
    const value = event && typeof event === 'object' ? (event as Record<string, unknown>)[field] : undefined;
    if (Array.isArray(want)) {
      return want.some((w) => {
        if (typeof w === 'string') return value === w;
        if (w && typeof w === 'object' && Object.keys(w).length === 1 && typeof (w as { prefix?: unknown }).prefix === 'string') {
          return typeof value === 'string' && value.startsWith((w as { prefix: string }).prefix);
        }
        throw new Error(`unsupported filter rule at ${field}: ${JSON.stringify(w)}`);
      });
    }
    return filterMatches(want as Record<string, unknown>, value);
  });
}

/** A DynamoDB stream record (KEYS_ONLY) as Lambda hands it over. */
function streamRecord(opts: { eventName: string; key: { PK: string; SK: string }; ttl?: boolean }): Record<string, unknown> {
  return {
    eventID: 'c81e728d9d4c2f636f067f89cc14862c',
    eventName: opts.eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'eu-west-1',
    dynamodb: {
      ApproximateCreationDateTime: 1_767_225_600,
      Keys: { [TABLE_SCHEMA.partitionKey]: { S: opts.key.PK }, [TABLE_SCHEMA.sortKey]: { S: opts.key.SK } },
      SequenceNumber: '4421584500000000017450439091',
      SizeBytes: 60,
      StreamViewType: 'KEYS_ONLY',
    },
    // Only DynamoDB's own TTL deletions carry a userIdentity.
    ...(opts.ttl ? { userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' } } : {}),
    eventSourceARN: 'arn:aws:dynamodb:eu-west-1:111122223333:table/T/stream/2026-01-01T00:00:00.000',
  };
}

describe('ArthrStack events', () => {
  let synth: Synthesized;
  let template: Template;
  let tableId: string;
  let busId: string;
  let bus: Resource;
  let relayId: string;
  let relay: Resource;
  let queueId: string;
  let mappingId: string;
  let mapping: Resource;

  const busArn = () => ({ 'Fn::GetAtt': [busId, 'Arn'] });
  const queueArn = () => ({ 'Fn::GetAtt': [queueId, 'Arn'] });
  const relayRoleId = () => refId(relay.Properties.Role)!;
  /** Whether a policy action (IAM wildcards and all, case-insensitive) covers events:PutEvents. */
  const allowsPutEvents = (action: string) => {
    const glob = action.replace(/[.+^$(){}|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
    return new RegExp(`^${glob}$`, 'i').test('events:PutEvents');
  };

  beforeAll(() => {
    // Template only: the relay's bundle is checked with the others in stack.test.ts.
    synth = synthesize({}, { bundle: false });
    template = synth.template;
    tableId = Object.keys(ofType(template, 'AWS::DynamoDB::Table'))[0]!;
    [busId, bus] = resourceAt(template, 'AWS::Events::EventBus', 'ArthrStack/Events/Bus');
    [relayId, relay] = resourceAt(template, 'AWS::Lambda::Function', 'ArthrStack/Events/Relay/Function');
    [queueId] = resourceAt(template, 'AWS::SQS::Queue', 'ArthrStack/Events/RelayDeadLetters');
    [mappingId, mapping] = resourceAt(template, 'AWS::Lambda::EventSourceMapping', 'ArthrStack/Events/Outbox');
  }, 120_000);

  afterAll(() => {
    if (synth) rmSync(synth.outdir, { recursive: true, force: true });
  });

  describe('bus', () => {
    it('is the stack\'s one event bus, named after the deployment', () => {
      expect(Object.keys(ofType(template, 'AWS::Events::EventBus'))).toEqual([busId]);
      expect(bus.Properties.Name).toBe('arthr-fir-events');
      expect(String(bus.Properties.Description).length).toBeGreaterThan(0);
    });

    it('lets no other account put events on it (no resource policy)', () => {
      expect(bus.Properties.Policy).toBeUndefined();
      expect(ofType(template, 'AWS::Events::EventBusPolicy')).toEqual({});
    });

    it('outputs its name for relying parties\' rules and webhook subscriptions', () => {
      expect(template.findOutputs('EventBusName').EventBusName!.Value).toEqual({ Ref: busId });
    });
  });

  describe('relay function', () => {
    it('runs on nodejs22.x, arm64, 256 MB, 60 s, under the deployment\'s name, logging to its own log group kept for a month', () => {
      expect(relay.Properties).toMatchObject({
        FunctionName: 'arthr-fir-relayEvents',
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 256,
        Timeout: 60,
      });
      expect(relay.Metadata?.['aws:asset:path']).toBeDefined();
      const group = ofType(template, 'AWS::Logs::LogGroup')[refId(relay.Properties.LoggingConfig.LogGroup)!]!;
      expect(group.Properties).toEqual({ LogGroupName: '/aws/lambda/arthr-fir-relayEvents', RetentionInDays: 30 });
    });

    it('is told only the table, the log level, its service name and the stack\'s bus', () => {
      // TABLE_NAME because the store configuration requires it (functions/config.ts), and the
      // relay reads outbox items from it; EVENT_BUS_NAME is where functions/events/bus.ts puts.
      expect(relay.Properties.Environment.Variables).toEqual({
        TABLE_NAME: { Ref: tableId },
        LOG_LEVEL: 'INFO',
        POWERTOOLS_SERVICE_NAME: 'arthr-fir',
        EVENT_BUS_NAME: { Ref: busId },
      });
    });

    it('may only read outbox items, put events on the stack\'s bus, send to its queue, read the table stream and write its own logs', () => {
      const statements = statementsOf(template, relayRoleId());
      expect(statements.every((s) => s.Effect === 'Allow')).toBe(true);
      const strip = ({ Effect: _effect, Sid: _sid, ...s }: Statement & { Sid?: string }) => s;
      expect(statements.map(strip)).toEqual([
        { Action: LOG_ACTIONS, Resource: { 'Fn::GetAtt': [refId(relay.Properties.LoggingConfig.LogGroup), 'Arn'] } },
        // Only the outbox partitions (TNT#{tenantId}#EVENTS), though the stream names every item.
        {
          Action: 'dynamodb:GetItem',
          Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
          Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['TNT#*#EVENTS'] } },
        },
        { Action: 'events:PutEvents', Resource: busArn() },
        { Action: 'sqs:SendMessage', Resource: queueArn() },
        // What Table.grantStreamRead grants: ListStreams takes no resource but `*`.
        { Action: 'dynamodb:ListStreams', Resource: '*' },
        { Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], Resource: { 'Fn::GetAtt': [tableId, 'StreamArn'] } },
      ]);
      expect(ofType(template, 'AWS::IAM::Role')[relayRoleId()]!.Properties.ManagedPolicyArns).toBeUndefined();
      // The mapping is created only once the role can read the stream (Lambda checks on creation):
      // it names the function, which waits for the role's policies.
      const policies = Object.entries(ofType(template, 'AWS::IAM::Policy')).filter(([, p]) => asArray(p.Properties.Roles).some((r) => refId(r) === relayRoleId()));
      expect(policies).toHaveLength(1);
      expect(relay.DependsOn).toContain(policies[0]![0]);
      expect(refId(mapping.Properties.FunctionName)).toBe(relayId);
    });

    it('puts events on the stack\'s own bus only, never on the account\'s default bus', () => {
      const put = statementsOf(template, relayRoleId()).filter((s) => asArray(s.Action).some(allowsPutEvents));
      expect(put.flatMap((s) => asArray(s.Resource))).toEqual([busArn()]);
      expect(put.every((s) => s.Condition === undefined)).toBe(true);
      expect(put.flatMap((s) => asArray(s.Resource)).map(joined)).not.toContain(DEFAULT_BUS);
      // No role's statement names the default bus any more (ARNs built by Stack.formatArn end in it).
      for (const roleId of Object.keys(ofType(template, 'AWS::IAM::Role'))) {
        expect(JSON.stringify(statementsOf(template, roleId)), roleId).not.toContain('event-bus/default');
      }
    });

    it('is the only function in the stack allowed to put events on any bus', () => {
      const putters = Object.keys(ofType(template, 'AWS::IAM::Role')).filter((roleId) =>
        statementsOf(template, roleId).some((s) => s.Effect === 'Allow' && asArray(s.Action).some(allowsPutEvents)),
      );
      expect(putters).toEqual([relayRoleId()]);
      // And that role serves the relay alone.
      const users = Object.values(ofType(template, 'AWS::Lambda::Function')).filter((f) => refId(f.Properties.Role) === relayRoleId());
      expect(users).toEqual([relay]);
    });
  });

  describe('outbox stream mapping', () => {
    it('feeds the relay from the table stream, from the oldest record still there, 100 records a batch, one batch per shard at a time', () => {
      const { FilterCriteria: _filter, ...properties } = mapping.Properties;
      expect(properties).toEqual({
        EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
        FunctionName: { Ref: relayId },
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: 100,
        // One at a time: order within a shard (a tenant's events) is kept.
        ParallelizationFactor: 1,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        MaximumRecordAgeInSeconds: 20 * 3600,
        DestinationConfig: { OnFailure: { Destination: queueArn() } },
      });
    });

    it('invokes the relay only for new outbox items, with the very pattern the local poller applies (OUTBOX_STREAM_FILTER)', () => {
      const filters = mapping.Properties.FilterCriteria.Filters as { Pattern: string }[];
      expect(filters).toHaveLength(1);
      expect(JSON.parse(filters[0]!.Pattern)).toEqual(OUTBOX_STREAM_FILTER);
      expect(JSON.parse(filters[0]!.Pattern)).toEqual({ eventName: ['INSERT'], dynamodb: { Keys: { [TABLE_SCHEMA.sortKey]: { S: [{ prefix: 'EVT#' }] } } } });
    });

    it('lets through exactly the records that are new outbox items', () => {
      const pattern = JSON.parse((mapping.Properties.FilterCriteria.Filters as { Pattern: string }[])[0]!.Pattern) as Record<string, unknown>;
      const event = keys.outboxEvent('acme', '2026-01-01T00:00:00.000Z', 'evt_01JGJZ7V9D4Q3N2M1K0H8G6F5E');
      const instance = keys.instance('acme', '0b6f4d2e-8d0a-4c53-9a53-2f0d1c8e7a41');
      const cases = [
        { name: 'an event is written to the outbox', record: streamRecord({ eventName: 'INSERT', key: event }), relayed: true },
        { name: 'TTL removes an event after 30 days', record: streamRecord({ eventName: 'REMOVE', key: event, ttl: true }), relayed: false },
        { name: 'an outbox item is modified', record: streamRecord({ eventName: 'MODIFY', key: event }), relayed: false },
        { name: 'an instance is created', record: streamRecord({ eventName: 'INSERT', key: instance }), relayed: false },
        { name: 'an instance is updated', record: streamRecord({ eventName: 'MODIFY', key: instance }), relayed: false },
        { name: 'TTL removes an instance', record: streamRecord({ eventName: 'REMOVE', key: instance, ttl: true }), relayed: false },
        { name: 'an idempotency record is written', record: streamRecord({ eventName: 'INSERT', key: keys.idempotency('acme', 'k1') }), relayed: false },
      ];
      for (const c of cases) expect(filterMatches(pattern, c.record), c.name).toBe(c.relayed);
    });

    it('is one of the table stream\'s two readers, with the image clean-up', () => {
      const onStream = Object.entries(ofType(template, 'AWS::Lambda::EventSourceMapping')).filter(
        ([, m]) => JSON.stringify(m.Properties.EventSourceArn) === JSON.stringify({ 'Fn::GetAtt': [tableId, 'StreamArn'] }),
      );
      expect(onStream.map(([, m]) => m.Metadata?.['aws:cdk:path']).sort()).toEqual(['ArthrStack/Events/Outbox/Resource', 'ArthrStack/Images/InstanceExpiry/Resource']);
      expect(onStream.filter(([, m]) => refId(m.Properties.FunctionName) === relayId).map(([id]) => id)).toEqual([mappingId]);
      // Keys only: the relay reads each event from the table, and no item's data is in the stream.
      expect(ofType(template, 'AWS::DynamoDB::Table')[tableId]!.Properties.StreamSpecification).toEqual({ StreamViewType: 'KEYS_ONLY' });
    });
  });

  describe('dead letters', () => {
    it('encrypts its queue, refuses plain HTTP, keeps messages 14 days and alarms on the first one', () => {
      const queue = ofType(template, 'AWS::SQS::Queue')[queueId]!;
      expect(queue.Properties).toEqual({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
      const policies = Object.values(ofType(template, 'AWS::SQS::QueuePolicy')).filter((p) => asArray(p.Properties.Queues).some((q) => refId(q) === queueId));
      expect(policies).toHaveLength(1);
      // Nobody gets in through the queue policy: the relay's role sends.
      expect(asArray<Statement>(policies[0]!.Properties.PolicyDocument.Statement)).toEqual([
        expect.objectContaining({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]);
      const alarms = Object.values(ofType(template, 'AWS::CloudWatch::Alarm')).filter((a) =>
        asArray<{ Value: unknown }>(a.Properties.Dimensions).some((d) => refId(d.Value) === queueId),
      );
      expect(alarms.map((a) => a.Properties)).toEqual([
        expect.objectContaining({ MetricName: 'ApproximateNumberOfMessagesVisible', ComparisonOperator: 'GreaterThanThreshold', Threshold: 0 }),
      ]);
      // The alarm tells the on-call where the events still are.
      expect(alarms[0]!.Properties.AlarmDescription).toMatch(/outbox/);
    });

    it('is the only grant on the queue: the relay\'s role may send to it, and no other role', () => {
      const senders = Object.keys(ofType(template, 'AWS::IAM::Role')).filter((roleId) =>
        statementsOf(template, roleId).some((s) => JSON.stringify(s.Resource).includes(`"${queueId}"`)),
      );
      expect(senders).toEqual([relayRoleId()]);
    });

    it('is output for operators, and shown on the dashboard as events not relayed', () => {
      expect(refId(template.findOutputs('EventRelayDeadLetterQueueUrl').EventRelayDeadLetterQueueUrl!.Value)).toBe(queueId);
      const [, dashboard] = resourceAt(template, 'AWS::CloudWatch::Dashboard', 'ArthrStack/Operations/Dashboard');
      const body = joined(dashboard.Properties.DashboardBody);
      expect(body).toContain(`<${queueId}.QueueName>`);
      expect(body).toContain('"label":"Events not relayed"');
    });
  });

  describe('cdk-nag', () => {
    it('acknowledges only the runtime pin, ListStreams on `*` and the dead-letter queue having none of its own, each with a reason', () => {
      const acknowledged = Object.values(template.toJSON().Resources as Record<string, Resource>)
        .filter((r) => String(r.Metadata?.['aws:cdk:path'] ?? '').startsWith('ArthrStack/Events/'))
        .flatMap((r) => asArray<{ id: string; reason: string }>(r.Metadata?.cdk_nag?.rules_to_suppress).map((s) => ({ path: r.Metadata!['aws:cdk:path'] as string, ...s })));
      expect(acknowledged.map(({ path, id }) => `${path} ${id}`).sort()).toEqual(
        [
          'ArthrStack/Events/Relay/Function/Resource AwsSolutions-L1',
          'ArthrStack/Events/Relay/Role/Resource AwsSolutions-IAM5[Resource::*]',
          'ArthrStack/Events/Relay/Role/DefaultPolicy/Resource AwsSolutions-IAM5[Resource::*]',
          'ArthrStack/Events/RelayDeadLetters/Resource AwsSolutions-SQS3',
        ].sort(),
      );
      for (const a of acknowledged) expect(a.reason.trim().length, `${a.id} on ${a.path}`).toBeGreaterThanOrEqual(10);
      // The `*` is ListStreams' alone: every other action of the role names its resource.
      const onStar = statementsOf(template, relayRoleId()).filter((s) => asArray(s.Resource).includes('*'));
      expect(onStar.flatMap((s) => asArray(s.Action))).toEqual(['dynamodb:ListStreams']);
    });

    it('passes the cdk-nag AwsSolutions pack with no unacknowledged finding', () => {
      expect(unacknowledgedNagFindings(synth.app)).toEqual([]);
    });
  });
});
