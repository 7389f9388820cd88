import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { Webhook } from 'standardwebhooks';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkOutboundUrl, OutboundRefused, type GuardedFetch, type OutboundResponse } from '../../functions/shared/outbound.js';
import { instanceEvents, webhookTestEvent } from '../../functions/events/catalogue.js';
import { eventIdTime, newEventId, type EventEnvelope } from '../../functions/shared/events.js';
import { resetConfigForTests } from '../../functions/config.js';
import { deliver, fanOut, MAX_REPLAY, replay, retryAfterSeconds, type DeliverDeps } from '../../functions/webhooks/deliver.js';
import { handleDeliveries } from '../../functions/webhooks/on-delivery.js';
import { wants } from '../../functions/webhooks/webhooks.js';
import type { DeliveryAttempt, DeliveryMessage, DeliveryRecord, DeliveryStatus, ReplayBudget, WebhookRecord } from '../../functions/webhooks/model.js';
import { replayBudget } from '../../functions/store/rate-limits.js';
import { toErrorResponse, WebhookReplayLimitedError } from '../../functions/errors.js';
import { deliveryQueue } from '../../functions/adapters/delivery-queue.js';
import { awsTargetSender, queueUrlOf, targetRefusal } from '../../functions/webhooks/targets.js';
import { subscriberSessions } from '../../functions/webhooks/deps.js';

const now = new Date('2026-05-01T12:00:00.000Z');
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const OLD = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const instance = { tenantId: 'acme', id: 'pi-1', processDefnId: 'd1', processDefnName: 'kyc', processDefnVersion: 1 };

function hook(over: Partial<WebhookRecord> = {}): WebhookRecord {
  return {
    tenantId: 'acme',
    id: 'w1',
    url: 'https://hooks.example.com/in',
    description: '',
    eventTypes: ['*'],
    processDefnNames: [],
    enabled: true,
    // "Sealed" by the fake sealer below: the plain secret.
    secrets: [{ sealed: SECRET, createdAt: now.toISOString() }],
    createdDtm: now.toISOString(),
    createdBy: 'apikey:k',
    updatedDtm: now.toISOString(),
    ...over,
  };
}

/** Deliveries, a webhook and events in memory, a fetch that answers as told, and what was sent. */
function harness(opts: { webhook?: WebhookRecord | undefined; answer?: (n: number) => Partial<OutboundResponse> | Error } = {}) {
  const event = instanceEvents.created(instance, now);
  const sent: { url: string; headers: Record<string, string>; body: string }[] = [];
  const sentToTargets: { target: unknown; event: EventEnvelope }[] = [];
  const log: { status: DeliveryStatus; attempt?: DeliveryAttempt; next?: string }[] = [];
  let webhook: WebhookRecord | undefined = 'webhook' in opts ? opts.webhook : hook();
  const delivery: DeliveryRecord = {
    tenantId: 'acme', webhookId: 'w1', eventId: event.id, eventType: event.type, eventTimestamp: event.timestamp, subjectId: 'pi-1',
    status: 'PENDING', attempts: [], createdAt: now.toISOString(), updatedAt: now.toISOString(), expiresAt: 0,
  };
  const fetch: GuardedFetch = async (url, init) => {
    sent.push({ url, headers: init.headers!, body: String(init.body) });
    const a = (opts.answer ?? (() => ({ status: 200 })))(sent.length - 1);
    if (a instanceof Error) throw a;
    return { status: 200, statusText: '', headers: {}, body: Buffer.alloc(0), url, redirected: false, ...a };
  };
  const retried: { message: DeliveryMessage; delay: number }[] = [];
  const d: DeliverDeps = {
    webhooks: {
      get: async () => webhook,
      update: async (next) => ((webhook = next), true),
    },
    deliveries: {
      get: async () => delivery,
      record: async (_d, attempt, status, next) => {
        delivery.attempts.push(attempt);
        delivery.status = status;
        if (next) delivery.nextAttemptAt = next;
        else delete delivery.nextAttemptAt;
        log.push({ status, attempt, ...(next ? { next } : {}) });
      },
      settle: async (_d, status) => {
        delivery.status = status;
        log.push({ status });
      },
      claim: async () => true,
      park: async () => undefined,
    },
    holds: { first: async () => undefined, last: async () => undefined, put: async () => undefined, remove: async () => undefined, unpark: async () => false },
    health: { get: async () => undefined, failed: async () => 1, succeeded: async () => undefined, takeProbe: async () => true },
    queue: { retry: async (message, delay) => void retried.push({ message, delay }) },
    sweepMarginSeconds: 1200,
    outbox: { getEvent: async (_t, _ts, id) => (id === event.id ? event : undefined) },
    sealer: { unseal: async (sealed) => sealed },
    fetch,
    targets: { send: async (target, e) => void sentToTargets.push({ target, event: e }) },
    guard: { allowLoopback: false },
    retrySeconds: [5, 300, 1800],
    random: () => 0.5,
  };
  const message: DeliveryMessage = { tenantId: 'acme', webhookId: 'w1', eventId: event.id, eventTimestamp: event.timestamp, subjectId: 'pi-1' };
  return { d, event, sent, sentToTargets, log, delivery, message, retried, webhook: () => webhook };
}

beforeAll(() => {
  process.env.TABLE_NAME = 'unit';
  process.env.WEBHOOK_QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/arthr-fir-webhook-deliveries.fifo';
  process.env.WEBHOOK_REPLAY_QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/arthr-fir-webhook-replays.fifo';
  process.env.WEBHOOK_RETRY_QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/arthr-fir-webhook-retries';
  resetConfigForTests();
});

describe('deliver', () => {
  it('posts the event as kept, signed as Standard Webhooks, and records the delivery', async () => {
    const h = harness();
    expect(await deliver(h.d, h.message, now)).toEqual({ done: true, status: 'DELIVERED' });
    const [req] = h.sent;
    expect(req!.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': h.event.id, 'webhook-timestamp': String(now.getTime() / 1000) });
    expect(JSON.parse(req!.body)).toEqual(h.event);
    // The library's own signature of `{id}.{timestamp}.{body}` (the integration suite verifies them as a receiver does).
    expect(req!.headers['webhook-signature']).toBe(new Webhook(SECRET).sign(h.event.id, now, req!.body));
    expect(h.log).toEqual([{ status: 'DELIVERED', attempt: { at: now.toISOString(), status: 200, latencyMs: expect.any(Number) } }]);
  });

  it('signs with both secrets during a rotation, and drops a replaced one once it expires', async () => {
    const during = harness({ webhook: hook({ secrets: [{ sealed: SECRET, createdAt: now.toISOString() }, { sealed: OLD, createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-05-02T00:00:00.000Z' }] }) });
    await deliver(during.d, during.message, now);
    const body = during.sent[0]!.body;
    expect(during.sent[0]!.headers['webhook-signature']).toBe(`${new Webhook(SECRET).sign(during.event.id, now, body)} ${new Webhook(OLD).sign(during.event.id, now, body)}`);
    const after = harness({ webhook: hook({ secrets: [{ sealed: SECRET, createdAt: now.toISOString() }, { sealed: OLD, createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-05-01T11:59:59.000Z' }] }) });
    await deliver(after.d, after.message, now);
    expect(after.sent[0]!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
  });

  it('retries a failure on the schedule with jitter, waits as long as Retry-After asks, and gives up after the last attempt', async () => {
    const h = harness({ answer: (n) => (n === 1 ? { status: 429, headers: { 'retry-after': '600' } } : { status: 500 }) });
    // Each retry is due at its time: the clock moves on to it.
    let t = now;
    const at = (seconds: number) => (t = new Date(t.getTime() + seconds * 1000));
    expect(await deliver(h.d, h.message, t)).toEqual({ done: false, retryInSeconds: 6 }); // 5 s, +10% (half the 20% jitter)
    expect(await deliver(h.d, h.retried.at(-1)!.message, at(6))).toEqual({ done: false, retryInSeconds: 600 }); // 300 s asked for 600
    expect(await deliver(h.d, h.retried.at(-1)!.message, at(600))).toEqual({ done: false, retryInSeconds: 1980 });
    expect(await deliver(h.d, h.retried.at(-1)!.message, at(900))).toEqual({ done: false, retryInSeconds: 1080 }); // early: sent on
    expect(await deliver(h.d, h.retried.at(-1)!.message, at(1080))).toEqual({ done: true, status: 'FAILED' });
    expect(h.log.map((l) => [l.status, l.attempt?.status])).toEqual([['PENDING', 500], ['PENDING', 429], ['PENDING', 500], ['FAILED', 500]]);
    expect(h.log[0]!.next).toBe(new Date(now.getTime() + 6000).toISOString());
    // Each retry is a new message on the retry lane, for the attempt it may make, delayed at most SQS's 15 minutes.
    expect(h.retried.map((r) => [r.message.lane, r.message.attempt, r.delay])).toEqual([['retry', 1, 6], ['retry', 2, 600], ['retry', 3, 900], ['retry', 3, 900]]);
    // Settled: SQS delivering the message again sends nothing.
    expect(await deliver(h.d, h.message, t)).toEqual({ done: true, status: 'FAILED' });
    expect(h.sent).toHaveLength(4);
  });

  it('counts a replayed delivery\'s retries from the replay, not from the attempts before it', async () => {
    const h = harness({ answer: () => ({ status: 500 }) });
    h.delivery.attempts.push(...Array.from({ length: 4 }, () => ({ at: now.toISOString(), status: 500, latencyMs: 1 })));
    h.delivery.attemptsBefore = 4;
    expect(await deliver(h.d, h.message, now)).toEqual({ done: false, retryInSeconds: 6 });
  });

  it('takes a redirect as a failure, never following it', async () => {
    const h = harness({ answer: () => ({ status: 302, headers: { location: 'http://169.254.169.254/' } }) });
    expect(await deliver(h.d, h.message, now)).toMatchObject({ done: false });
    expect(h.sent).toHaveLength(1);
  });

  it('retries an address the guard refuses at delivery time (DNS moved to a private one), saying which rule', async () => {
    const h = harness({ answer: () => new OutboundRefused('private', 'https://hooks.example.com/in') });
    expect(await deliver(h.d, h.message, now)).toMatchObject({ done: false });
    expect(h.log[0]!.attempt).toMatchObject({ error: 'refused: private' });
    expect(h.log[0]!.attempt).not.toHaveProperty('status');
  });

  it('disables the webhook when its endpoint answers 410 Gone', async () => {
    const h = harness({ answer: () => ({ status: 410 }) });
    expect(await deliver(h.d, h.message, now)).toEqual({ done: true, status: 'FAILED' });
    expect(h.webhook()).toMatchObject({ enabled: false, disabledReason: 'ENDPOINT_GONE' });
  });

  it('sends nothing to a webhook that is disabled, deleted, or no longer wants the event', async () => {
    for (const webhook of [hook({ enabled: false, disabledReason: 'DISABLED' }), undefined, hook({ eventTypes: ['identity-store.user-added'] })]) {
      const h = harness({ webhook });
      expect(await deliver(h.d, h.message, now)).toEqual({ done: true, status: 'DISCARDED' });
      expect(h.sent).toEqual([]);
    }
  });
});

describe('deliver to a queue or bus target', () => {
  it('sends the event to the target instead of a URL, and retries what AWS refuses', async () => {
    const ok = harness({ webhook: hook({ url: undefined, target: { type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:111122223333:rp.fifo' } }) });
    expect(await deliver(ok.d, ok.message, now)).toEqual({ done: true, status: 'DELIVERED' });
    expect(ok.sent).toEqual([]);
    expect(ok.sentToTargets).toEqual([{ target: { type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:111122223333:rp.fifo' }, event: ok.event }]);
    const denied = harness({ webhook: hook({ url: undefined, target: { type: 'eventbridge', eventBusArn: 'arn:aws:events:eu-west-1:111122223333:event-bus/rp' } }) });
    denied.d.targets = { send: async () => Promise.reject(Object.assign(new Error('not allowed'), { name: 'AccessDeniedException' })) };
    expect(await deliver(denied.d, denied.message, now)).toMatchObject({ done: false });
    expect(denied.log[0]!.attempt).toMatchObject({ error: 'target: AccessDeniedException' });
  });
});

describe('deliver to a target the rules refuse', () => {
  it("rejects when a stored webhook's target is the service's own delivery queue: nothing sent, FAILED without retries", async () => {
    const own = harness({ webhook: hook({ url: undefined, target: { type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:000000000000:arthr-fir-webhook-deliveries.fifo' } }) });
    expect(await deliver(own.d, own.message, now)).toEqual({ done: true, status: 'FAILED' });
    expect(own.sentToTargets).toEqual([]);
    expect(own.log[0]!.attempt!.error).toMatch(/^refused: .*service's own/);
  });
});

describe('targetRefusal', () => {
  it("rejects when the target is in the service's own account or named with a deployment's prefix, on AWS", () => {
    process.env.SERVICE_ACCOUNT_ID = '123456789012';
    resetConfigForTests();
    try {
      // The deployment's own account, whatever the name.
      expect(targetRefusal({ type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:123456789012:rp-events' })).toMatch(/own AWS account/);
      expect(targetRefusal({ type: 'eventbridge', eventBusArn: 'arn:aws:events:eu-west-1:123456789012:event-bus/default' })).toMatch(/own AWS account/);
      // The service's own names in any account: its delivery queue (CloudFormation names it after
      // the stack), its dead letters, its bus, and a sibling region's deployment.
      for (const target of [
        { type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:111122223333:arthr-fir-EventsDeliveriesA1B2C3-Q1w2E3r4.fifo' },
        { type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:111122223333:arthr-fir-EventsDeliveryDeadLetters9F8E-Z9y8X7.fifo' },
        { type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:111122223333:arthr-oak-webhook-replays.fifo' },
        { type: 'eventbridge', eventBusArn: 'arn:aws:events:eu-west-1:111122223333:event-bus/arthr-gum-events' },
      ] as const) {
        expect(targetRefusal(target), JSON.stringify(target)).toMatch(/named as the service's own queues and buses are \(arthr-(fir|gum|oak)-\.\.\.\)/);
      }
      // A relying party's own queue that merely mentions the service is its to name.
      expect(targetRefusal({ type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:111122223333:arthr-events' })).toBeUndefined();
      expect(targetRefusal({ type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:111122223333:rp-arthr-fir-copy' })).toBeUndefined();
    } finally {
      delete process.env.SERVICE_ACCOUNT_ID;
      resetConfigForTests();
    }
  });


  it("refuses an ARN of another shape, the deployment's own account, and a bus locally", () => {
    process.env.SERVICE_ACCOUNT_ID = '123456789012';
    resetConfigForTests();
    try {
      expect(targetRefusal({ type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:111122223333:rp-events' })).toBeUndefined();
      expect(targetRefusal({ type: 'eventbridge', eventBusArn: 'arn:aws:events:eu-west-1:111122223333:event-bus/rp' })).toBeUndefined();
      expect(targetRefusal({ type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:123456789012:arthr-fir-deliveries.fifo' })).toMatch(/own AWS account/);
      expect(targetRefusal({ type: 'sqs', queueArn: 'https://sqs.eu-west-1.amazonaws.com/111122223333/q' })).toMatch(/not an SQS queue ARN/);
      expect(targetRefusal({ type: 'eventbridge', eventBusArn: 'arn:aws:sqs:eu-west-1:111122223333:q' })).toMatch(/not an EventBridge/);
      process.env.SQS_ENDPOINT = 'http://127.0.0.1:9324';
      resetConfigForTests();
      expect(targetRefusal({ type: 'eventbridge', eventBusArn: 'arn:aws:events:eu-west-1:111122223333:event-bus/rp' })).toMatch(/local runtime/);
      expect(queueUrlOf('arn:aws-cn:sqs:cn-north-1:111122223333:rp.fifo')).toBe('https://sqs.cn-north-1.amazonaws.com/111122223333/rp.fifo');
    } finally {
      delete process.env.SERVICE_ACCOUNT_ID;
      delete process.env.SQS_ENDPOINT;
      resetConfigForTests();
    }
  });
});

describe('awsTargetSender on AWS', () => {
  const role = 'arn:aws:iam::123456789012:role/arthr-fir-subscriber-delivery';
  beforeEach(() => {
    sts.reset();
    sqs.reset();
    eventBridge.reset();
    process.env.SUBSCRIBER_ROLE_ARN = role;
    resetConfigForTests();
    sts.on(AssumeRoleCommand).resolves({ Credentials: { AccessKeyId: 'AKIA', SecretAccessKey: 'secret', SessionToken: 'token', Expiration: new Date(Date.now() + 900_000) } });
  });

  it("sends as the delivery role assumed with the event's tenant tag, once per tenant while its credentials last", async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm' });
    const sender = awsTargetSender(subscriberSessions());
    const event = instanceEvents.created(instance, now);
    await sender.send({ type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:111122223333:rp.fifo' }, event, { timestamp: now.toISOString() });
    await sender.send({ type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:111122223333:rp.fifo' }, event, { timestamp: now.toISOString(), replay: '7' });
    await sender.send({ type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:111122223333:rp' }, { ...event, tenantId: 'globex' }, { timestamp: now.toISOString() });
    const assumed = sts.commandCalls(AssumeRoleCommand).map((c) => c.args[0].input);
    expect(assumed).toEqual([
      { RoleArn: role, RoleSessionName: 'arthr-acme', DurationSeconds: 900, Tags: [{ Key: 'arthr-tenant', Value: 'acme' }] },
      { RoleArn: role, RoleSessionName: 'arthr-globex', DurationSeconds: 900, Tags: [{ Key: 'arthr-tenant', Value: 'globex' }] },
    ]);
    const sent = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input);
    expect(sent[0]).toMatchObject({
      QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/111122223333/rp.fifo',
      MessageBody: JSON.stringify(event),
      MessageGroupId: 'pi-1',
      MessageDeduplicationId: event.id,
      MessageAttributes: { 'webhook-id': { DataType: 'String', StringValue: event.id }, 'event-type': { DataType: 'String', StringValue: 'process-instance.created' } },
    });
    expect(sent[1]!.MessageDeduplicationId).toBe(`${event.id}-7`);
    // A standard queue: no group, no deduplication id.
    expect(sent[2]).not.toHaveProperty('MessageGroupId');
  });

  it('throws when STS throttles the role assumption, so the attempt is retried, and asks again next time', async () => {
    sts.reset();
    sts.on(AssumeRoleCommand)
      .rejectsOnce(Object.assign(new Error('Rate exceeded'), { name: 'Throttling', $metadata: { httpStatusCode: 400 } }))
      .resolves({ Credentials: { AccessKeyId: 'AKIA', SecretAccessKey: 'secret', SessionToken: 'token', Expiration: new Date(Date.now() + 900_000) } });
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm' });
    const sender = awsTargetSender(subscriberSessions());
    const event = instanceEvents.created(instance, now);
    const target = { type: 'sqs' as const, queueArn: 'arn:aws:sqs:eu-west-1:111122223333:rp' };
    await expect(sender.send(target, event, { timestamp: now.toISOString() })).rejects.toMatchObject({ name: 'Throttling' });
    expect(sqs.commandCalls(SendMessageCommand)).toEqual([]);
    await sender.send(target, event, { timestamp: now.toISOString() });
    expect(sts.commandCalls(AssumeRoleCommand)).toHaveLength(2);
  });

  it('throws what SQS refuses (a queue whose policy does not admit the tenant), so the attempt is retried', async () => {
    sqs.on(SendMessageCommand).rejects(Object.assign(new Error('Access to the resource is denied.'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }));
    await expect(awsTargetSender(subscriberSessions()).send({ type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:111122223333:rp' }, instanceEvents.created(instance, now), { timestamp: now.toISOString() })).rejects.toMatchObject({ name: 'AccessDenied' });
  });

  it('puts the event on the relying party\u2019s bus, and throws what the bus refused', async () => {
    eventBridge.on(PutEventsCommand).resolvesOnce({ FailedEntryCount: 0, Entries: [{ EventId: '1' }] }).resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'AccessDeniedException' }] });
    const sender = awsTargetSender(subscriberSessions());
    const event = instanceEvents.created(instance, now);
    const bus = 'arn:aws:events:eu-west-1:111122223333:event-bus/rp';
    await sender.send({ type: 'eventbridge', eventBusArn: bus }, event, { timestamp: now.toISOString() });
    expect(eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries).toEqual([
      { EventBusName: bus, Source: 'arthr.events', DetailType: 'process-instance.created', Detail: JSON.stringify(event), Time: new Date(event.timestamp) },
    ]);
    await expect(sender.send({ type: 'eventbridge', eventBusArn: bus }, event, { timestamp: now.toISOString() })).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });
});

describe('replay', () => {
  it('says when a range holds more events than one replay reads, and where the next should start', async () => {
    const events = Array.from({ length: MAX_REPLAY }, (_, i) => instanceEvents.created({ ...instance, id: `pi-${i}` }, new Date(now.getTime() + i)));
    const queued: DeliveryMessage[] = [];
    const restarted: DeliveryRecord[] = [];
    const d = {
      webhooks: { get: async () => hook({ processDefnNames: ['kyc'] }) },
      outbox: { getEvent: async () => events[0], range: async () => events },
      deliveries: { restart: async (r: DeliveryRecord) => (restarted.push(r), 2) },
      queue: { sendReplays: async (m: readonly DeliveryMessage[]) => void queued.push(...m) },
      budget: { take: async () => ({ ok: true as const }) },
    };
    const out = await replay(d, 'acme', 'w1', { from: now.toISOString(), to: new Date(now.getTime() + 86_400_000).toISOString() }, now);
    expect(out).toEqual({ queued: MAX_REPLAY, more: true, last: events.at(-1)!.timestamp });
    expect(queued.map((m) => m.eventId)).toEqual(events.map((e) => e.id));
    // On the replay lane, apart from fresh deliveries.
    expect(queued.every((m) => m.lane === 'replay')).toBe(true);
    // Each may make the attempt after those its delivery had.
    expect(queued.every((m) => m.attempt === 2)).toBe(true);
    expect(restarted.every((r) => r.status === 'PENDING')).toBe(true);
    expect(await replay(d, 'acme', 'w1', { eventId: events[0]!.id }, now)).toEqual({ queued: 1, more: false });
  });

  it('rejects when the replay is over its limits: 429 WEBHOOK_REPLAY_LIMITED with Retry-After, and nothing restarted or queued', async () => {
    const events = Array.from({ length: 3 }, (_, i) => instanceEvents.created({ ...instance, id: `pi-${i}` }, new Date(now.getTime() + i)));
    const queued: DeliveryMessage[] = [];
    const restarted: DeliveryRecord[] = [];
    const asked: [string, string, number][] = [];
    let answer: Awaited<ReturnType<ReplayBudget['take']>> = { ok: false, over: 'tenant', retryAfterSeconds: 1200 };
    const d = {
      webhooks: { get: async () => hook() },
      outbox: { getEvent: async () => events[0], range: async () => events },
      deliveries: { restart: async (r: DeliveryRecord) => (restarted.push(r), 0) },
      queue: { sendReplays: async (m: readonly DeliveryMessage[]) => void queued.push(...m) },
      budget: { take: async (t: string, w: string, n: number) => (asked.push([t, w, n]), answer) },
    };
    const range = { from: now.toISOString(), to: new Date(now.getTime() + 60_000).toISOString() };
    const err = await replay(d, 'acme', 'w1', range, now).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WebhookReplayLimitedError);
    expect(toErrorResponse(err)).toMatchObject({ statusCode: 429, body: { code: 'WEBHOOK_REPLAY_LIMITED', message: expect.stringMatching(/5000 replayed deliveries/) }, headers: { 'Retry-After': '1200' } });
    // Counted with the deliveries it would queue (those the webhook takes), before any is queued.
    expect(asked).toEqual([['acme', 'w1', 3]]);
    expect([queued, restarted]).toEqual([[], []]);
    answer = { ok: false, over: 'webhook', retryAfterSeconds: 59 };
    expect(toErrorResponse(await replay(d, 'acme', 'w1', { eventId: events[0]!.id }, now).catch((e: unknown) => e))).toMatchObject({
      statusCode: 429,
      body: { message: expect.stringMatching(/replayed 20 times/) },
      headers: { 'Retry-After': '59' },
    });
  });
});

describe('replayBudget', () => {
  /** DynamoDB's conditional write on one window item, in memory: ADD both counts only while the condition holds. */
  function fakeWindows() {
    const items = new Map<string, Record<string, number>>();
    ddb.on(UpdateCommand).callsFake((input: UpdateCommandInput) => {
      const key = `${input.Key!.PK}|${input.Key!.SK}`;
      const item = items.get(key) ?? {};
      const calls = input.ExpressionAttributeNames!['#calls']!;
      const v = input.ExpressionAttributeValues as Record<string, number>;
      const within = (item[calls] === undefined || item[calls] < v[':maxCalls']!) && (item.deliveries === undefined || item.deliveries <= v[':room']!);
      if (!within) throw Object.assign(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }), { Item: marshall(item) });
      items.set(key, { ...item, [calls]: (item[calls] ?? 0) + 1, deliveries: (item.deliveries ?? 0) + v[':n']! });
      return {};
    });
    return items;
  }
  const limits = { windowSeconds: 3600, callsPerWebhook: 3, deliveriesPerTenant: 100 };
  const at = new Date('2026-05-01T12:40:00.000Z');
  beforeEach(() => ddb.reset());

  it('counts a replay in one conditional UpdateItem on the tenant’s window of the hour, in the rate partition', async () => {
    fakeWindows();
    expect(await replayBudget(limits).take('acme', 'w1', 7, at)).toEqual({ ok: true });
    const calls = ddb.commandCalls(UpdateCommand);
    expect(calls).toHaveLength(1);
    const hour = Date.parse('2026-05-01T12:00:00.000Z') / 1000;
    expect(calls[0]!.args[0].input).toMatchObject({
      Key: { PK: 'TNT#acme#RATE', SK: `R#${hour}` },
      ConditionExpression: expect.stringContaining('#calls < :maxCalls'),
      ExpressionAttributeValues: { ':n': 7, ':room': 93, ':maxCalls': 3, ':ttl': hour + 3600 + 120 },
    });
  });

  it('rejects when a webhook has had its replay calls this window: the last allowed passes, the next is refused, another webhook still may', async () => {
    fakeWindows();
    const budget = replayBudget(limits);
    for (let i = 0; i < 3; i++) expect(await budget.take('acme', 'w1', 1, at)).toEqual({ ok: true });
    // Twenty minutes to the next window.
    expect(await budget.take('acme', 'w1', 1, at)).toEqual({ ok: false, over: 'webhook', retryAfterSeconds: 1200 });
    expect(await budget.take('acme', 'w2', 1, at)).toEqual({ ok: true });
    // The next hour is a new window.
    expect(await budget.take('acme', 'w1', 1, new Date('2026-05-01T13:00:00.000Z'))).toEqual({ ok: true });
  });

  it("rejects when a replay would take the tenant over its replayed deliveries this window: exactly the limit passes, one more is refused, other tenants are apart", async () => {
    fakeWindows();
    const budget = replayBudget(limits);
    expect(await budget.take('acme', 'w1', 60, at)).toEqual({ ok: true });
    expect(await budget.take('acme', 'w2', 41, at)).toEqual({ ok: false, over: 'tenant', retryAfterSeconds: 1200 });
    expect(await budget.take('acme', 'w2', 40, at)).toEqual({ ok: true });
    expect(await budget.take('acme', 'w3', 1, at)).toEqual({ ok: false, over: 'tenant', retryAfterSeconds: 1200 });
    expect(await budget.take('other', 'w9', 100, at)).toEqual({ ok: true });
    // More than a whole window's budget is refused without a write.
    const writes = ddb.commandCalls(UpdateCommand).length;
    expect(await budget.take('other', 'w9', 101, at)).toMatchObject({ ok: false, over: 'tenant' });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(writes);
  });

  it('passes a failure other than the condition on', async () => {
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' }));
    await expect(replayBudget(limits).take('acme', 'w1', 1, at)).rejects.toThrow('slow down');
  });
});

describe('retryAfterSeconds', () => {
  it('reads delta-seconds and an HTTP date, and nothing else', () => {
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds('Fri, 01 May 2026 12:01:00 GMT', now)).toBe(60);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
  });
});

describe('wants', () => {
  it('matches types and definitions, and a test event only for its own webhook', () => {
    const created = instanceEvents.created(instance, now);
    expect(wants(hook(), created)).toBe(true);
    expect(wants(hook({ eventTypes: ['process-instance.completed'] }), created)).toBe(false);
    expect(wants(hook({ processDefnNames: ['other'] }), created)).toBe(false);
    expect(wants(hook({ processDefnNames: ['kyc'] }), created)).toBe(true);
    expect(wants(hook({ enabled: false }), created)).toBe(false);
    expect(wants(hook(), webhookTestEvent('acme', 'w1', now))).toBe(true);
    expect(wants(hook({ id: 'w2' }), webhookTestEvent('acme', 'w1', now))).toBe(false);
  });
});

describe('fanOut', () => {
  it("starts a delivery and queues a message for each webhook of the event's tenant that wants it, in the events' order", async () => {
    const started: DeliveryRecord[] = [];
    const queued: DeliveryMessage[] = [];
    const lists: string[] = [];
    const e1 = instanceEvents.created(instance, now);
    const e2 = instanceEvents.stepChanged(instance, { activityId: 'form', activityType: 'DATA_FORM' }, now);
    const other = instanceEvents.created({ ...instance, tenantId: 'globex', id: 'pi-9' }, now);
    const n = await fanOut(
      {
        webhooks: { list: async (t) => (lists.push(t), t === 'acme' ? [hook(), hook({ id: 'w2', eventTypes: ['process-instance.step-changed'] })] : []) },
        deliveries: { start: async (r) => (started.push(r), true) },
        queue: { send: async (m) => void queued.push(...m) },
      },
      [e1, e2, other],
      now,
    );
    expect(n).toBe(3);
    expect(queued.map((m) => [m.webhookId, m.eventId])).toEqual([['w1', e1.id], ['w1', e2.id], ['w2', e2.id]]);
    expect(started.every((s) => s.status === 'PENDING' && s.attempts.length === 0)).toBe(true);
    // One read of a tenant's webhooks a batch.
    expect(lists).toEqual(['acme', 'globex']);
  });
});

// One mock per client class in a file.
const sqs = mockClient(SQSClient);
const ddb = mockClient(DynamoDBDocumentClient);
const sts = mockClient(STSClient);
const eventBridge = mockClient(EventBridgeClient);

describe('handleDeliveries', () => {
  beforeEach(() => sqs.reset());

  it('deletes a failed message (its retry is a new one on the retry queue), and holds back a group only when our own write fails', async () => {
    sqs.on(SendMessageCommand).resolves({});
    const h = harness({ answer: () => ({ status: 503 }) });
    const record = (id: string, group: string, body = JSON.stringify(h.message)) => ({ messageId: id, receiptHandle: `rh-${id}`, body, attributes: { MessageGroupId: group } });
    const d = { ...h.d, queue: deliveryQueue };
    // The endpoint failing is no failure of the message: it is done with, its retry on the retry queue.
    expect((await handleDeliveries(d, [record('a', 'w1:pi-1')], () => now)).batchItemFailures).toEqual([]);
    expect(sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input)).toEqual([
      { QueueUrl: process.env.WEBHOOK_RETRY_QUEUE_URL, MessageBody: JSON.stringify({ ...h.message, lane: 'retry', attempt: 1, dueAt: new Date(now.getTime() + 6000).toISOString() }), DelaySeconds: 6 },
    ]);
    // SQS throttling the retry's send: the message comes back (and the rest of its group in the batch with it), other groups go on.
    sqs.on(SendMessageCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    const again = harness({ answer: () => ({ status: 503 }) });
    const other = harness();
    const out = await handleDeliveries(
      {
        ...again.d,
        queue: deliveryQueue,
        // The other subject's endpoint answers; this one's fails (and its retry cannot be queued).
        fetch: async (url, init, o) => (String(init.body).includes(other.event.id) ? other.d.fetch(url, init, o) : again.d.fetch(url, init, o)),
        deliveries: { ...again.d.deliveries, get: async (_t, _w, _ts, id) => (id === other.delivery.eventId ? other.delivery : again.delivery) }, outbox: { getEvent: async (_t, _ts, id) => (id === other.event.id ? other.event : again.event) } },
      [record('b', 'w1:pi-1', JSON.stringify(again.message)), record('c', 'w1:pi-1', JSON.stringify(again.message)), record('e', 'w1:pi-2', JSON.stringify(other.message))],
      () => now,
    );
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: 'b' }, { itemIdentifier: 'c' }]);
    expect(other.sent.map((r) => JSON.parse(r.body).id)).toEqual([other.event.id]);
  });
});

describe('deliveryQueue on AWS', () => {
  beforeEach(() => sqs.reset());

  it('sends ten to a batch, grouped by webhook and subject, deduplicated by webhook and event (and replay)', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const messages = Array.from({ length: 12 }, (_, i) => ({ tenantId: 'acme', webhookId: 'w1', eventId: newEventId(now), eventTimestamp: now.toISOString(), subjectId: `pi-${i % 2}`, ...(i === 11 ? { replay: '42' } : {}) }));
    await deliveryQueue.send(messages);
    const batches = sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input.Entries!);
    expect(batches.map((b) => b.length)).toEqual([10, 2]);
    expect(batches[0]![1]).toMatchObject({ MessageGroupId: 'w1:pi-1', MessageDeduplicationId: `w1:${messages[1]!.eventId}` });
    expect(batches[1]![1]!.MessageDeduplicationId).toBe(`w1:${messages[11]!.eventId}:42`);
    // A subject id too long for SQS becomes its hash.
    await deliveryQueue.send([{ ...messages[0]!, subjectId: 'x'.repeat(200) }]);
    expect(sqs.commandCalls(SendMessageBatchCommand).at(-1)!.args[0].input.Entries![0]!.MessageGroupId).toMatch(/^[0-9a-f]{64}$/);
  });

  it('queues replays on the replay queue and fresh deliveries on the delivery queue', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const m = { tenantId: 'acme', webhookId: 'w1', eventId: newEventId(now), eventTimestamp: now.toISOString(), subjectId: 's' };
    await deliveryQueue.send([m]);
    await deliveryQueue.sendReplays([{ ...m, replay: '42', lane: 'replay' }]);
    expect(sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input.QueueUrl)).toEqual([process.env.WEBHOOK_QUEUE_URL, process.env.WEBHOOK_REPLAY_QUEUE_URL]);
  });

  it('throws when SQS refuses a message, so the relay sends the batch again', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '0', Code: 'InternalError', SenderFault: false }] });
    await expect(deliveryQueue.send([{ tenantId: 'acme', webhookId: 'w1', eventId: newEventId(now), eventTimestamp: now.toISOString(), subjectId: 's' }])).rejects.toThrow(/InternalError/);
  });

  it('sends a retry to the standard retry queue with DelaySeconds capped at SQS\u2019s 15 minutes, and no group or deduplication id', async () => {
    sqs.on(SendMessageCommand).resolves({});
    const m = { tenantId: 'acme', webhookId: 'w1', eventId: newEventId(now), eventTimestamp: now.toISOString(), subjectId: 's', attempt: 3 };
    await deliveryQueue.retry(m, 43_200);
    await deliveryQueue.retry(m, 0);
    const sent = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input);
    expect(sent.map((i) => [i.QueueUrl, i.DelaySeconds, i.MessageGroupId, i.MessageDeduplicationId])).toEqual([
      [process.env.WEBHOOK_RETRY_QUEUE_URL, 900, undefined, undefined],
      [process.env.WEBHOOK_RETRY_QUEUE_URL, 0, undefined, undefined],
    ]);
    expect(JSON.parse(sent[0]!.MessageBody!)).toEqual({ ...m, lane: 'retry' });
  });

  it('throws when SQS throttles a retry, so the message it came from is reported failed', async () => {
    sqs.on(SendMessageCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    await expect(deliveryQueue.retry({ tenantId: 'acme', webhookId: 'w1', eventId: newEventId(now), eventTimestamp: now.toISOString(), subjectId: 's' }, 5)).rejects.toThrow(/Rate exceeded/);
  });
});

describe('the outbound guard for webhooks', () => {
  const resolve = (address: string) => async () => [{ address, family: 4 as const }];
  it('lets http:// through only to loopback, and only when allowed (the local runtime)', async () => {
    await expect(checkOutboundUrl('http://127.0.0.1:8080/in', { allowLoopback: true })).resolves.toMatchObject({ allowedByOrigin: true });
    await expect(checkOutboundUrl('http://localhost:8080/in', { allowLoopback: true, resolve: resolve('127.0.0.1') })).resolves.toBeDefined();
    await expect(checkOutboundUrl('http://127.0.0.1:8080/in')).rejects.toMatchObject({ rule: 'scheme' });
    await expect(checkOutboundUrl('https://127.0.0.1/in')).rejects.toMatchObject({ rule: 'loopback' });
    await expect(checkOutboundUrl('http://10.0.0.1/in', { allowLoopback: true })).rejects.toMatchObject({ rule: 'scheme' });
    await expect(checkOutboundUrl('https://10.0.0.1/in', { allowLoopback: true })).rejects.toMatchObject({ rule: 'private' });
    await expect(checkOutboundUrl('https://hooks.example.com/in', { allowLoopback: true, resolve: resolve('169.254.169.254') })).rejects.toMatchObject({ rule: 'cloud-metadata' });
  });
});

describe('eventIdTime', () => {
  it('reads the time an event id was made', () => {
    expect(eventIdTime(newEventId(now))).toEqual(now);
    expect(eventIdTime('evt_nope')).toBeUndefined();
  });
});
