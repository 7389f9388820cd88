import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { webhookRetrySeconds } from '../../functions/config.js';
import { cloudSecretsEnvironment, webhookSecretStatement } from './cloud-secrets.js';
import { SUBSCRIBER_TENANT_TAG } from '../../functions/webhooks/targets.js';
import { sessionTenantPartitions, tenantTableStatement, trustForTenantSessions } from './tenant-role.js';
import { Construct } from 'constructs';
import { OUTBOX_STREAM_FILTER } from '../../functions/events/relay.js';
import { deadLetterQueue } from './dead-letters.js';
import { QueueDestination } from './images.js';
import { ServiceFunction } from './service-function.js';
import { DUE_DELIVERIES_INDEX } from '../../functions/store/schema.js';

export interface EventsProps {
  repoRoot: string;
  namePrefix: string;
  table: ITable;
  /** What the store configuration parses (functions/config.ts), and the log level. */
  environment: Record<string, string>;
  /** The key webhook signing secrets are sealed with (the cloud secrets' key, purpose `webhook-secret`). */
  secretsKey: kms.IKey;
}


/**
 * Events out: the stack's own EventBridge bus, and the outbox relay that fills it. Every change
 * is written with its event item in one transaction (functions/store/outbox.ts); the table's
 * stream (keys only) feeds the relay, filtered to new event items, which reads each item and puts
 * it on the bus in stream order (functions/events/relay.ts). Relying parties' rules, and the
 * webhook deliveries, hang off the bus.
 */
export class Events extends Construct {
  readonly bus: events.EventBus;
  readonly relay: ServiceFunction;
  /** The role the relay acts through for each stream record's tenant. */
  readonly relayTenantRole: iam.Role;
  /** Stream records the relay could not put on the bus within their age limit: their shard and sequence numbers. */
  readonly relayDeadLetters: sqs.Queue;
  readonly relayMapping: lambda.EventSourceMapping;
  /** Webhook deliveries waiting for their attempt: FIFO, a group per webhook and subject. */
  readonly deliveries: sqs.Queue;
  /** Replayed deliveries: the same, on a queue worked apart, so a replay never queues ahead of fresh deliveries. */
  readonly replays: sqs.Queue;
  readonly deliveryDeadLetters: sqs.Queue;
  /**
   * Every later attempt of a delivery (a retry, one released from parking, one the sweeper found
   * lost): a standard queue, each message with its DelaySeconds, worked apart from the FIFO queues.
   */
  readonly retries: sqs.Queue;
  readonly retryDeadLetters: sqs.Queue;
  readonly deliveryWorker: ServiceFunction;
  /** The role the delivery worker acts through for each message's tenant (besides the subscriber delivery role). */
  readonly deliveryWorkerTenantRole: iam.Role;
  /** Queues again the PENDING deliveries whose message was lost, on a schedule. */
  readonly sweeper: ServiceFunction;
  /** The role the sweeper acts through for each due delivery's tenant (its index Scan stays on its own role). */
  readonly sweeperTenantRole: iam.Role;
  readonly sweepSchedule: events.Rule;
  /**
   * The role deliveries to a relying party's own queue or bus are sent as: assumed by the worker
   * for one tenant at a time, tagged `arthr-tenant`, which the relying party's policy checks.
   */
  readonly subscriberRole: iam.Role;

  constructor(scope: Construct, id: string, props: EventsProps) {
    super(scope, id);

    this.bus = new events.EventBus(this, 'Bus', {
      eventBusName: `${props.namePrefix}-events`,
      description: 'The service\'s events (instances\' creation, status and steps; the identity store\'s), relayed from the table\'s outbox.',
    });

    this.relayDeadLetters = deadLetterQueue(this, 'RelayDeadLetters', {
      whyNoDeadLetterQueue: 'This queue is itself the on-failure destination of the outbox relay\'s stream event source mapping.',
      alarmDescription:
        'Events were not relayed to the event bus within 20 hours of their change. The message names the table stream, shard and ' +
        'sequence numbers of the records; the events themselves stay in the table\'s outbox for 30 days (TNT#{tenantId}#EVENTS, ' +
        'sort key EVT#{time}#{id}), to be sent again once the cause is fixed.',
    });

    // --- Webhook deliveries: the relay queues one message per webhook that wants an event on a
    // FIFO queue (a group per webhook and subject); the worker makes its first attempt, and a
    // failed one waits for its retry on the standard retry queue (DelaySeconds), holding its
    // subject in the table, not its FIFO group (functions/webhooks/deliver.ts).
    const attempts = webhookRetrySeconds().length + 1;
    this.deliveryDeadLetters = new sqs.Queue(this, 'DeliveryDeadLetters', {
      fifo: true,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deliveryDeadLetters.node.defaultChild!).acknowledge({ id: 'AwsSolutions-SQS3', reason: 'This queue is itself the dead-letter queue of the webhook delivery queue.' });
    this.deliveryDeadLetters
      .metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: cloudwatch.Stats.MAXIMUM })
      .createAlarm(this, 'DeliveryDeadLettersAlarm', {
        alarmDescription:
          'Webhook deliveries the worker could not even attempt (its own reads or writes failing) past every retry. The ' +
          'deliveries stay PENDING in the table; replay them (POST /api/webhook-manager/webhooks/{id}/replay) once the cause is fixed.',
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    const deliveryQueueProps: sqs.QueueProps = {
      fifo: true,
      // High-throughput FIFO: the throughput limit is per message group (a webhook's subject),
      // not per queue, and deduplication is kept per group, so one busy tenant's deliveries do not
      // take every tenant's share of the queue's 300 messages a second.
      fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Six times the worker's timeout, as Lambda asks of a queue it polls.
      visibilityTimeout: Duration.seconds(180),
      // The longest SQS keeps a message (a first attempt is normally made within seconds; the
      // sweeper queues again what waited past its margin).
      retentionPeriod: Duration.days(14),
      // The worker settles a delivery itself after its last attempt; the redrive is for a worker
      // that cannot record an attempt at all.
      deadLetterQueue: { queue: this.deliveryDeadLetters, maxReceiveCount: attempts + 3 },
    };
    this.deliveries = new sqs.Queue(this, 'Deliveries', deliveryQueueProps);
    // Replays on a queue of their own, with their own (smaller) share of the worker: in one FIFO
    // queue a message's place is its turn, so a replay of hundreds of events would hold back every
    // tenant's next event (and FIFO queues take no per-message DelaySeconds to pace them with).
    this.replays = new sqs.Queue(this, 'Replays', deliveryQueueProps);
    this.retryDeadLetters = deadLetterQueue(this, 'RetryDeadLetters', {
      whyNoDeadLetterQueue: 'This queue is itself the dead-letter queue of the webhook retry queue.',
      alarmDescription:
        'Webhook retries the worker could not even attempt (its own reads or writes failing) five times. The deliveries stay ' +
        'PENDING in the table, and the webhook sweeper queues them again (every five minutes, once 20 minutes overdue).',
    });
    // Standard, not FIFO: a waiting delivery must hold no message group and no place in a FIFO
    // queue's window, and only a standard queue takes a per-message DelaySeconds (up to 15
    // minutes; a longer wait is sent on again when it comes back). Order is kept in the table.
    this.retries = new sqs.Queue(this, 'Retries', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(180),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.retryDeadLetters, maxReceiveCount: 5 },
    });

    const relayName = ServiceFunction.physicalName(props.namePrefix, 'relayEvents');
    this.relay = new ServiceFunction(this, 'Relay', {
      functionName: relayName,
      description: 'Relays new outbox items from the table stream to the event bus, in order.',
      repoRoot: props.repoRoot,
      entry: 'functions/webhooks/on-table-stream.ts',
      memorySize: 256,
      // A batch of 100: 100 reads at once, then ten PutEvents one after another.
      timeout: Duration.seconds(60),
      environment: { ...props.environment, EVENT_BUS_NAME: this.bus.eventBusName, WEBHOOK_QUEUE_URL: this.deliveries.queueUrl },
      policyName: 'relayEvents',
      roleDescription:
        "Relays events: acts through its tenant role for each record's tenant (reads the outbox item, the webhooks, starts each delivery), puts events on the stack's bus, queues deliveries; reads the table stream.",
      statements: [
        new iam.PolicyStatement({ sid: 'PutEvents', actions: ['events:PutEvents'], resources: [this.bus.eventBusArn] }),
        new iam.PolicyStatement({ sid: 'QueueDeliveries', actions: ['sqs:SendMessage'], resources: [this.deliveries.queueArn] }),
        new iam.PolicyStatement({ sid: 'FailedBatches', actions: ['sqs:SendMessage'], resources: [this.relayDeadLetters.queueArn] }),
      ],
    });

    // Each stream record acts for the tenant its key names (functions/webhooks/on-table-stream.ts):
    // only the outbox partitions (`TNT#{tenantId}#EVENTS`, sharded or not: the stream names every
    // item of the table, and the relay has no business reading any other), the webhooks, the
    // deliveries it starts.
    this.relayTenantRole = this.relay.actForTenants("Relays outbox events for one tenant: assumed with the arthr-tenant session tag of the stream record's key", [
        tenantTableStatement('OutboxItems', ['GetItem'], [props.table.tableArn], sessionTenantPartitions(['TNT#*#EVENTS'])),
        tenantTableStatement('TenantWebhooks', ['Query'], [props.table.tableArn], sessionTenantPartitions(['TNT#*#WEBHOOKS'])),
        tenantTableStatement('StartDeliveries', ['PutItem'], [props.table.tableArn], sessionTenantPartitions(['TNT#*#WHDLV#*'])),
      ]);

    // What Lambda's poller needs on the stream: DescribeStream, GetShardIterator and GetRecords on
    // this table's stream, and ListStreams, which IAM authorises on `*` only.
    props.table.grantStreamRead(this.relay.role);
    Validations.of(this.relay.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams (which the Lambda stream poller needs) supports no resource-level permission, so IAM accepts only `*`; ' +
        'it lists stream ARNs, never records. Every other action of this role names its resource.',
    });

    this.relayMapping = new lambda.EventSourceMapping(this, 'Outbox', {
      target: this.relay.function,
      eventSourceArn: props.table.tableStreamArn!,
      // If the mapping is ever replaced, the new one reads the stream's last 24 hours: an event
      // relayed twice is one a subscriber deduplicates by its id, an event skipped is lost.
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: 100,
      // Only new outbox items: the function is not invoked for the rest of the table's writes.
      // The same pattern the local poller applies (functions/events/relay.ts).
      filters: [lambda.FilterCriteria.filter(OUTBOX_STREAM_FILTER as unknown as Record<string, unknown>)],
      // The relay reports the first record it did not relay; Lambda retries from it, in order,
      // until the record is 20 hours old (the stream keeps 24): then its position goes to the
      // queue, and the outbox still holds the event for 30 days.
      reportBatchItemFailures: true,
      maxRecordAge: Duration.hours(20),
      onFailure: new QueueDestination(this.relayDeadLetters),
      // One batch per stream shard at a time: for DynamoDB streams Lambda keeps order only per
      // item with more, and a subject's events are several items of one partition key (one
      // stream shard). A busy tenant is relayed in parallel by its outbox shards instead.
      parallelizationFactor: 1,
    });
    // A relay that keeps failing holds its shard: told within minutes, not after the 20 hours the
    // dead-letter queue waits.
    this.relay.function
      .metric('IteratorAge', { period: Duration.minutes(5), statistic: cloudwatch.Stats.MAXIMUM })
      .createAlarm(this, 'RelayBehindAlarm', {
        alarmDescription:
          'The outbox relay is more than 5 minutes behind the table stream: events (and webhooks) are late. Its log says why ' +
          '(the bus or the delivery queue refusing, throttling); nothing is lost until the record is 20 hours old.',
        threshold: 5 * 60 * 1000,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });

    const stack = Stack.of(this);
    // Named, so its ARN is known before it exists (the worker's grant) and stable for the policies
    // relying parties write (the SubscriberDeliveryRoleArn output). A role's name is unique in the
    // whole account, not per region like the deployment's other names: with the AWS region in it,
    // a second deployment of the same label in another region does not take (or fail on) it.
    const subscriberRoleName = `${props.namePrefix}-${stack.region}-subscriber-delivery`;
    const subscriberRoleArn = stack.formatArn({ service: 'iam', region: '', resource: 'role', resourceName: subscriberRoleName });

    const deliveryWorkerName = ServiceFunction.physicalName(props.namePrefix, 'deliverWebhooks');
    this.deliveryWorker = new ServiceFunction(this, 'DeliveryWorker', {
      functionName: deliveryWorkerName,
      description: 'Makes each webhook delivery attempt: signs the event (Standard Webhooks) and POSTs it through the SSRF guard.',
      repoRoot: props.repoRoot,
      entry: 'functions/webhooks/on-delivery.ts',
      memorySize: 256,
      // One attempt (15 s at most) and its records.
      timeout: Duration.seconds(30),
      environment: {
        ...props.environment,
        WEBHOOK_QUEUE_URL: this.deliveries.queueUrl,
        WEBHOOK_REPLAY_QUEUE_URL: this.replays.queueUrl,
        WEBHOOK_RETRY_QUEUE_URL: this.retries.queueUrl,
        ...cloudSecretsEnvironment(props.secretsKey),
        SUBSCRIBER_ROLE_ARN: subscriberRoleArn,
        SERVICE_ACCOUNT_ID: stack.account,
      },
      policyName: 'deliverWebhooks',
      roleDescription:
        "Delivers webhooks: acts through its tenant role for each message's tenant (reads the delivery, the webhook and the event, claims and records the attempt, " +
        "disables a webhook on 410, keeps the endpoint's health and its subjects' order), unseals its secrets, queues a retry.",
      statements: [
        webhookSecretStatement('unseal', props.secretsKey),
        new iam.PolicyStatement({ sid: 'QueueRetries', actions: ['sqs:SendMessage'], resources: [this.retries.queueArn] }),
        // The delivery role, only with exactly the tenant tag (functions/webhooks/targets.ts).
        new iam.PolicyStatement({
          sid: 'SendAsTenant',
          actions: ['sts:AssumeRole', 'sts:TagSession'],
          resources: [subscriberRoleArn],
          conditions: { 'ForAllValues:StringEquals': { 'aws:TagKeys': [SUBSCRIBER_TENANT_TAG] }, StringLike: { [`aws:RequestTag/${SUBSCRIBER_TENANT_TAG}`]: '?*' } },
        }),
      ],
    });

    // Each message acts for the tenant it names (functions/webhooks/on-delivery.ts), through the
    // worker's tenant role: what an attempt reads and writes, of that tenant only.
    this.deliveryWorkerTenantRole = this.deliveryWorker.actForTenants("Delivers webhooks for one tenant: assumed with the arthr-tenant session tag of the delivery message's tenant", [
        tenantTableStatement('ReadDeliveries', ['GetItem'], [props.table.tableArn], sessionTenantPartitions(['TNT#*#WHDLV#*', 'TNT#*#WEBHOOKS', 'TNT#*#EVENTS'])),
        tenantTableStatement('RecordAttempts', ['UpdateItem'], [props.table.tableArn], sessionTenantPartitions(['TNT#*#WHDLV#*'])),
        // PutItem: a webhook disabled on 410 Gone; UpdateItem: its endpoint's health item (HEALTH#{id}).
        tenantTableStatement('WebhookHealth', ['PutItem', 'UpdateItem'], [props.table.tableArn], sessionTenantPartitions(['TNT#*#WEBHOOKS'])),
        // A subject's line: the delivery holding it for its retry and those parked behind it.
        tenantTableStatement('SubjectOrder', ['Query', 'PutItem', 'UpdateItem', 'DeleteItem'], [props.table.tableArn], sessionTenantPartitions(['TNT#*#WHHOLD#*'])),
      ]);

    // Sends into other accounts only: never the deployment's own queues or bus (its delivery queue,
    // its dead letters), whatever a tenant names. What a relying party's queue or bus accepts is
    // its own policy's decision (docs/events-and-webhooks.md).
    const notOwnAccount = { StringNotEquals: { 'aws:ResourceAccount': stack.account } };
    const subscriberTrust = trustForTenantSessions(this.deliveryWorker.role);
    this.subscriberRole = new iam.Role(this, 'SubscriberDelivery', {
      roleName: subscriberRoleName,
      description: "Sends webhook deliveries to relying parties' own SQS queues and EventBridge buses, assumed per tenant with the arthr-tenant session tag.",
      // The worker's role alone, and only with the one tag relying parties' policies check: a
      // session tagged with anything else (another key, a transitive tag that would outlive a
      // role chain) or with no tenant is refused here, whatever the worker's own policy says.
      assumedBy: subscriberTrust.assumedBy,
      maxSessionDuration: Duration.hours(1),
      inlinePolicies: {
        subscriberDelivery: new iam.PolicyDocument({
          statements: [
            new iam.PolicyStatement({ sid: 'SubscriberQueues', actions: ['sqs:SendMessage'], resources: [`arn:${stack.partition}:sqs:*:*:*`], conditions: notOwnAccount }),
            new iam.PolicyStatement({ sid: 'SubscriberBuses', actions: ['events:PutEvents'], resources: [`arn:${stack.partition}:events:*:*:event-bus/*`], conditions: notOwnAccount }),
            // A queue encrypted with the relying party's own KMS key: SQS asks for a data key as the sender.
            new iam.PolicyStatement({
              sid: 'SubscriberQueueKeys',
              actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
              resources: [`arn:${stack.partition}:kms:*:*:key/*`],
              conditions: { ...notOwnAccount, StringLike: { 'kms:ViaService': 'sqs.*.amazonaws.com' } },
            }),
          ],
        }),
      },
    });
    this.subscriberRole.assumeRolePolicy!.addStatements(subscriberTrust.tagSession);
    for (const resource of [`arn:${stack.partition}:sqs:*:*:*`, `arn:${stack.partition}:events:*:*:event-bus/*`, `arn:${stack.partition}:kms:*:*:key/*`]) {
      Validations.of(this.subscriberRole).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${resource}]`,
        reason:
          "Relying parties' queues, buses and queue keys are in their own accounts and named by each webhook at run time, so they " +
          "cannot be listed; every grant excludes this deployment's account, and each relying party's resource policy admits the role " +
          'only with its own tenant in the arthr-tenant session tag.',
      });
    }
    // One message at a time: an attempt is one POST, and a failed one must hold back its group.
    // At most 20 at once: slow endpoints (up to 15 s each) cannot take the account's concurrency
    // from the API's functions; the rest waits in the queue.
    this.deliveryWorker.function.addEventSource(new SqsEventSource(this.deliveries, { batchSize: 1, reportBatchItemFailures: true, maxConcurrency: 20 }));
    // Replays: a mapping of their own, at most 5 at once, on top of the 20 above rather than out
    // of them, so fresh deliveries keep all of theirs however much is replayed (the replay route
    // limits how much each tenant may queue here: functions/webhooks/webhooks.ts REPLAY_LIMITS).
    this.deliveryWorker.function.addEventSource(new SqsEventSource(this.replays, { batchSize: 1, reportBatchItemFailures: true, maxConcurrency: 5 }));
    // Later attempts: a mapping of their own, at most 10 at once beside the above. A failing
    // endpoint's retries are made here (and, once it counts as failing, only its probe reaches it),
    // never in the fresh deliveries' 20.
    this.deliveryWorker.function.addEventSource(new SqsEventSource(this.retries, { batchSize: 1, reportBatchItemFailures: true, maxConcurrency: 10 }));

    // --- The sweeper: the net under the queues. Every five minutes it scans the due index (GSI3:
    // PENDING deliveries only, keys only, by when each may be taken for lost) and queues again
    // those past due and margin (functions/webhooks/sweep.ts). A run stops before its timeout;
    // what it did not reach is still due for the next. Not retried: the next run does the same.
    const tableArn = props.table.tableArn;
    const sweeperName = ServiceFunction.physicalName(props.namePrefix, 'sweepWebhookDeliveries');
    this.sweeper = new ServiceFunction(this, 'DeliverySweeper', {
      functionName: sweeperName,
      description: 'Queues again the webhook deliveries still PENDING past their due time (a lost queue message), every five minutes.',
      repoRoot: props.repoRoot,
      entry: 'functions/webhooks/sweep-deliveries.ts',
      memorySize: 256,
      timeout: Duration.minutes(4),
      environment: { ...props.environment, WEBHOOK_RETRY_QUEUE_URL: this.retries.queueUrl },
      policyName: 'sweepWebhookDeliveries',
      roleDescription:
        "Sweeps webhook deliveries: scans the due index (keys only), acts through its tenant role for each delivery's tenant (reads and reschedules it, releases a parked one), queues them on the retry queue.",
      statements: [
        // Across tenants, keys only: what is due. Each delivery found is then read and written
        // for its own tenant, through the tenant role.
        new iam.PolicyStatement({ sid: 'DueIndex', actions: ['dynamodb:Scan'], resources: [`${tableArn}/index/${DUE_DELIVERIES_INDEX}`] }),
        new iam.PolicyStatement({ sid: 'QueueRetries', actions: ['sqs:SendMessage'], resources: [this.retries.queueArn] }),
      ],
      retryAttempts: 0,
    });
    this.sweeperTenantRole = this.sweeper.actForTenants("Sweeps webhook deliveries for one tenant: assumed with the arthr-tenant session tag of the due delivery's key", [
        tenantTableStatement('Deliveries', ['GetItem', 'UpdateItem'], [tableArn], sessionTenantPartitions(['TNT#*#WHDLV#*'])),
        tenantTableStatement('SubjectOrder', ['Query', 'UpdateItem'], [tableArn], sessionTenantPartitions(['TNT#*#WHHOLD#*'])),
      ]);
    this.sweepSchedule = new events.Rule(this, 'DeliverySweepSchedule', {
      description: 'Every five minutes: the webhook sweeper queues again the deliveries whose queue message was lost.',
      schedule: events.Schedule.rate(Duration.minutes(5)),
      targets: [new eventTargets.LambdaFunction(this.sweeper.function, { retryAttempts: 0 })],
    });
  }
}
