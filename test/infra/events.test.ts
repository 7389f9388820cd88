import { rmSync } from 'node:fs';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WEBHOOK_RETRY_SECONDS } from '../../functions/config.js';
import { OUTBOX_STREAM_FILTER } from '../../functions/events/relay.js';
import { routeList } from '../../functions/routes.js';
import { keys } from '../../functions/store/keys.js';
import { TABLE_SCHEMA } from '../../functions/store/schema.js';
import { tenantAssumeConditions, tenantTagConditions } from '../../lib/constructs/tenant-role.js';
import {
  asArray,
  joined,
  ofType,
  refId,
  resourceAt,
  routeFunctionPath,
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

/** The delivery role's ARN as the worker is told it and granted it. */
const SUBSCRIBER_ROLE = 'arn:aws:iam::<AWS::AccountId>:role/arthr-fir-eu-west-1-subscriber-delivery';

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
  let deliveriesId: string;
  let deliveries: Resource;
  let replaysId: string;
  let replays: Resource;
  let retriesId: string;
  let retries: Resource;
  let deliveryDeadLettersId: string;
  let deliveryDeadLetters: Resource;
  let workerId: string;
  let worker: Resource;
  let secretsKeyId: string;

  const busArn = () => ({ 'Fn::GetAtt': [busId, 'Arn'] });
  const queueArn = () => ({ 'Fn::GetAtt': [queueId, 'Arn'] });
  const deliveriesArn = () => ({ 'Fn::GetAtt': [deliveriesId, 'Arn'] });
  const replaysArn = () => ({ 'Fn::GetAtt': [replaysId, 'Arn'] });
  const retriesArn = () => ({ 'Fn::GetAtt': [retriesId, 'Arn'] });
  const secretsKeyArn = () => ({ 'Fn::GetAtt': [secretsKeyId, 'Arn'] });
  const tableArn = () => ({ 'Fn::GetAtt': [tableId, 'Arn'] });
  const relayRoleId = () => refId(relay.Properties.Role)!;
  const workerRoleId = () => refId(worker.Properties.Role)!;
  /** The role of a route's function (in its area's nested stack, flattened into the template). */
  const routeRoleId = (operationId: string) =>
    refId(resourceAt(template, 'AWS::Lambda::Function', routeFunctionPath(routeList.find((r) => r.operationId === operationId)!))[1].Properties.Role)!;
  const roleIds = () => Object.keys(ofType(template, 'AWS::IAM::Role'));
  /** Whether a policy action (IAM wildcards and all, case-insensitive) covers `wanted`. */
  const allows = (action: string, wanted: string) => {
    const glob = action.replace(/[.+^$(){}|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
    return new RegExp(`^${glob}$`, 'i').test(wanted);
  };
  const allowsPutEvents = (action: string) => allows(action, 'events:PutEvents');
  /** A grant of a tenant role on the session tenant's items of `kinds` (`TNT#*#{kind}` for that tenant; the outbox sharded or not). */
  const TAG = 'TNT#${aws:PrincipalTag/arthr-tenant}#';
  const tenantItems = (sid: string, action: string | string[], kinds: string[]) => ({
    Sid: sid,
    Effect: 'Allow',
    Action: Array.isArray(action) ? action.map((a) => `dynamodb:${a}`) : `dynamodb:${action}`,
    Resource: tableArn(),
    Condition: {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': kinds.flatMap((k) => (k === 'EVENTS' ? [`${TAG}EVENTS`, `${TAG}S??#EVENTS`] : [`${TAG}${k}`])) },
      Null: { 'dynamodb:LeadingKeys': 'false' },
    },
  });
  /** The tenant role of the function at `path` (its logical id), and its grants. */
  const tenantRoleId = (path: string) => resourceAt(template, 'AWS::IAM::Role', `${path}/Tenant/Role`)[0];
  const tenantGrants = (path: string) => statementsOf(template, tenantRoleId(path));
  /** A function role's grant to assume its own tenant role, with the tenant tag alone. */
  const actForOneTenant = (functionName: string) => ({
    Sid: 'ActForOneTenant',
    Effect: 'Allow',
    Action: ['sts:AssumeRole', 'sts:TagSession'],
    Resource: { 'Fn::Join': ['', ['arn:aws:iam::', { Ref: 'AWS::AccountId' }, `:role/${functionName}/tenant/*`]] },
    Condition: { 'ForAllValues:StringEquals': { 'aws:TagKeys': ['arthr-tenant'] }, StringLike: { 'aws:RequestTag/arthr-tenant': '?*' } },
  });
  /** Every Allow statement of any role whose actions cover `action` on `resource` (or on `*`), by role. */
  const grantsOn = (action: string, resource: unknown) =>
    roleIds().flatMap((roleId) =>
      statementsOf(template, roleId)
        .filter((s) => s.Effect === 'Allow' && asArray(s.Action).some((a) => allows(a, action)))
        .filter((s) => asArray(s.Resource).some((r) => r === '*' || JSON.stringify(r) === JSON.stringify(resource)))
        .map((s) => ({ roleId, statement: s })),
    );

  beforeAll(() => {
    // Template only: the relay's bundle is checked with the others in stack.test.ts.
    synth = synthesize({}, { bundle: false });
    template = synth.template;
    tableId = Object.keys(ofType(template, 'AWS::DynamoDB::Table'))[0]!;
    [busId, bus] = resourceAt(template, 'AWS::Events::EventBus', 'ArthrStack/Events/Bus');
    [relayId, relay] = resourceAt(template, 'AWS::Lambda::Function', 'ArthrStack/Events/Relay/Function');
    [queueId] = resourceAt(template, 'AWS::SQS::Queue', 'ArthrStack/Events/RelayDeadLetters');
    [mappingId, mapping] = resourceAt(template, 'AWS::Lambda::EventSourceMapping', 'ArthrStack/Events/Outbox');
    [deliveriesId, deliveries] = resourceAt(template, 'AWS::SQS::Queue', 'ArthrStack/Events/Deliveries');
    [replaysId, replays] = resourceAt(template, 'AWS::SQS::Queue', 'ArthrStack/Events/Replays');
    [retriesId, retries] = resourceAt(template, 'AWS::SQS::Queue', 'ArthrStack/Events/Retries');
    [deliveryDeadLettersId, deliveryDeadLetters] = resourceAt(template, 'AWS::SQS::Queue', 'ArthrStack/Events/DeliveryDeadLetters');
    [workerId, worker] = resourceAt(template, 'AWS::Lambda::Function', 'ArthrStack/Events/DeliveryWorker/Function');
    [secretsKeyId] = resourceAt(template, 'AWS::KMS::Key', 'ArthrStack/CloudSecretsKey');
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

    it('is told only the table, the log level, its service name, the stack\'s bus and the webhook delivery queue', () => {
      // TABLE_NAME because the store configuration requires it (functions/config.ts), and the
      // relay reads outbox items from it; EVENT_BUS_NAME is where functions/events/bus.ts puts;
      // WEBHOOK_QUEUE_URL is where it queues each delivery (functions/adapters/delivery-queue.ts).
      expect(relay.Properties.Environment.Variables).toEqual({
        TABLE_NAME: { Ref: tableId },
        LOG_LEVEL: 'INFO',
        POWERTOOLS_SERVICE_NAME: 'arthr-fir',
        EVENT_BUS_NAME: { Ref: busId },
        WEBHOOK_QUEUE_URL: { Ref: deliveriesId },
        // Its tenant role, which it reads the outbox, the webhooks and starts deliveries through.
        TENANT_ROLE_ARN: { 'Fn::GetAtt': [tenantRoleId('ArthrStack/Events/Relay'), 'Arn'] },
      });
    });

    it('may only read outbox items, query webhooks, start deliveries (for one tenant, through its tenant role), put events on the stack\'s bus, queue deliveries, send to its dead letters, read the table stream and write its own logs', () => {
      // Each record's tenant (its key's): only the outbox partitions (TNT#{tenantId}#EVENTS,
      // sharded or not), though the stream names every item; the tenant's webhooks (one
      // partition), to fan each event out to those that want it; a delivery record per webhook
      // and event, in the webhook's delivery partition.
      expect(tenantGrants('ArthrStack/Events/Relay')).toEqual([
        tenantItems('OutboxItems', 'GetItem', ['EVENTS']),
        tenantItems('TenantWebhooks', 'Query', ['WEBHOOKS']),
        tenantItems('StartDeliveries', 'PutItem', ['WHDLV#*']),
      ]);
      const statements = statementsOf(template, relayRoleId());
      expect(statements).toEqual([
        { Sid: 'OwnLogGroupOnly', Effect: 'Allow', Action: LOG_ACTIONS, Resource: { 'Fn::GetAtt': [refId(relay.Properties.LoggingConfig.LogGroup), 'Arn'] } },
        { Sid: 'PutEvents', Effect: 'Allow', Action: 'events:PutEvents', Resource: busArn() },
        { Sid: 'QueueDeliveries', Effect: 'Allow', Action: 'sqs:SendMessage', Resource: deliveriesArn() },
        { Sid: 'FailedBatches', Effect: 'Allow', Action: 'sqs:SendMessage', Resource: queueArn() },
        actForOneTenant('arthr-fir-relayEvents'),
        // What Table.grantStreamRead grants: ListStreams takes no resource but `*`, and the table's
        // key (whose policy names this role too: isolation.test.ts).
        { Effect: 'Allow', Action: 'dynamodb:ListStreams', Resource: '*' },
        { Effect: 'Allow', Action: ['kms:Decrypt', 'kms:DescribeKey'], Resource: { 'Fn::GetAtt': [resourceAt(template, 'AWS::KMS::Key', 'ArthrStack/TableKey')[0], 'Arn'] } },
        { Effect: 'Allow', Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], Resource: { 'Fn::GetAtt': [tableId, 'StreamArn'] } },
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

    it('is the only function in the stack allowed to put events on any bus (besides the delivery role, on other accounts\' buses)', () => {
      const putters = Object.keys(ofType(template, 'AWS::IAM::Role')).filter((roleId) =>
        statementsOf(template, roleId).some((s) => s.Effect === 'Allow' && asArray(s.Action).some(allowsPutEvents)),
      );
      const delivery = Object.entries(ofType(template, 'AWS::IAM::Role')).find(([, r]) => r.Properties.RoleName === 'arthr-fir-eu-west-1-subscriber-delivery')![0];
      expect(putters.sort()).toEqual([relayRoleId(), delivery].sort());
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
      const event = keys.outboxEvent('acme', '2026-01-01T00:00:00.000Z', 'evt_01JGJZ7V9D4Q3N2M1K0H8G6F5E', '0b6f4d2e-8d0a-4c53-9a53-2f0d1c8e7a41');
      const legacyEvent = keys.legacyOutboxEvent('acme', '2026-01-01T00:00:00.000Z', 'evt_01JGJZ7V9D4Q3N2M1K0H8G6F5E');
      const instance = keys.instance('acme', '0b6f4d2e-8d0a-4c53-9a53-2f0d1c8e7a41');
      const cases = [
        { name: 'an event is written to the outbox', record: streamRecord({ eventName: 'INSERT', key: event }), relayed: true },
        { name: 'an event is written to the outbox\'s partition from before shards', record: streamRecord({ eventName: 'INSERT', key: legacyEvent }), relayed: true },
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

  describe('webhook delivery queue', () => {
    /** The worker's retry schedule: one attempt, then one per delay (functions/config.ts). */
    const delays = DEFAULT_WEBHOOK_RETRY_SECONDS.split(',').map(Number);

    it('is FIFO in high-throughput mode, encrypted by SQS, hides a message 180 s, keeps it 14 days and moves it to its dead letters after 11 receives', () => {
      expect(deliveries.Properties).toEqual({
        FifoQueue: true,
        FifoThroughputLimit: 'perMessageGroupId',
        DeduplicationScope: 'messageGroup',
        SqsManagedSseEnabled: true,
        VisibilityTimeout: 180,
        // SQS's longest: a subject's events wait their turn one after another, each with its schedule.
        MessageRetentionPeriod: 14 * 86_400,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deliveryDeadLettersId, 'Arn'] }, maxReceiveCount: 11 },
      });
      // The numbers hold together: Lambda asks a polled queue to hide a message six times the
      // function's timeout; the worker makes every attempt of the schedule before the redrive
      // would take its message (each attempt is one receive); and the whole schedule fits in the
      // message's retention.
      expect(deliveries.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * worker.Properties.Timeout);
      expect(deliveries.Properties.RedrivePolicy.maxReceiveCount).toBeGreaterThan(delays.length + 1);
      expect(delays.reduce((a, b) => a + b, 0)).toBeLessThan(deliveries.Properties.MessageRetentionPeriod);
    });

    it('refuses plain HTTP and lets nobody in through its queue policy', () => {
      const policies = Object.values(ofType(template, 'AWS::SQS::QueuePolicy')).filter((p) => asArray(p.Properties.Queues).some((q) => refId(q) === deliveriesId));
      expect(policies).toHaveLength(1);
      expect(asArray<Statement>(policies[0]!.Properties.PolicyDocument.Statement)).toEqual([
        expect.objectContaining({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]);
    });

    it('may be sent to only by the relay (replays have a queue of their own)', () => {
      const senders = [...new Set(grantsOn('sqs:SendMessage', deliveriesArn()).map((g) => g.roleId))].sort();
      // (SendMessageBatch is authorised as SendMessage; a grant on `*` would count above.)
      expect(senders).toEqual([relayRoleId()]);
    });

    it('is granted to the relay and the worker, and to no other role', () => {
      const touching = roleIds().filter((roleId) => JSON.stringify(statementsOf(template, roleId)).includes(`"${deliveriesId}"`));
      expect(touching.sort()).toEqual([relayRoleId(), workerRoleId()].sort());
      // Only the worker takes messages off it.
      for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']) {
        expect([...new Set(grantsOn(action, deliveriesArn()).map((g) => g.roleId))], action).toEqual([workerRoleId()]);
      }
    });

    it('is read by the worker one message at a time, at most 20 at once, reporting failed messages; the worker reads only it and the replay queue', () => {
      const onQueue = Object.entries(ofType(template, 'AWS::Lambda::EventSourceMapping')).filter(([, m]) => refId(m.Properties.EventSourceArn) === deliveriesId);
      expect(onQueue).toHaveLength(1);
      expect(onQueue[0]![1].Properties).toEqual({
        EventSourceArn: deliveriesArn(),
        FunctionName: { Ref: workerId },
        BatchSize: 1,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: 20 },
      });
      // And the worker is fed by nothing else but the replays and the retries.
      const feeding = Object.values(ofType(template, 'AWS::Lambda::EventSourceMapping')).filter((m) => refId(m.Properties.FunctionName) === workerId);
      expect(feeding.map((m) => refId(m.Properties.EventSourceArn)).sort()).toEqual([deliveriesId, replaysId, retriesId].sort());
    });

    it('is told to the relay only, as WEBHOOK_QUEUE_URL (and to the worker, which reads the same configuration)', () => {
      const told = Object.values(ofType(template, 'AWS::Lambda::Function')).filter((f) => f.Properties.Environment?.Variables?.WEBHOOK_QUEUE_URL !== undefined);
      expect(told.map((f) => f.Properties.FunctionName).sort()).toEqual(['arthr-fir-deliverWebhooks', 'arthr-fir-relayEvents']);
      for (const f of told) expect(f.Properties.Environment.Variables.WEBHOOK_QUEUE_URL, f.Properties.FunctionName).toEqual({ Ref: deliveriesId });
    });
  });

  describe('webhook retry queue and sweeper', () => {
    it('is a standard queue (per-message DelaySeconds), encrypted, with dead letters of its own, read by the worker at most 10 at once', () => {
      expect(retries.Properties.FifoQueue).toBeUndefined();
      expect(retries.Properties).toMatchObject({ SqsManagedSseEnabled: true, VisibilityTimeout: 180, RedrivePolicy: { maxReceiveCount: 5 } });
      const onQueue = Object.values(ofType(template, 'AWS::Lambda::EventSourceMapping')).filter((m) => refId(m.Properties.EventSourceArn) === retriesId);
      expect(onQueue.map((m) => m.Properties)).toEqual([
        { EventSourceArn: retriesArn(), FunctionName: { Ref: workerId }, BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'], ScalingConfig: { MaximumConcurrency: 10 } },
      ]);
      // Sent to by the worker (retries, released deliveries) and the sweeper only.
      const sweeperRole = refId(resourceAt(template, 'AWS::Lambda::Function', 'ArthrStack/Events/DeliverySweeper/Function')[1].Properties.Role)!;
      expect([...new Set(grantsOn('sqs:SendMessage', retriesArn()).map((g) => g.roleId))].sort()).toEqual([workerRoleId(), sweeperRole].sort());
    });

    it('sweeps every five minutes with only what it needs: the due index, delivery items, subjects\' lines, the retry queue', () => {
      const [sweeperId, sweeper] = resourceAt(template, 'AWS::Lambda::Function', 'ArthrStack/Events/DeliverySweeper/Function');
      expect(sweeper.Properties.FunctionName).toBe('arthr-fir-sweepWebhookDeliveries');
      // The due index (keys only, across tenants) on its own role; each delivery for its tenant, through its tenant role.
      const own = statementsOf(template, refId(sweeper.Properties.Role)!).filter((s) => ['DueIndex', 'QueueRetries', 'ActForOneTenant'].includes(String((s as { Sid?: string }).Sid)));
      expect(own).toEqual([
        { Sid: 'DueIndex', Effect: 'Allow', Action: 'dynamodb:Scan', Resource: { 'Fn::Join': ['', [tableArn(), '/index/GSI3']] } },
        { Sid: 'QueueRetries', Effect: 'Allow', Action: 'sqs:SendMessage', Resource: retriesArn() },
        actForOneTenant('arthr-fir-sweepWebhookDeliveries'),
      ]);
      expect(statementsOf(template, refId(sweeper.Properties.Role)!).flatMap((s) => asArray(s.Action)).filter((a) => a.startsWith('dynamodb:'))).toEqual(['dynamodb:Scan']);
      expect(tenantGrants('ArthrStack/Events/DeliverySweeper')).toEqual([
        tenantItems('Deliveries', ['GetItem', 'UpdateItem'], ['WHDLV#*']),
        tenantItems('SubjectOrder', ['Query', 'UpdateItem'], ['WHHOLD#*']),
      ]);
      const rules = Object.values(ofType(template, 'AWS::Events::Rule')).filter((r) => asArray(r.Properties.Targets).some((t: { Arn: unknown }) => JSON.stringify(t.Arn).includes(sweeperId)));
      expect(rules.map((r) => r.Properties.ScheduleExpression)).toEqual(['rate(5 minutes)']);
    });
  });

  describe('webhook replay queue', () => {
    it('is made as the delivery queue is (FIFO, encrypted, 180 s, 14 days), sharing its dead letters', () => {
      expect(replays.Properties).toEqual(deliveries.Properties);
      const policies = Object.values(ofType(template, 'AWS::SQS::QueuePolicy')).filter((p) => asArray(p.Properties.Queues).some((q) => refId(q) === replaysId));
      expect(policies).toHaveLength(1);
      expect(asArray<Statement>(policies[0]!.Properties.PolicyDocument.Statement)).toEqual([
        expect.objectContaining({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]);
    });

    it('may be sent to only by the routes that replay, under their own sid, and is taken off only by the worker', () => {
      const queuing = routeList.filter((r) => r.aws.webhooks?.includes('SendMessage')).map((r) => r.operationId);
      expect(queuing).toEqual(['replayWebhookEvents']);
      expect([...new Set(grantsOn('sqs:SendMessage', replaysArn()).map((g) => g.roleId))].sort()).toEqual(queuing.map(routeRoleId).sort());
      // The replay's grant: that queue alone, and not the delivery queue.
      expect(statementsOf(template, routeRoleId('replayWebhookEvents')).filter((s) => asArray(s.Action).some((a) => a.startsWith('sqs:')))).toEqual([
        { Sid: 'QueueWebhookReplays', Effect: 'Allow', Action: 'sqs:SendMessage', Resource: replaysArn() },
      ]);
      const touching = roleIds().filter((roleId) => JSON.stringify(statementsOf(template, roleId)).includes(`"${replaysId}"`));
      expect(touching.sort()).toEqual([routeRoleId('replayWebhookEvents'), workerRoleId()].sort());
      for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']) {
        expect([...new Set(grantsOn(action, replaysArn()).map((g) => g.roleId))], action).toEqual([workerRoleId()]);
      }
    });

    it('is read by the worker through a mapping of its own, one message at a time, at most 5 at once, on top of the delivery queue\'s 20', () => {
      const onQueue = Object.values(ofType(template, 'AWS::Lambda::EventSourceMapping')).filter((m) => refId(m.Properties.EventSourceArn) === replaysId);
      expect(onQueue.map((m) => m.Properties)).toEqual([
        { EventSourceArn: replaysArn(), FunctionName: { Ref: workerId }, BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'], ScalingConfig: { MaximumConcurrency: 5 } },
      ]);
      // No reserved concurrency on the worker: the two mappings' maxima are what bound it, each apart.
      expect(worker.Properties.ReservedConcurrentExecutions).toBeUndefined();
    });

    it('is told to the replay route (WEBHOOK_REPLAY_QUEUE_URL) and the worker only', () => {
      const told = Object.values(ofType(template, 'AWS::Lambda::Function')).filter((f) => f.Properties.Environment?.Variables?.WEBHOOK_REPLAY_QUEUE_URL !== undefined);
      expect(told.map((f) => f.Properties.FunctionName).sort()).toEqual(['arthr-fir-deliverWebhooks', 'arthr-fir-replayWebhookEvents']);
      for (const f of told) expect(f.Properties.Environment.Variables.WEBHOOK_REPLAY_QUEUE_URL, f.Properties.FunctionName).toEqual({ Ref: replaysId });
    });
  });

  describe('webhook delivery dead letters', () => {
    it('is a FIFO queue (as a FIFO queue\'s dead letters must be), encrypted by SQS, refusing plain HTTP, keeping messages 14 days', () => {
      expect(deliveryDeadLetters.Properties).toEqual({ FifoQueue: true, SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
      const policies = Object.values(ofType(template, 'AWS::SQS::QueuePolicy')).filter((p) => asArray(p.Properties.Queues).some((q) => refId(q) === deliveryDeadLettersId));
      expect(policies).toHaveLength(1);
      expect(asArray<Statement>(policies[0]!.Properties.PolicyDocument.Statement)).toEqual([
        expect.objectContaining({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]);
      // Filled by the redrive alone: no role is granted anything on it.
      expect(roleIds().filter((roleId) => JSON.stringify(statementsOf(template, roleId)).includes(`"${deliveryDeadLettersId}"`))).toEqual([]);
    });

    it('alarms on the first message, telling the on-call how to replay the deliveries', () => {
      const alarms = Object.entries(ofType(template, 'AWS::CloudWatch::Alarm')).filter(([, a]) =>
        asArray<{ Value: unknown }>(a.Properties.Dimensions).some((d) => refId(d.Value) === deliveryDeadLettersId),
      );
      expect(alarms.map(([, a]) => a.Metadata?.['aws:cdk:path'])).toEqual(['ArthrStack/Events/DeliveryDeadLettersAlarm/Resource']);
      const { AlarmDescription, AlarmActions: _actions, OKActions: _ok, ...alarm } = alarms[0]![1].Properties;
      expect(alarm).toEqual({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deliveryDeadLettersId, 'QueueName'] } }],
        Statistic: 'Maximum',
        Period: 300,
        EvaluationPeriods: 1,
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
        TreatMissingData: 'notBreaching',
      });
      expect(AlarmDescription).toMatch(/PENDING/);
      expect(AlarmDescription).toContain('POST /api/webhook-manager/webhooks/{id}/replay');
      // The path it names is the replay route's.
      expect(routeList.find((r) => r.operationId === 'replayWebhookEvents')!.path).toBe('/api/webhook-manager/webhooks/{webhookId}/replay');
    });

    it('is shown on the dashboard as webhook deliveries not attempted', () => {
      const [, dashboard] = resourceAt(template, 'AWS::CloudWatch::Dashboard', 'ArthrStack/Operations/Dashboard');
      const body = joined(dashboard.Properties.DashboardBody);
      expect(body).toContain(`<${deliveryDeadLettersId}.QueueName>`);
      expect(body).toContain('"label":"Webhook deliveries not attempted"');
    });
  });

  describe('relay lag', () => {
    it('alarms when the relay is more than five minutes behind the table stream', () => {
      const [, alarm] = resourceAt(template, 'AWS::CloudWatch::Alarm', 'ArthrStack/Events/RelayBehindAlarm');
      const { AlarmDescription, AlarmActions: _actions, OKActions: _ok, ...properties } = alarm.Properties;
      expect(properties).toEqual({
        Namespace: 'AWS/Lambda',
        MetricName: 'IteratorAge',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: relayId } }],
        Statistic: 'Maximum',
        Period: 300,
        EvaluationPeriods: 1,
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 5 * 60 * 1000,
        TreatMissingData: 'notBreaching',
      });
      expect(String(AlarmDescription)).toMatch(/behind the table stream/);
      // Long before the mapping gives a record up to the dead letters.
      expect(properties.Threshold / 1000).toBeLessThan(mapping.Properties.MaximumRecordAgeInSeconds);
      // The relay's is the one iterator-age alarm.
      const iteratorAge = Object.values(ofType(template, 'AWS::CloudWatch::Alarm')).filter((a) => a.Properties.MetricName === 'IteratorAge');
      expect(iteratorAge).toEqual([alarm]);
    });
  });

  describe('delivery worker', () => {
    it('runs on nodejs22.x, arm64, 256 MB, 30 s, under the deployment\'s name, logging to its own log group kept for a month', () => {
      expect(worker.Properties).toMatchObject({
        FunctionName: 'arthr-fir-deliverWebhooks',
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 256,
        Timeout: 30,
      });
      expect(worker.Metadata?.['aws:asset:path']).toBeDefined();
      const group = ofType(template, 'AWS::Logs::LogGroup')[refId(worker.Properties.LoggingConfig.LogGroup)!]!;
      expect(group.Properties).toEqual({ LogGroupName: '/aws/lambda/arthr-fir-deliverWebhooks', RetentionInDays: 30 });
    });

    it('is told only the table, the log level, its service name, the delivery, replay and retry queues, the secrets key, the delivery role and its own account', () => {
      const { SUBSCRIBER_ROLE_ARN, SERVICE_ACCOUNT_ID, ...rest } = worker.Properties.Environment.Variables;
      expect(rest).toEqual({
        TABLE_NAME: { Ref: tableId },
        LOG_LEVEL: 'INFO',
        POWERTOOLS_SERVICE_NAME: 'arthr-fir',
        WEBHOOK_QUEUE_URL: { Ref: deliveriesId },
        WEBHOOK_REPLAY_QUEUE_URL: { Ref: replaysId },
        WEBHOOK_RETRY_QUEUE_URL: { Ref: retriesId },
        SECRETS_KEY: { 'Fn::Join': ['', ['kms:', secretsKeyArn()]] },
        TENANT_ROLE_ARN: { 'Fn::GetAtt': [tenantRoleId('ArthrStack/Events/DeliveryWorker'), 'Arn'] },
      });
      expect(joined(SUBSCRIBER_ROLE_ARN)).toBe(SUBSCRIBER_ROLE);
      expect(SERVICE_ACCOUNT_ID).toEqual({ Ref: 'AWS::AccountId' });
    });

    it('may only read deliveries, webhooks and events, record attempts, keep health and subject lines, unseal webhook secrets, queue retries, consume its three queues and write its own logs', () => {
      // Each message's tenant, through its tenant role: the delivery, its webhook and its event
      // (only those partitions); the attempt; a webhook whose endpoint answered 410 Gone is
      // disabled, its endpoint's health item counts failures; a subject's line (the delivery
      // holding it for a retry, and those parked behind it).
      expect(tenantGrants('ArthrStack/Events/DeliveryWorker')).toEqual([
        tenantItems('ReadDeliveries', 'GetItem', ['WHDLV#*', 'WEBHOOKS', 'EVENTS']),
        tenantItems('RecordAttempts', 'UpdateItem', ['WHDLV#*']),
        tenantItems('WebhookHealth', ['PutItem', 'UpdateItem'], ['WEBHOOKS']),
        tenantItems('SubjectOrder', ['DeleteItem', 'PutItem', 'Query', 'UpdateItem'], ['WHHOLD#*']),
      ]);
      expect(statementsOf(template, workerRoleId())).toEqual([
        { Sid: 'OwnLogGroupOnly', Effect: 'Allow', Action: LOG_ACTIONS, Resource: { 'Fn::GetAtt': [refId(worker.Properties.LoggingConfig.LogGroup), 'Arn'] } },
        {
          Sid: 'UnsealWebhookSecrets',
          Effect: 'Allow',
          Action: 'kms:Decrypt',
          Resource: secretsKeyArn(),
          Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'webhook-secret' } },
        },
        // A failed attempt's retry: a new message on the retry queue, never a FIFO message hidden.
        { Sid: 'QueueRetries', Effect: 'Allow', Action: 'sqs:SendMessage', Resource: retriesArn() },
        // The delivery role for a queue or bus target: only with exactly the tenant's session tag.
        {
          Sid: 'SendAsTenant',
          Effect: 'Allow',
          Action: ['sts:AssumeRole', 'sts:TagSession'],
          Resource: expect.anything(),
          Condition: { 'ForAllValues:StringEquals': { 'aws:TagKeys': ['arthr-tenant'] }, StringLike: { 'aws:RequestTag/arthr-tenant': '?*' } },
        },
        // Its tenant role, for each message's tenant.
        actForOneTenant('arthr-fir-deliverWebhooks'),
        // What the SQS event source grants (Queue.grantConsumeMessages): Lambda's poller receives and deletes.
        {
          Effect: 'Allow',
          Action: ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'],
          Resource: [deliveriesArn(), replaysArn(), retriesArn()],
        },
      ]);
      expect(ofType(template, 'AWS::IAM::Role')[workerRoleId()]!.Properties.ManagedPolicyArns).toBeUndefined();
      // The mapping is created only once the role may receive from the queue (Lambda checks on
      // creation): it names the function, which waits for the role's policy.
      const policies = Object.entries(ofType(template, 'AWS::IAM::Policy')).filter(([, p]) => asArray(p.Properties.Roles).some((r) => refId(r) === workerRoleId()));
      expect(policies).toHaveLength(1);
      expect(worker.DependsOn).toContain(policies[0]![0]);
      // And that role serves the worker alone.
      const users = Object.values(ofType(template, 'AWS::Lambda::Function')).filter((f) => refId(f.Properties.Role) === workerRoleId());
      expect(users).toEqual([worker]);
    });
  });

  describe('subscriber delivery role', () => {
    const role = () => Object.entries(ofType(template, 'AWS::IAM::Role')).find(([, r]) => r.Properties.RoleName === 'arthr-fir-eu-west-1-subscriber-delivery')!;

    it('is the role the worker assumes (with session tags) for queue and bus targets, named as the output and the worker say', () => {
      const [id, r] = role();
      const worker = statementsOf(template, workerRoleId()).find((st) => (st as { Sid?: string }).Sid === 'SendAsTenant')!;
      expect(joined(worker.Resource)).toBe(SUBSCRIBER_ROLE);
      // Trusted by the worker's role alone, for AssumeRole and TagSession, with the tenant's tag
      // and no other (isolation.test.ts reads the conditions).
      expect(asArray<Statement>(r.Properties.AssumeRolePolicyDocument.Statement)).toEqual([
        { Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { AWS: { 'Fn::GetAtt': [workerRoleId(), 'Arn'] } }, Condition: tenantAssumeConditions() },
        { Effect: 'Allow', Action: 'sts:TagSession', Principal: { AWS: { 'Fn::GetAtt': [workerRoleId(), 'Arn'] } }, Condition: tenantTagConditions() },
      ]);
      expect(r.Properties.MaxSessionDuration).toBe(3600);
      expect(template.findOutputs('SubscriberDeliveryRoleArn').SubscriberDeliveryRoleArn!.Value).toEqual({ 'Fn::GetAtt': [id, 'Arn'] });
      expect(r.Properties.ManagedPolicyArns).toBeUndefined();
    });

    it("may only send to queues and buses (and use queue keys through SQS) outside the deployment's own account", () => {
      const [, r] = role();
      const policies = asArray<{ PolicyName: string; PolicyDocument: { Statement: Statement[] } }>(r.Properties.Policies);
      expect(policies.map((p) => p.PolicyName)).toEqual(['subscriberDelivery']);
      const notOwn = { StringNotEquals: { 'aws:ResourceAccount': { Ref: 'AWS::AccountId' } } };
      expect(policies[0]!.PolicyDocument.Statement.map((st) => ({ ...st, Resource: joined(st.Resource) }))).toEqual([
        { Sid: 'SubscriberQueues', Effect: 'Allow', Action: 'sqs:SendMessage', Resource: 'arn:aws:sqs:*:*:*', Condition: notOwn },
        { Sid: 'SubscriberBuses', Effect: 'Allow', Action: 'events:PutEvents', Resource: 'arn:aws:events:*:*:event-bus/*', Condition: notOwn },
        {
          Sid: 'SubscriberQueueKeys',
          Effect: 'Allow',
          Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
          Resource: 'arn:aws:kms:*:*:key/*',
          Condition: { ...notOwn, StringLike: { 'kms:ViaService': 'sqs.*.amazonaws.com' } },
        },
      ]);
      // No other role of the stack may send to queues or buses outside it.
      for (const [roleId] of Object.entries(ofType(template, 'AWS::IAM::Role')).filter(([rid]) => rid !== role()[0])) {
        for (const st of statementsOf(template, roleId)) {
          const resources = asArray(st.Resource).map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
          expect(resources.some((x) => x.includes(':sqs:*') || x.includes('event-bus/*')), roleId).toBe(false);
        }
      }
    });
  });

  describe('webhook secrets', () => {
    const purposeOf = (s: Statement) => (s.Condition as { StringEquals?: Record<string, string> } | undefined)?.StringEquals?.['kms:EncryptionContext:purpose'];

    it('are unsealed (Decrypt in their context) by the delivery worker alone', () => {
      const decrypting = grantsOn('kms:Decrypt', secretsKeyArn());
      // Every Decrypt with the secrets key is limited to one purpose: none opens webhook secrets by accident.
      for (const g of decrypting) expect(purposeOf(g.statement), g.roleId).toMatch(/^(cloud-secret|webhook-secret)$/);
      expect(decrypting.filter((g) => purposeOf(g.statement) === 'webhook-secret').map((g) => g.roleId)).toEqual([workerRoleId()]);
      // The worker opens nothing else with it.
      expect(decrypting.filter((g) => g.roleId === workerRoleId()).map((g) => purposeOf(g.statement))).toEqual(['webhook-secret']);
    });

    it('are sealed (Encrypt in their context) only by the routes that make one: createWebhook and rotateWebhookSecret', () => {
      const sealing = routeList.filter((r) => r.aws.webhooks?.includes('Seal')).map((r) => r.operationId);
      expect(sealing.sort()).toEqual(['createWebhook', 'rotateWebhookSecret']);
      const encrypting = grantsOn('kms:Encrypt', secretsKeyArn());
      for (const g of encrypting) expect(purposeOf(g.statement), g.roleId).toMatch(/^(cloud-secret|webhook-secret)$/);
      expect(encrypting.filter((g) => purposeOf(g.statement) === 'webhook-secret').map((g) => g.roleId).sort()).toEqual(sealing.map(routeRoleId).sort());
      for (const operationId of sealing) {
        expect(statementsOf(template, routeRoleId(operationId)).filter((s) => asArray(s.Action).some((a) => a.startsWith('kms:'))), operationId).toEqual([
          {
            Sid: 'SealWebhookSecrets',
            Effect: 'Allow',
            Action: 'kms:Encrypt',
            Resource: secretsKeyArn(),
            Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'webhook-secret' } },
          },
        ]);
      }
      // Nobody may both seal and unseal them.
      expect(grantsOn('kms:Decrypt', secretsKeyArn()).filter((g) => sealing.map(routeRoleId).includes(g.roleId))).toEqual([]);
    });
  });

  describe('cdk-nag', () => {
    it('acknowledges only the runtime pins, ListStreams on `*` and the dead-letter queues having none of their own, each with a reason', () => {
      const workerMappingPaths = Object.values(ofType(template, 'AWS::Lambda::EventSourceMapping')).filter((m) => refId(m.Properties.FunctionName) === workerId).map((m) => m.Metadata!['aws:cdk:path'] as string);
      expect(workerMappingPaths).toHaveLength(3);
      for (const path of workerMappingPaths) expect(path).toMatch(/^ArthrStack\/Events\/DeliveryWorker\/Function\/SqsEventSource:[^/]+\/Resource$/);
      const acknowledged = Object.values(template.toJSON().Resources as Record<string, Resource>)
        .filter((r) => String(r.Metadata?.['aws:cdk:path'] ?? '').startsWith('ArthrStack/Events/'))
        .flatMap((r) => asArray<{ id: string; reason: string }>(r.Metadata?.cdk_nag?.rules_to_suppress).map((s) => ({ path: r.Metadata!['aws:cdk:path'] as string, ...s })));
      expect(acknowledged.map(({ path, id }) => `${path} ${id}`).sort()).toEqual(
        [
          'ArthrStack/Events/Relay/Function/Resource AwsSolutions-L1',
          'ArthrStack/Events/Relay/Role/Resource AwsSolutions-IAM5[Resource::*]',
          'ArthrStack/Events/Relay/Role/DefaultPolicy/Resource AwsSolutions-IAM5[Resource::*]',
          'ArthrStack/Events/RelayDeadLetters/Resource AwsSolutions-SQS3',
          'ArthrStack/Events/DeliveryWorker/Function/Resource AwsSolutions-L1',
          // The runtime pin is acknowledged on the function construct, and the SQS event source's
          // mappings (deliveries, replays, retries) are made under it (addEventSource): the acknowledgement reaches them too.
          ...workerMappingPaths.map((path) => `${path} AwsSolutions-L1`),
          'ArthrStack/Events/DeliveryDeadLetters/Resource AwsSolutions-SQS3',
          'ArthrStack/Events/RetryDeadLetters/Resource AwsSolutions-SQS3',
          'ArthrStack/Events/DeliverySweeper/Function/Resource AwsSolutions-L1',
          // Its asynchronous invocation config (no retry: the next scheduled run does the same), under the function too.
          'ArthrStack/Events/DeliverySweeper/Function/EventInvokeConfig/Resource AwsSolutions-L1',
          // Relying parties' queues, buses and keys are in accounts known only at run time.
          'ArthrStack/Events/SubscriberDelivery/Resource AwsSolutions-IAM5[Resource::arn:aws:sqs:*:*:*]',
          'ArthrStack/Events/SubscriberDelivery/Resource AwsSolutions-IAM5[Resource::arn:aws:events:*:*:event-bus/*]',
          'ArthrStack/Events/SubscriberDelivery/Resource AwsSolutions-IAM5[Resource::arn:aws:kms:*:*:key/*]',
          // Each function's tenant role, named by its path (its ARN would close a cycle): on the role and on its default policy where it has one.
          ...['Relay/Role/Resource', 'Relay/Role/DefaultPolicy/Resource'].map((p) => `ArthrStack/Events/${p} AwsSolutions-IAM5[Resource::arn:aws:iam::<AWS::AccountId>:role/arthr-fir-relayEvents/tenant/*]`),
          ...['DeliveryWorker/Role/Resource', 'DeliveryWorker/Role/DefaultPolicy/Resource'].map((p) => `ArthrStack/Events/${p} AwsSolutions-IAM5[Resource::arn:aws:iam::<AWS::AccountId>:role/arthr-fir-deliverWebhooks/tenant/*]`),
          'ArthrStack/Events/DeliverySweeper/Role/Resource AwsSolutions-IAM5[Resource::arn:aws:iam::<AWS::AccountId>:role/arthr-fir-sweepWebhookDeliveries/tenant/*]',
        ].sort(),
      );
      for (const a of acknowledged) expect(a.reason.trim().length, `${a.id} on ${a.path}`).toBeGreaterThanOrEqual(10);
      // The `*` is ListStreams' alone: every other action of the role names its resource.
      const onStar = statementsOf(template, relayRoleId()).filter((s) => asArray(s.Resource).includes('*'));
      expect(onStar.flatMap((s) => asArray(s.Action))).toEqual(['dynamodb:ListStreams']);
      // The worker's every action names its resource.
      expect(statementsOf(template, workerRoleId()).filter((s) => asArray(s.Resource).includes('*'))).toEqual([]);
    });

    it('passes the cdk-nag AwsSolutions pack with no unacknowledged finding', () => {
      expect(unacknowledgedNagFindings(synth.app)).toEqual([]);
    });
  });
});
