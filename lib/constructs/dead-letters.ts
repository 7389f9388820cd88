import { Duration, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * A queue for what a function could not finish, with an alarm on its first message. SQS-managed
 * keys: EventBridge and Lambda can write without a key policy, and what lands here (events,
 * session data, stream pointers) is encrypted at rest all the same. Kept 14 days, the longest
 * SQS allows: time to notice the alarm and redrive.
 */
export function deadLetterQueue(
  scope: Construct,
  id: string,
  opts: { whyNoDeadLetterQueue: string; alarmDescription: string },
): sqs.Queue {
  const queue = new sqs.Queue(scope, id, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  Validations.of(queue.node.defaultChild!).acknowledge({ id: 'AwsSolutions-SQS3', reason: opts.whyNoDeadLetterQueue });
  queue
    .metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: cloudwatch.Stats.MAXIMUM })
    .createAlarm(scope, `${id}Alarm`, {
      alarmDescription: opts.alarmDescription,
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  return queue;
}
