import { Duration, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { OUTBOX_STREAM_FILTER } from '../../functions/events/relay.js';
import { deadLetterQueue } from './dead-letters.js';
import { QueueDestination } from './images.js';
import { ServiceFunction } from './service-function.js';

export interface EventsProps {
  repoRoot: string;
  namePrefix: string;
  table: ITable;
  /** What the store configuration parses (functions/config.ts), and the log level. */
  environment: Record<string, string>;
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
  /** Stream records the relay could not put on the bus within their age limit: their shard and sequence numbers. */
  readonly relayDeadLetters: sqs.Queue;
  readonly relayMapping: lambda.EventSourceMapping;

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

    this.relay = new ServiceFunction(this, 'Relay', {
      functionName: ServiceFunction.physicalName(props.namePrefix, 'relayEvents'),
      description: 'Relays new outbox items from the table stream to the event bus, in order.',
      repoRoot: props.repoRoot,
      entry: 'functions/webhooks/on-table-stream.ts',
      memorySize: 256,
      // A batch of 100: 100 reads at once, then ten PutEvents one after another.
      timeout: Duration.seconds(60),
      environment: { ...props.environment, EVENT_BUS_NAME: this.bus.eventBusName },
      policyName: 'relayEvents',
      roleDescription: 'Relays events: reads outbox items (only those), puts them on the stack\'s bus, reads the table stream.',
      statements: [
        new iam.PolicyStatement({
          sid: 'OutboxItems',
          actions: ['dynamodb:GetItem'],
          resources: [props.table.tableArn],
          // Only the outbox partitions (`TNT#{tenantId}#EVENTS`): the stream names every item of
          // the table, and the relay has no business reading any other.
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['TNT#*#EVENTS'] } },
        }),
        new iam.PolicyStatement({ sid: 'PutEvents', actions: ['events:PutEvents'], resources: [this.bus.eventBusArn] }),
        new iam.PolicyStatement({ sid: 'FailedBatches', actions: ['sqs:SendMessage'], resources: [this.relayDeadLetters.queueArn] }),
      ],
    });

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
      // One batch per shard at a time: order within a tenant's events is kept.
      parallelizationFactor: 1,
    });
  }
}
