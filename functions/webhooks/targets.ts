/**
 * A relying party's own SQS queue or EventBridge bus as a webhook's target, in its own AWS
 * account: the event goes there instead of to a URL, with the same order, retries and log.
 *
 * Why the delivery role and its tag (confused deputy): every tenant's deliveries leave from the
 * same service, so a queue that simply trusted the service's role would take messages from any
 * tenant that names it. The worker sends as the delivery role, assumed for one tenant at a time
 * with the session tag `arthr-tenant = {tenantId}`; the relying party's queue or bus policy allows
 * that role only with its own tenant in `aws:PrincipalTag/arthr-tenant`. The role may not send
 * into the deployment's own account at all (its own queues and bus).
 *
 * Why the service's own queues and bus are refused by name as well as by account: a delivery put
 * on the service's own delivery queue is read back by the worker as a delivery (a loop, and an
 * error logged for every message), and on the local runtime there is no account to tell them
 * apart (every queue of the SQS stand-in is in one account). Every name the service gives its own
 * resources starts with a deployment's prefix, so that prefix is refused everywhere.
 */
import { deploymentPrefix, getStoreConfig, REGIONS } from '../config.js';
import type { EventEnvelope } from '../shared/events.js';
import { TENANT_SESSION_TAG } from '../shared/tenant-scope.js';
import { putEventsEntry } from '../events/bus.js';

/** The session tag the relying party's resource policy checks (`aws:PrincipalTag/arthr-tenant`). */
export const SUBSCRIBER_TENANT_TAG = TENANT_SESSION_TAG;

export type AwsTarget = { type: 'sqs'; queueArn: string } | { type: 'eventbridge'; eventBusArn: string };

const SQS_ARN = /^arn:(aws|aws-cn|aws-us-gov):sqs:([a-z]{2}(?:-[a-z]+)+-\d):(\d{12}):([A-Za-z0-9_-]{1,80}?(\.fifo)?)$/;
const BUS_ARN = /^arn:(aws|aws-cn|aws-us-gov):events:([a-z]{2}(?:-[a-z]+)+-\d):(\d{12}):event-bus\/([A-Za-z0-9._\-/]{1,256})$/;

/** The target's account, region and (for a queue) its name; undefined for an ARN of another shape. */
export function parseTarget(t: AwsTarget): { partition: string; region: string; account: string; name: string; fifo: boolean } | undefined {
  const m = t.type === 'sqs' ? SQS_ARN.exec(t.queueArn) : BUS_ARN.exec(t.eventBusArn);
  if (!m) return undefined;
  return { partition: m[1]!, region: m[2]!, account: m[3]!, name: m[4]!, fifo: t.type === 'sqs' && m[4]!.endsWith('.fifo') };
}

/**
 * What the names of the service's own queues and buses start with: a deployment's prefix
 * (`arthr-{region}-`, functions/config.ts), which the stack gives every name it chooses (the bus
 * `arthr-{region}-events`) and CloudFormation puts first in those it generates (the delivery
 * queues and their dead letters: `arthr-{region}-Events...`), as the local runtime names its
 * queues. Every region's: the deployments of fir, gum and oak may share an account.
 */
export const OWN_NAME_PREFIXES: readonly string[] = REGIONS.map((r) => `${deploymentPrefix(r)}-`);

/** Why a target is refused, or undefined when it may be used. */
export function targetRefusal(t: AwsTarget): string | undefined {
  const parsed = parseTarget(t);
  if (!parsed) return t.type === 'sqs' ? 'queueArn is not an SQS queue ARN' : 'eventBusArn is not an EventBridge event bus ARN';
  const { SERVICE_ACCOUNT_ID, SQS_ENDPOINT } = getStoreConfig();
  // The deployment's own queues and bus (its delivery queue, its dead letters) are never a target.
  if (SERVICE_ACCOUNT_ID && parsed.account === SERVICE_ACCOUNT_ID) return "the target is in the service's own AWS account";
  // The same by name, in any account (and locally, where every queue is in one account).
  const own = OWN_NAME_PREFIXES.find((p) => parsed.name.startsWith(p));
  if (own) return `the target is named as the service's own queues and buses are (${own}...)`;
  // On one machine there is an SQS stand-in but no EventBridge to send to.
  if (SQS_ENDPOINT && t.type === 'eventbridge') return 'EventBridge targets need AWS: the local runtime has no event bus to send to';
  return undefined;
}

/** The queue's URL on AWS, from its ARN (locally the SQS stand-in is asked: its URLs have a shape of their own). */
export function queueUrlOf(queueArn: string): string {
  const p = parseTarget({ type: 'sqs', queueArn })!;
  return `https://sqs.${p.region}.amazonaws.com/${p.account}/${p.name}`;
}

type Credentials = { accessKeyId: string; secretAccessKey: string; sessionToken?: string };

export interface TargetSender {
  send(target: AwsTarget, event: EventEnvelope, attempt: { timestamp: string; replay?: string | undefined }): Promise<void>;
}

/**
 * Sends as the delivery role assumed for the event's tenant (on AWS: STS AssumeRole with the
 * tenant's session tag, kept per tenant for its 15 minutes), or with the local credentials
 * against the SQS stand-in.
 */
export function awsTargetSender(assume: (roleArn: string, tenantId: string) => Promise<Credentials>): TargetSender {
  const credentials = async (tenantId: string): Promise<Credentials> => {
    const { SUBSCRIBER_ROLE_ARN, SQS_ENDPOINT } = getStoreConfig();
    if (SQS_ENDPOINT) return { accessKeyId: 'local', secretAccessKey: 'local' };
    if (!SUBSCRIBER_ROLE_ARN) throw new Error('SUBSCRIBER_ROLE_ARN is not configured for this function');
    return assume(SUBSCRIBER_ROLE_ARN, tenantId);
  };
  return {
    async send(target, event, attempt) {
      const parsed = parseTarget(target)!;
      const creds = await credentials(event.tenantId);
      const body = JSON.stringify(event);
      if (target.type === 'sqs') {
        const { SQSClient, SendMessageCommand, GetQueueUrlCommand } = await import('@aws-sdk/client-sqs');
        const local = getStoreConfig().SQS_ENDPOINT;
        const client = new SQSClient({ region: parsed.region, credentials: creds, ...(local ? { endpoint: local } : {}) });
        try {
          const queueUrl = local
            ? (await client.send(new GetQueueUrlCommand({ QueueName: parsed.name, QueueOwnerAWSAccountId: parsed.account }))).QueueUrl!
            : queueUrlOf(target.queueArn);
          await client.send(
            new SendMessageCommand({
              QueueUrl: queueUrl,
              MessageBody: body,
              MessageAttributes: {
                'webhook-id': { DataType: 'String', StringValue: event.id },
                'webhook-timestamp': { DataType: 'String', StringValue: String(Math.floor(Date.parse(attempt.timestamp) / 1000)) },
                'event-type': { DataType: 'String', StringValue: event.type },
              },
              // A FIFO queue keeps a subject's order and drops a copy within five minutes.
              ...(parsed.fifo ? { MessageGroupId: event.subject.id.slice(0, 128), MessageDeduplicationId: `${event.id}${attempt.replay ? `-${attempt.replay}` : ''}`.slice(0, 128) } : {}),
            }),
          );
        } finally {
          client.destroy();
        }
        return;
      }
      const { EventBridgeClient, PutEventsCommand } = await import('@aws-sdk/client-eventbridge');
      const client = new EventBridgeClient({ region: parsed.region, credentials: creds });
      try {
        const out = await client.send(
          // The entry the service's own bus gets, on the relying party's bus.
          new PutEventsCommand({ Entries: [{ ...putEventsEntry(event), EventBusName: target.eventBusArn }] }),
        );
        if (out.FailedEntryCount) throw Object.assign(new Error(`The bus refused the event: ${out.Entries?.[0]?.ErrorCode}`), { name: out.Entries?.[0]?.ErrorCode ?? 'PutEventsFailed' });
      } finally {
        client.destroy();
      }
    },
  };
}
