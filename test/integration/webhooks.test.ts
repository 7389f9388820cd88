import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateQueueCommand, DeleteMessageCommand, GetQueueAttributesCommand, ListQueuesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { adminToken, call, finalStatus, issueToken, keyWith, putLocalItem } from './client.js';
import type { EventEnvelope } from '../../functions/shared/events.js';
import { keys } from '../../functions/store/keys.js';

const BASE = '/api/webhook-manager/webhooks';
let token: string;
let other: string;
beforeAll(async () => {
  token = await adminToken();
  other = await issueToken(inject('otherKey'), 'other');
});

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/**
 * A subscriber's endpoint on this machine: answers each request with what `answer` says (by
 * default 204), and keeps every request it got.
 */
class Receiver {
  readonly got: Received[] = [];
  answer: (n: number, body: string) => { status: number; headers?: Record<string, string> } = () => ({ status: 204 });
  /** How long it takes to answer (a slow endpoint). */
  delayMs = 0;
  private server!: Server;
  url = '';
  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const a = this.answer(this.got.length, body);
        this.got.push({ headers: req.headers, body, status: a.status });
        setTimeout(() => res.writeHead(a.status, a.headers).end(), this.delayMs);
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }
  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
  /** The accepted requests' events, each verified as a subscriber verifies it, deduplicated by `webhook-id`. */
  accepted(secret: string): EventEnvelope[] {
    const seen = new Map<string, EventEnvelope>();
    for (const r of this.got.filter((g) => g.status >= 200 && g.status < 300)) {
      const event = new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as EventEnvelope;
      expect(event.id).toBe(r.headers['webhook-id']);
      if (!seen.has(event.id)) seen.set(event.id, event);
    }
    return [...seen.values()];
  }
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits past the top of the hour when it is near: replay limits count in clock-hour windows, and a test of their edge must not straddle two. */
async function clearOfHourEdge(seconds = 30): Promise<void> {
  const left = 3600 - (Math.floor(Date.now() / 1000) % 3600);
  if (left < seconds) await new Promise((r) => setTimeout(r, (left + 1) * 1000));
}

/** Every webhook this file made, deleted at its end: left behind, each would take the events the rest of the suite makes. */
const made: { id: string; as: () => string; tenant: string }[] = [];
afterAll(async () => {
  for (const m of made) await call('DELETE', `${BASE}/${m.id}`, { token: m.as(), tenant: m.tenant });
});

async function subscribe(body: Record<string, unknown>, as = token, tenant = 'demo') {
  const res = await call('POST', BASE, { token: as, tenant, body });
  expect(res.status, res.text).toBe(201);
  made.push({ id: res.json.id, as: () => as, tenant });
  return res.json as { id: string; secret: string; url: string };
}

/** A new instance of the identity-check example, opened by its end user. */
async function openedInstance(name = 'identity-check'): Promise<string> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: { name: `wh-${Math.random().toString(36).slice(2)}`, processDefnName: name, processDefnVersion: 1 },
  });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status, created.text).toBe(201);
  const link = new URL(created.json.redirectUrl);
  expect((await call('GET', `${link.pathname}${link.search}`)).status).toBe(200);
  return created.json.processInstanceId;
}

/** The events the runtime's relay put on its bus (its order: the order written), from the service log. */
function relayed(): EventEnvelope[] {
  return readFileSync(inject('logFile'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"message":"event"'))
    .map((l) => (JSON.parse(l) as { event: EventEnvelope }).event);
}

describe('webhook delivery', () => {
  let receiver: Receiver;
  beforeAll(async () => (receiver = await new Receiver().start()));
  afterAll(() => receiver.stop());

  it('gets a receiver that fails twice, then accepts, every event once after deduplication, signed, in order per instance', async () => {
    // The first two requests fail (a 500, then a 503 asking to wait a second); every later one is taken.
    receiver.answer = (n) => (n === 0 ? { status: 500 } : n === 1 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 204 });
    const hook = await subscribe({ url: receiver.url, eventTypes: ['process-instance.created', 'process-instance.status-changed', 'process-instance.step-changed'] });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const ids = [await openedInstance(), await openedInstance()];

    for (const id of ids) {
      const mine = await until(`the events of ${id}`, () => {
        const found = receiver.accepted(hook.secret).filter((e) => e.subject.id === id);
        return found.some((e) => e.type === 'process-instance.status-changed') && found.some((e) => e.type === 'process-instance.step-changed') ? found : undefined;
      });
      // The order the relay put them on the bus, which is the order they were written.
      const order = relayed().filter((e) => e.subject.id === id && e.type !== 'process-instance.completed').map((e) => e.id);
      expect(mine.map((e) => e.id)).toEqual(order.slice(0, mine.length));
      expect(mine[0]!.type).toBe('process-instance.created');
    }
    // Two failures, and nothing lost: the failed event was among those accepted later.
    expect(receiver.got.slice(0, 2).map((r) => r.status)).toEqual([500, 503]);
    const failedId = receiver.got[0]!.headers['webhook-id'];
    // Its retry waits its backoff (and its subject's line): it may come after the others.
    await until('the failed event accepted', () => (receiver.accepted(hook.secret).some((e) => e.id === failedId) ? true : undefined));
    expect(receiver.accepted(hook.secret).map((e) => e.id)).toContain(failedId);
    // A forged signature does not verify.
    const one = receiver.got.find((r) => r.status === 204)!;
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(one.body, one.headers as Record<string, string>)).toThrow();

    // The delivery log: each failed event's attempts, with their status and latency, the last one taken.
    // The worker records a delivery once its answer is in: read the log when the two failed ones are settled.
    const settled = (l: { json: { deliveries?: { eventId: string; status: string }[] } }) =>
      [0, 1].every((i) => l.json.deliveries?.find((x) => x.eventId === receiver.got[i]!.headers['webhook-id'])?.status !== 'PENDING');
    const log = await until('the failed deliveries settled', async () => {
      const l = await call('GET', `${BASE}/${hook.id}/deliveries?size=100`, { token });
      return l.status !== 200 || settled(l) ? l : undefined;
    });
    expect(log.status).toBe(200);
    for (const [i, status] of [[0, 500], [1, 503]] as const) {
      const d = log.json.deliveries.find((x: { eventId: string }) => x.eventId === receiver.got[i]!.headers['webhook-id']);
      expect(d.status).toBe('DELIVERED');
      expect(d.attempts[0].status).toBe(status);
      expect(d.attempts.at(-1).status).toBe(204);
      for (const a of d.attempts) expect(a.latencyMs).toBeGreaterThanOrEqual(0);
    }
  });

  it('signs with both secrets for a day after a rotation, and sends a test event to that webhook only', async () => {
    const mine = await new Receiver().start();
    const bystander = await new Receiver().start();
    try {
      const hook = await subscribe({ url: mine.url, eventTypes: ['webhook.test'] });
      await subscribe({ url: bystander.url, eventTypes: ['webhook.test'] });
      const rotated = await call('POST', `${BASE}/${hook.id}/secret/rotate`, { token });
      expect(rotated.status).toBe(200);
      expect(rotated.json.secret).not.toBe(hook.secret);
      expect(rotated.json.previousSecretExpiresDtm).toBeDefined();
      const sent = await call('POST', `${BASE}/${hook.id}/test`, { token });
      expect(sent.status).toBe(202);
      const got = await until('the test event', () => mine.got[0]);
      expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
      // Each secret alone verifies it, as a receiver mid-switch verifies it.
      for (const secret of [hook.secret, rotated.json.secret]) {
        expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({ id: sent.json.eventId, type: 'webhook.test', data: { webhookId: hook.id } });
      }
      await new Promise((r) => setTimeout(r, 1000));
      expect(bystander.got).toEqual([]);
    } finally {
      await mine.stop();
      await bystander.stop();
    }
  });

  it('disables a webhook whose endpoint answers 410 Gone, and sends it nothing more until it is enabled again', async () => {
    const gone = await new Receiver().start();
    try {
      gone.answer = () => ({ status: 410 });
      const hook = await subscribe({ url: gone.url, eventTypes: ['webhook.test'] });
      await call('POST', `${BASE}/${hook.id}/test`, { token });
      await until('the webhook disabled', async () => ((await call('GET', `${BASE}/${hook.id}`, { token })).json.enabled === false ? true : undefined));
      expect((await call('GET', `${BASE}/${hook.id}`, { token })).json).toMatchObject({ enabled: false, disabledReason: 'ENDPOINT_GONE' });
      await call('POST', `${BASE}/${hook.id}/test`, { token });
      await new Promise((r) => setTimeout(r, 1500));
      expect(gone.got).toHaveLength(1);
      gone.answer = () => ({ status: 200 });
      expect((await call('PATCH', `${BASE}/${hook.id}`, { token, body: { enabled: true } })).json).toMatchObject({ enabled: true });
      expect((await call('GET', `${BASE}/${hook.id}`, { token })).json.disabledReason).toBeUndefined();
      await call('POST', `${BASE}/${hook.id}/test`, { token });
      await until('a delivery after enabling', () => (gone.got.length === 2 ? true : undefined));
    } finally {
      await gone.stop();
    }
  });

  it('replays one event, or a time range, with the same webhook-id', async () => {
    const r = await new Receiver().start();
    try {
      const hook = await subscribe({ url: r.url, eventTypes: ['webhook.test'] });
      const from = new Date().toISOString();
      const sent = await call('POST', `${BASE}/${hook.id}/test`, { token });
      await until('the test event', () => r.got[0]);
      const again = await call('POST', `${BASE}/${hook.id}/replay`, { token, body: { eventId: sent.json.eventId } });
      expect(again.json).toEqual({ queued: 1, more: false });
      await until('the replay', () => r.got[1]);
      expect(r.got[1]!.headers['webhook-id']).toBe(sent.json.eventId);
      const range = await call('POST', `${BASE}/${hook.id}/replay`, { token, body: { from, to: new Date().toISOString() } });
      expect(range.json).toEqual({ queued: 1, more: false });
      await until('the range replay', () => r.got[2]);
      expect(r.accepted(hook.secret)).toHaveLength(1);
      expect((await call('POST', `${BASE}/${hook.id}/replay`, { token, body: { eventId: 'evt_01AAAAAAAAAAAAAAAAAAAAAAAA' } })).status).toBe(400);
      expect((await call('POST', `${BASE}/${hook.id}/replay`, { token, body: {} })).status).toBe(400);
    } finally {
      await r.stop();
    }
  });
});

describe('webhook delivery, fair between tenants', () => {
  it("delivers another tenant's event within seconds while one tenant's endpoint fails every attempt, and stops calling that endpoint but for its probe", async () => {
    const dead = await new Receiver().start();
    const live = await new Receiver().start();
    dead.answer = () => ({ status: 500 });
    try {
      const deadHook = await subscribe({ url: dead.url, eventTypes: ['process-instance.created', 'process-instance.status-changed', 'process-instance.step-changed'] });
      const liveHook = await subscribe({ url: live.url, eventTypes: ['webhook.test'] }, other, 'other');
      // Demo's instances: three events each, to an endpoint that fails them all, retried every 1 to 3 s.
      for (let i = 0; i < 6; i++) await openedInstance();
      await until('the dead endpoint failing', () => (dead.got.length >= 5 ? true : undefined));
      const started = Date.now();
      expect((await call('POST', `${BASE}/${liveHook.id}/test`, { token: other, tenant: 'other' })).status).toBe(202);
      await until("the other tenant's delivery", () => live.got[0], 20_000);
      const delay = Date.now() - started;
      expect(delay, `delivered after ${delay} ms`).toBeLessThan(5_000);
      // Past five failures in a row the endpoint is probed once a minute, not retried by every delivery.
      const calls = dead.got.length;
      await new Promise((r) => setTimeout(r, 6_000));
      expect(dead.got.length - calls).toBeLessThanOrEqual(1);
      const log = await call('GET', `${BASE}/${deadHook.id}/deliveries?size=100`, { token });
      const notAttempted = log.json.deliveries.flatMap((d: { attempts: { error?: string }[] }) => d.attempts).filter((a: { error?: string }) => a.error === 'not attempted: endpoint failing');
      expect(notAttempted.length).toBeGreaterThan(0);
      // Every delivery still PENDING waits on the retry queue or parked in the table: none holds a FIFO message.
      expect(log.json.deliveries.every((d: { status: string }) => d.status === 'PENDING' || d.status === 'FAILED')).toBe(true);
    } finally {
      await dead.stop();
      await live.stop();
    }
  });
});

describe('the webhook sweeper', () => {
  it('delivers a PENDING delivery whose queue message was lost, once, and never sends again one that was delivered', async () => {
    const receiver = await new Receiver().start();
    try {
      // An event of the tenant made before the webhook (so the relay gave it no delivery).
      const pi = await openedInstance();
      const event = await until('the event relayed', () => relayed().find((e) => e.subject.id === pi && e.type === 'process-instance.created'));
      const hook = await subscribe({ url: receiver.url, eventTypes: ['process-instance.created'] });
      const past = new Date(Date.now() - 60_000).toISOString();
      // Keyed as the relay keys a delivery (its subject's shard): should the relay, running late
      // under load, still give the event a delivery of its own, it is this one, not a second.
      const key = (eventId: string, ts: string, subjectId: string) => ({
        ...keys.webhookDelivery('demo', hook.id, ts, eventId, keys.webhookDeliveryShard(subjectId)),
        ...keys.webhookDeliveryDue('demo', past, hook.id, ts, eventId, keys.webhookDeliveryShard(subjectId)),
      });
      const base = { itemType: 'WebhookDelivery', tenantId: 'demo', webhookId: hook.id, eventType: event.type, subjectId: pi, attempts: [], createdAt: past, updatedAt: past, expiresAt: Math.floor(Date.now() / 1000) + 3600, sweepAt: past };
      // The delivery the relay wrote, whose message SQS never got (or the dead-letter queue took).
      await putLocalItem({ ...key(event.id, event.timestamp, pi), ...base, eventId: event.id, eventTimestamp: event.timestamp, status: 'PENDING' });
      // One already delivered, still on the due index (the index lags the table): the sweeper reads it and sends nothing.
      const other = relayed().find((e) => e.tenantId === 'demo' && e.type === 'process-instance.created' && e.id !== event.id)!;
      await putLocalItem({ ...key(other.id, other.timestamp, other.subject.id), ...base, subjectId: other.subject.id, eventId: other.id, eventTimestamp: other.timestamp, status: 'DELIVERED' });

      // Other files' journeys of the tenant create instances meanwhile, whose new deliveries this
      // webhook gets too: only the two deliveries written here are judged.
      const ours = (id: string | undefined) => id === event.id || id === other.id;
      await until('the lost delivery', () => receiver.got.find((g) => ours(String(g.headers['webhook-id']))), 20_000);
      // Several sweeps later: each sent once.
      await new Promise((r) => setTimeout(r, 4_000));
      expect(receiver.got.map((g) => String(g.headers['webhook-id'])).filter(ours)).toEqual([event.id]);
      expect(receiver.accepted(hook.secret).map((e) => e.id).filter(ours)).toEqual([event.id]);
      // Newest first, and the suite's other journeys add deliveries meanwhile: the page's largest size reaches back to these two.
      const log = await call('GET', `${BASE}/${hook.id}/deliveries?size=100`, { token });
      expect(log.json.deliveries.find((d: { eventId: string }) => d.eventId === event.id)).toMatchObject({ status: 'DELIVERED' });
      expect(log.json.deliveries.find((d: { eventId: string }) => d.eventId === other.id)).toMatchObject({ status: 'DELIVERED', attempts: [] });
    } finally {
      await receiver.stop();
    }
  });
});

describe('replayWebhookEvents', () => {
  it('rejects when a webhook was replayed 20 times this hour: the twentieth is queued, the next is 429 with Retry-After, and another webhook still replays', async () => {
    const r = await new Receiver().start();
    try {
      const hook = await subscribe({ url: r.url, eventTypes: ['webhook.test'] });
      const spare = await subscribe({ url: r.url, eventTypes: ['webhook.test'] });
      const sent = await call('POST', `${BASE}/${hook.id}/test`, { token });
      const spareSent = await call('POST', `${BASE}/${spare.id}/test`, { token });
      await until('the test events', () => (r.got.length >= 2 ? true : undefined));
      await clearOfHourEdge();
      for (let i = 1; i <= 20; i++) {
        const ok = await call('POST', `${BASE}/${hook.id}/replay`, { token, body: { eventId: sent.json.eventId } });
        expect(ok.status, `replay ${i}: ${ok.text}`).toBe(202);
        expect(ok.json).toEqual({ queued: 1, more: false });
      }
      const over = await call('POST', `${BASE}/${hook.id}/replay`, { token, body: { eventId: sent.json.eventId } });
      expect(over.status, over.text).toBe(429);
      expect(over.json.code).toBe('WEBHOOK_REPLAY_LIMITED');
      // Until the window (the clock hour) ends.
      const retryAfter = Number(over.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(Math.abs(retryAfter - (3600 - (Math.floor(Date.now() / 1000) % 3600)))).toBeLessThanOrEqual(2);
      // Another webhook of the tenant has its own count.
      expect((await call('POST', `${BASE}/${spare.id}/replay`, { token, body: { eventId: spareSent.json.eventId } })).status).toBe(202);
    } finally {
      await r.stop();
    }
  });

  it("does not hold another tenant's new delivery behind a large replay", async () => {
    // Tenant "other" replays 100 deliveries (5 webhooks, so 5 message groups: more than the
    // worker's loops) to an endpoint that takes half a second each, about 25 seconds of work.
    const slow = await new Receiver().start();
    const b = await new Receiver().start();
    const hooks: string[] = [];
    try {
      for (let i = 0; i < 5; i++) hooks.push((await subscribe({ url: slow.url, eventTypes: ['webhook.test'] }, other, 'other')).id);
      const from = new Date(Date.now() - 1000).toISOString();
      await Promise.all(hooks.map(async (id) => {
        for (let n = 0; n < 20; n++) expect((await call('POST', `${BASE}/${id}/test`, { token: other, tenant: 'other' })).status).toBe(202);
      }));
      await until('the first deliveries', () => (slow.got.length >= 100 ? true : undefined), 60_000);
      const to = new Date(Date.now() + 1000).toISOString();
      const bHook = await subscribe({ url: b.url, eventTypes: ['webhook.test'] });

      slow.delayMs = 500;
      for (const id of hooks) {
        const replayed = await call('POST', `${BASE}/${id}/replay`, { token: other, tenant: 'other', body: { from, to } });
        expect(replayed.status, replayed.text).toBe(202);
        expect(replayed.json.queued).toBe(20);
      }
      // Tenant demo's new event, while the replay is queued.
      const started = Date.now();
      expect((await call('POST', `${BASE}/${bHook.id}/test`, { token })).status).toBe(202);
      await until("demo's delivery", () => b.got[0], 40_000);
      const delay = Date.now() - started;
      const replayedMeanwhile = slow.got.length - 100;
      // The replay was still under way (so it could have been in the way)...
      expect(replayedMeanwhile).toBeLessThan(100);
      // ...and demo's delivery did not wait for it: without lanes it waited about 12 s here.
      expect(delay, `delivered after ${delay} ms, ${replayedMeanwhile} replayed deliveries meanwhile`).toBeLessThan(5_000);
    } finally {
      // Their replayed deliveries still queued are discarded (the webhooks are gone), not sent.
      for (const id of hooks) await call('DELETE', `${BASE}/${id}`, { token: other, tenant: 'other' });
      await slow.stop();
      await b.stop();
    }
  });
});

describe('the Send Webhook step', () => {
  /** A journey that notifies one webhook with a body from its variables, then passes; its error route ends it declined. */
  async function notifyingJourney(webhookId: string): Promise<string> {
    const name = `notify-${Math.random().toString(36).slice(2, 8)}`;
    const res = await call('POST', '/api/process-manager/processDefinitions', {
      token,
      body: {
        name,
        version: 1,
        retentionDays: 1,
        startActivityId: 'notify',
        activities: {
          notify: {
            type: 'SEND_WEBHOOK',
            inputs: { 'Webhook ID': webhookId, 'Event Name': 'application-received', Body: { amount: '${amount}', channel: 'web' } },
            errorEvents: { 'Webhook Not Found': 'noHook' },
            next: 'decide',
          },
          decide: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
        },
        ends: { noHook: { error: 'webhookMissing' } },
      },
    });
    expect(res.status, res.text).toBe(201);
    return name;
  }
  async function run(definition: string): Promise<{ id: string; status: string }> {
    const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `n-${Math.random().toString(36).slice(2)}`, processDefnName: definition, processDefnVersion: 1, parameters: { amount: '250' } } });
    expect(pt.status, pt.text).toBe(201);
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    expect(created.status, created.text).toBe(201);
    return { id: created.json.processInstanceId, status: await finalStatus(created.json.processInstanceId, token) };
  }

  it('notifies the webhook it names, and only it, with the body made from the journey', async () => {
    const mine = await new Receiver().start();
    const others = await new Receiver().start();
    try {
      const hook = await subscribe({ url: mine.url, eventTypes: ['process-instance.notification'] });
      await subscribe({ url: others.url, eventTypes: ['*'] });
      const { id, status } = await run(await notifyingJourney(hook.id));
      expect(status).toBe('COMPLETED_ENDED_SUCCESS');
      const got = await until('the notification', () => mine.accepted(hook.secret).find((e) => e.subject.id === id));
      expect(got).toMatchObject({ type: 'process-instance.notification', data: { processInstanceId: id, webhookId: hook.id, activityId: 'notify', name: 'application-received', body: { amount: '250', channel: 'web' } } });
      await new Promise((r) => setTimeout(r, 1000));
      // The subscriber of every event gets the instance's events, but not another webhook's notification.
      expect(others.got.map((g) => JSON.parse(g.body).type)).not.toContain('process-instance.notification');
    } finally {
      await mine.stop();
      await others.stop();
    }
  });

  it('takes its Webhook Not Found route for a webhook that is gone', async () => {
    const hook = await subscribe({ url: 'http://127.0.0.1:9/gone' });
    const definition = await notifyingJourney(hook.id);
    expect((await call('DELETE', `${BASE}/${hook.id}`, { token })).status).toBe(204);
    expect((await run(definition)).status).toBe('COMPLETED_ENDED_ERROR');
  });
});

describe('a queue as the target', () => {
  it("sends an instance's events to the relying party's FIFO queue, in order, with the event's id", async () => {
    // The relying party's queue, on the SQS stand-in (its own account on AWS).
    const runtime = JSON.parse(readFileSync(join(inject('localDir'), 'runtime.json'), 'utf8')) as { s3Endpoint: string };
    const sqs = new SQSClient({ endpoint: runtime.s3Endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    try {
      const made = await sqs.send(new CreateQueueCommand({ QueueName: `rp-${Math.random().toString(36).slice(2, 8)}.fifo`, Attributes: { FifoQueue: 'true' } }));
      const queueArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: made.QueueUrl!, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
      const hook = await subscribe({ target: { type: 'sqs', queueArn }, eventTypes: ['process-instance.created', 'process-instance.status-changed', 'process-instance.step-changed'] });
      expect((await call('GET', `${BASE}/${hook.id}`, { token })).json).toMatchObject({ target: { type: 'sqs', queueArn } });
      const id = await openedInstance();
      const got: { body: EventEnvelope; id: string | undefined }[] = [];
      for (let i = 0; i < 20 && got.filter((g) => g.body.subject.id === id).length < 3; i++) {
        const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: made.QueueUrl!, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageAttributeNames: ['All'] }));
        for (const m of out.Messages ?? []) {
          got.push({ body: JSON.parse(m.Body!) as EventEnvelope, id: m.MessageAttributes?.['webhook-id']?.StringValue });
          // Taken, as a consumer takes it: the group's next message comes only then.
          await sqs.send(new DeleteMessageCommand({ QueueUrl: made.QueueUrl!, ReceiptHandle: m.ReceiptHandle! }));
        }
      }
      const mine = got.filter((g) => g.body.subject.id === id);
      // What the delivery log says, should the queue have missed them.
      const log = JSON.stringify((await call('GET', `${BASE}/${hook.id}/deliveries`, { token })).json).slice(0, 2000);
      expect(mine.length, log).toBeGreaterThanOrEqual(3);
      expect(mine.map((g) => g.body.type)).toEqual(expect.arrayContaining(['process-instance.created', 'process-instance.step-changed', 'process-instance.status-changed']));
      expect(mine[0]!.body.type).toBe('process-instance.created');
      for (const g of mine) expect(g.id).toBe(g.body.id);
      // In the order the relay put them on the bus.
      const order = relayed().filter((e) => e.subject.id === id && e.type !== 'process-instance.completed').map((e) => e.id);
      expect(mine.map((g) => g.body.id)).toEqual(order.slice(0, mine.length));
    } finally {
      sqs.destroy();
    }
  });

  it("rejects when the target is the service's own delivery queue or its dead letters, on create and on change", async () => {
    const runtime = JSON.parse(readFileSync(join(inject('localDir'), 'runtime.json'), 'utf8')) as { s3Endpoint: string };
    const sqs = new SQSClient({ endpoint: runtime.s3Endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    try {
      // The runtime's own queues: every name it gives them starts with arthr-.
      const own = (await sqs.send(new ListQueuesCommand({ QueueNamePrefix: 'arthr-' }))).QueueUrls ?? [];
      const arns = await Promise.all(own.map(async (QueueUrl) => (await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!));
      expect(arns.some((a) => a.endsWith('webhook-deliveries.fifo')), arns.join()).toBe(true);
      expect(arns.some((a) => a.endsWith('webhook-deliveries-dlq.fifo')), arns.join()).toBe(true);
      for (const queueArn of arns) {
        const res = await call('POST', BASE, { token, body: { target: { type: 'sqs', queueArn } } });
        if (res.status === 201) made.push({ id: res.json.id, as: () => token, tenant: 'demo' });
        expect(res.status, queueArn).toBe(400);
        expect(res.json.code, queueArn).toBe('WEBHOOK_URL_REFUSED');
        expect(res.json.details, queueArn).toEqual([{ location: 'body.target', message: expect.stringMatching(/service's own/) }]);
      }
      // A relying party's queue may not be changed into one of them either.
      const made2 = await sqs.send(new CreateQueueCommand({ QueueName: `rp-${Math.random().toString(36).slice(2, 8)}`, Attributes: {} }));
      const rpArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: made2.QueueUrl!, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
      const hook = await subscribe({ target: { type: 'sqs', queueArn: rpArn } });
      const moved = await call('PATCH', `${BASE}/${hook.id}`, { token, body: { target: { type: 'sqs', queueArn: arns.find((a) => a.endsWith('webhook-deliveries.fifo'))! } } });
      expect(moved.status).toBe(400);
      expect(moved.json.code).toBe('WEBHOOK_URL_REFUSED');
      expect((await call('GET', `${BASE}/${hook.id}`, { token })).json.target).toEqual({ type: 'sqs', queueArn: rpArn });
    } finally {
      sqs.destroy();
    }
  });

  it('refuses a target that is not a queue or bus ARN, a bus in the local runtime, and a url with a target', async () => {
    for (const [body, code] of [
      [{ target: { type: 'sqs', queueArn: 'https://sqs.eu-west-1.amazonaws.com/111122223333/q' } }, 'WEBHOOK_URL_REFUSED'],
      [{ target: { type: 'eventbridge', eventBusArn: 'arn:aws:events:eu-west-1:111122223333:event-bus/rp' } }, 'WEBHOOK_URL_REFUSED'],
      [{ url: 'http://127.0.0.1:9/x', target: { type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:111122223333:q' } }, 'VALIDATION_FAILED'],
      [{}, 'VALIDATION_FAILED'],
      [{ target: { type: 'sns', topicArn: 'arn:aws:sns:eu-west-1:111122223333:t' } }, 'VALIDATION_FAILED'],
    ] as const) {
      const res = await call('POST', BASE, { token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.code, JSON.stringify(body)).toBe(code);
    }
  });
});

describe('webhook subscriptions', () => {
  it('refuses a URL to a private, link-local, metadata or non-https address', async () => {
    for (const url of ['http://10.0.0.5/hook', 'https://192.168.1.10/hook', 'https://169.254.169.254/latest/meta-data', 'https://[fd00::1]/hook', 'ftp://127.0.0.1/x', 'https://user:pw@127.0.0.1/x']) {
      const res = await call('POST', BASE, { token, body: { url } });
      expect(res.status, url).toBe(400);
      expect(res.json.code, url).toBe('WEBHOOK_URL_REFUSED');
    }
    const made = await subscribe({ url: 'http://127.0.0.1:9/hook' });
    const moved = await call('PATCH', `${BASE}/${made.id}`, { token, body: { url: 'http://10.1.2.3/hook' } });
    expect(moved.json.code).toBe('WEBHOOK_URL_REFUSED');
    expect((await call('DELETE', `${BASE}/${made.id}`, { token })).status).toBe(204);
  });

  it("refuses the local runtime's own services on loopback, where other receivers on this machine are allowed", async () => {
    const runtime = JSON.parse(readFileSync(join(inject('localDir'), 'runtime.json'), 'utf8')) as { s3Endpoint: string; dynamodbEndpoint: string };
    for (const endpoint of [runtime.s3Endpoint, runtime.dynamodbEndpoint]) {
      const port = new URL(endpoint).port;
      for (const url of [`http://127.0.0.1:${port}/`, `http://localhost:${port}/hook`, `http://[::1]:${port}/`]) {
        const res = await call('POST', BASE, { token, body: { url } });
        expect(res.status, url).toBe(400);
        expect(res.json.code, url).toBe('WEBHOOK_URL_REFUSED');
        expect(res.text, url).toContain("local runtime's own services");
      }
    }
  });

  it('never shows a secret after it is made, and checks what a change names', async () => {
    const made = await subscribe({ url: 'http://127.0.0.1:9/a', eventTypes: ['identity-store.user-added'], processDefnNames: ['identity-check'], description: 'crm' });
    const read = await call('GET', `${BASE}/${made.id}`, { token });
    expect(read.json).toMatchObject({ id: made.id, url: 'http://127.0.0.1:9/a', eventTypes: ['identity-store.user-added'], processDefnNames: ['identity-check'], enabled: true });
    const list = await call('GET', `${BASE}?size=1000`, { token });
    expect(list.json.content.some((w: { id: string }) => w.id === made.id)).toBe(true);
    expect(JSON.stringify([read.json, list.json])).not.toContain('whsec_');
    expect(JSON.stringify([read.json, list.json])).not.toContain('sealed');
    for (const eventTypes of [['process-instance.exploded'], ['*', 'process-instance.exploded'], []]) {
      const bad = await call('PATCH', `${BASE}/${made.id}`, { token, body: { eventTypes } });
      expect(bad.status, JSON.stringify(eventTypes)).toBe(400);
      expect(bad.json.code).toBe('VALIDATION_FAILED');
    }
    const forged = await call('GET', `${BASE}/${made.id}/deliveries?nextToken=${Buffer.from('TNT#other#X').toString('base64url')}`, { token });
    expect(forged.status).toBe(400);
    // A disabled webhook is not sent a test event: said, not answered 202 for nothing.
    await call('PATCH', `${BASE}/${made.id}`, { token, body: { enabled: false } });
    expect((await call('POST', `${BASE}/${made.id}/test`, { token })).status).toBe(409);
    expect((await call('DELETE', `${BASE}/${made.id}`, { token })).status).toBe(204);
    expect((await call('GET', `${BASE}/${made.id}`, { token })).status).toBe(404);
    expect((await call('DELETE', `${BASE}/${made.id}`, { token })).json.code).toBe('WEBHOOK_NOT_FOUND');
  });

  it("keeps each tenant's webhooks its own, and asks for the permission of each operation", async () => {
    const made = await subscribe({ url: 'http://127.0.0.1:9/t' });
    for (const [method, path] of [['GET', `${BASE}/${made.id}`], ['PATCH', `${BASE}/${made.id}`], ['DELETE', `${BASE}/${made.id}`], ['POST', `${BASE}/${made.id}/test`], ['POST', `${BASE}/${made.id}/secret/rotate`], ['GET', `${BASE}/${made.id}/deliveries`]] as const) {
      const res = await call(method, path, { token: other, tenant: 'other', body: method === 'PATCH' ? { enabled: false } : undefined });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await call('GET', `${BASE}?size=1000`, { token: other, tenant: 'other' })).json.content.some((w: { id: string }) => w.id === made.id)).toBe(false);

    const reader = await keyWith(['WebhookManager:getWebhooks']);
    const readerToken = await issueToken(reader.secret);
    expect((await call('GET', `${BASE}/${made.id}`, { token: readerToken })).status).toBe(200);
    expect((await call('POST', BASE, { token: readerToken, body: { url: 'http://127.0.0.1:9/x' } })).status).toBe(403);
    expect((await call('POST', `${BASE}/${made.id}/secret/rotate`, { token: readerToken })).status).toBe(403);
    expect((await call('DELETE', `${BASE}/${made.id}`, { token: readerToken })).status).toBe(403);
    expect((await call('DELETE', `${BASE}/${made.id}`, { token })).status).toBe(204);
  });

  it('holds at most 20 webhooks a tenant: the twentieth is made, the next refused, and a delete makes room', async () => {
    // The other tenant's (only this test makes webhooks there): the count starts from what it has.
    const have = (await call('GET', `${BASE}?size=1000`, { token: other, tenant: 'other' })).json.content as { id: string }[];
    const made: string[] = [];
    for (let i = have.length; i < 20; i++) made.push((await subscribe({ url: `http://127.0.0.1:9/${i}` }, other, 'other')).id);
    const over = await call('POST', BASE, { token: other, tenant: 'other', body: { url: 'http://127.0.0.1:9/21' } });
    expect(over.status).toBe(409);
    expect(over.json.code).toBe('WEBHOOK_LIMIT');
    const gone = made[0] ?? have[0]!.id;
    expect((await call('DELETE', `${BASE}/${gone}`, { token: other, tenant: 'other' })).status).toBe(204);
    await subscribe({ url: 'http://127.0.0.1:9/again' }, other, 'other');
  });
});
