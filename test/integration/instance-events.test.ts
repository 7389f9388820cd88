import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { EventEnvelope } from '../../functions/shared/events.js';
import { adminToken, call, issueToken, keyWith, relayedEvents, runJourney, until } from './client.js';

/**
 * An instance's events (GET .../processInstances/{id}/events) and their webhook deliveries
 * (GET /api/webhook-manager/deliveries?processInstanceId=), over HTTP, for a real journey: it
 * ends in REVIEW, a reviewer approves it, and two webhooks of this file's definition take its
 * events (one all of them, one only `completed`).
 */
const INSTANCES = '/api/process-manager/processInstances';
const DELIVERIES = '/api/webhook-manager/deliveries';
const fresh = () => Math.random().toString(36).slice(2, 10);

let token: string;
let other: string;
let definition: string;
let server: Server;
let url: string;
const hooks: { all: string; completed: string } = { all: '', completed: '' };
/** The approved instance, and its events once they are all written. */
let id: string;
let events: EventEnvelope[];

const eventsOf = (instanceId: string, query = '', as = token, tenant = 'demo') =>
  call('GET', `${INSTANCES}/${instanceId}/events${query ? `?${query}` : ''}`, { token: as, tenant });
const deliveriesOf = (query: string, as = token, tenant = 'demo') => call('GET', `${DELIVERIES}?${query}`, { token: as, tenant });

/** Every page of a list, following its `nextToken`, with the size of each page. */
async function walk(read: (nextToken?: string) => ReturnType<typeof call>, key: 'events' | 'deliveries') {
  const all: any[] = [];
  const sizes: number[] = [];
  let next: string | undefined;
  do {
    const res = await read(next);
    expect(res.status, res.text).toBe(200);
    all.push(...res.json[key]);
    sizes.push(res.json[key].length);
    next = res.json.nextToken;
  } while (next);
  return { all, sizes };
}

beforeAll(async () => {
  token = await adminToken();
  other = await issueToken(inject('otherKey'), 'other');
  // A subscriber's endpoint on this machine that takes everything.
  server = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;

  definition = `events-${fresh()}`;
  const published = await call('POST', '/api/process-manager/processDefinitions', {
    token,
    body: { name: definition, version: 1, retentionDays: 1, startActivityId: 'decide', activities: { decide: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'REVIEW' } } } },
  });
  expect(published.status, published.text).toBe(201);
  // Only this file's instances: the rest of the suite's events go to no webhook of it.
  for (const [name, eventTypes] of [['all', ['*']], ['completed', ['process-instance.completed']]] as const) {
    const made = await call('POST', '/api/webhook-manager/webhooks', { token, body: { url, eventTypes, processDefnNames: [definition] } });
    expect(made.status, made.text).toBe(201);
    hooks[name] = made.json.id;
  }

  const run = await runJourney(token, definition, {});
  expect(run.status).toBe('REVIEW');
  id = run.id;
  const reviewed = await call('POST', `${INSTANCES}/${id}/review`, { token, body: { status: 'APPROVE', comment: 'Checked by hand.' } });
  expect(reviewed.status, reviewed.text).toBe(200);
  events = await until('the approval to be among the instance\u2019s events', async () => {
    const res = await eventsOf(id, 'size=500');
    const list = res.json.events as EventEnvelope[];
    return list.some((e) => e.type === 'process-instance.completed' && e.data.status === 'COMPLETED_ENDED_SUCCESS') ? list : undefined;
  });
});

afterAll(async () => {
  for (const hookId of Object.values(hooks)) if (hookId) await call('DELETE', `/api/webhook-manager/webhooks/${hookId}`, { token });
  await new Promise((r) => server?.close(r));
});

describe('GET .../processInstances/{id}/events', () => {
  it('lists every event of the journey, oldest first, each the envelope its webhooks receive', async () => {
    expect(events[0]).toMatchObject({ type: 'process-instance.created', tenantId: 'demo', subject: { type: 'process-instance', id }, data: { processInstanceId: id, status: 'PENDING' } });
    const types = events.map((e) => e.type);
    // Created, into REVIEW, reviewed, then out of REVIEW: in that order.
    const intoReview = events.findIndex((e) => e.type === 'process-instance.status-changed' && e.data.status === 'REVIEW');
    const review = types.indexOf('process-instance.reviewed');
    const approved = events.findIndex((e) => e.type === 'process-instance.status-changed' && e.data.status === 'COMPLETED_ENDED_SUCCESS');
    expect(intoReview).toBeGreaterThan(0);
    expect(review).toBeGreaterThan(intoReview);
    expect(approved).toBeGreaterThanOrEqual(review);
    expect(events[review]!.data).toMatchObject({ decision: 'APPROVE', status: 'COMPLETED_ENDED_SUCCESS', previousStatus: 'REVIEW' });
    // In order of time, then id; each once.
    const order = events.map((e) => `${e.timestamp}#${e.id}`);
    expect(order).toEqual([...order].sort());
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    // The very envelopes the relay sent out.
    const relayed = await until('the relay to have sent them all', () => {
      const mine = relayedEvents().filter((e) => e.subject.id === id);
      return mine.length >= events.length ? mine : undefined;
    });
    expect([...events].sort((a, b) => a.id.localeCompare(b.id))).toEqual([...relayed].sort((a, b) => a.id.localeCompare(b.id)));
  });

  it('pages at its edges: one a page, a page of exactly all, one short of all, and the default', async () => {
    const n = events.length;
    expect(n).toBeGreaterThanOrEqual(4);
    const one = await walk((t) => eventsOf(id, `size=1${t ? `&nextToken=${encodeURIComponent(t)}` : ''}`), 'events');
    expect(one.all).toEqual(events);
    expect(one.sizes).toEqual(Array(n).fill(1));
    const exact = await eventsOf(id, `size=${n}`);
    expect(exact.json).toEqual({ events });
    const short = await eventsOf(id, `size=${n - 1}`);
    expect(short.json.events).toEqual(events.slice(0, n - 1));
    const rest = await eventsOf(id, `size=${n - 1}&nextToken=${encodeURIComponent(short.json.nextToken)}`);
    expect(rest.json).toEqual({ events: events.slice(n - 1) });
    expect((await eventsOf(id)).json).toEqual({ events });
  });

  it.each([
    ['size=0', 'VALIDATION_FAILED', 'query.size'],
    ['size=501', 'VALIDATION_FAILED', 'query.size'],
    ['size=many', 'VALIDATION_FAILED', 'query.size'],
    ['nextToken=not-a-token', 'INVALID_CURSOR', 'query.nextToken'],
    ['nextToken=c1.WyJFVlQjMjAyNi0wMS0wMVQwMDowMDowMC4wMDBaI2V2dF8wMUpQQzZNMks4QTNCNEM1RDZFN0Y4RzlIMCJd.AAAAAAAAAAAAAAAAAAAAAA', 'INVALID_CURSOR', 'query.nextToken'],
  ])('rejects %s with 400 %s at %s', async (query, code, location) => {
    const res = await eventsOf(id, query);
    expect(res.status, res.text).toBe(400);
    expect(res.json).toMatchObject({ code, details: [expect.objectContaining({ location })] });
  });

  it("rejects another instance's token, and the deliveries list's token: 400 INVALID_CURSOR", async () => {
    const second = await runJourney(token, definition, {});
    const theirs = await until('the second instance\u2019s events', async () => {
      const res = await eventsOf(second.id, 'size=1');
      return res.json.nextToken as string | undefined;
    });
    expect((await eventsOf(id, `nextToken=${encodeURIComponent(theirs)}`)).json.code).toBe('INVALID_CURSOR');
    const deliveriesToken = (await deliveriesOf(`processInstanceId=${id}&size=1`)).json.nextToken as string;
    expect(deliveriesToken).toBeTruthy();
    expect((await eventsOf(id, `nextToken=${encodeURIComponent(deliveriesToken)}`)).json.code).toBe('INVALID_CURSOR');
  });

  it("rejects when the instance is another tenant's or unknown: 404", async () => {
    const theirs = await eventsOf(id, '', other, 'other');
    expect(theirs.status, theirs.text).toBe(404);
    expect(theirs.json.code).toBe('PROCESS_INSTANCE_NOT_FOUND');
    expect(JSON.stringify(theirs.json)).not.toContain('process-instance.created');
    const unknown = await eventsOf('7d3c1b5a-9e8f-4d6c-8b7a-6f5e4d3c2b1a');
    expect(unknown.status).toBe(404);
    expect((await eventsOf('not-a-uuid')).status).toBe(400);
  });

  it('rejects a key without ProcessManager:getProcessInstanceEvents (one that reads instances): 403', async () => {
    const narrow = await issueToken((await keyWith(['ProcessManager:getProcessInstance'])).secret);
    expect((await call('GET', `${INSTANCES}/${id}`, { token: narrow })).status).toBe(200);
    const res = await eventsOf(id, '', narrow);
    expect(res.status, res.text).toBe(403);
    expect(res.json.code).toBe('MISSING_PERMISSION');
  });
});

describe('GET /api/webhook-manager/deliveries?processInstanceId=', () => {
  /** Deliveries once every one is settled as DELIVERED. */
  const delivered = () =>
    until('every delivery of the instance\u2019s events to be DELIVERED', async () => {
      const res = await deliveriesOf(`processInstanceId=${id}&size=50`);
      expect(res.status, res.text).toBe(200);
      const list = res.json.deliveries as { webhookId: string; eventId: string; status: string }[];
      const expected = events.length + events.filter((e) => e.type === 'process-instance.completed').length;
      return list.length === expected && list.every((d) => d.status === 'DELIVERED') ? list : undefined;
    }, 40_000);

  it("lists each event's delivery to each of the tenant's webhooks, found by key, oldest event first", async () => {
    const list = (await delivered()) as any[];
    expect(list.filter((d) => d.webhookId === hooks.all).map((d) => d.eventId)).toEqual(events.map((e) => e.id));
    expect(list.filter((d) => d.webhookId === hooks.completed).map((d) => d.eventId)).toEqual(events.filter((e) => e.type === 'process-instance.completed').map((e) => e.id));
    const first = list[0];
    expect(first).toMatchObject({ webhookId: hooks.all, eventId: events[0]!.id, eventType: 'process-instance.created', eventTimestamp: events[0]!.timestamp, subjectId: id, status: 'DELIVERED' });
    expect(first.attempts[0]).toMatchObject({ status: 204 });
    // The queues' bookkeeping is not part of it.
    expect(first).not.toHaveProperty('sweepAt');
    expect(first).not.toHaveProperty('tenantId');
    // The same deliveries as each webhook's own log shows.
    const log = await call('GET', `/api/webhook-manager/webhooks/${hooks.completed}/deliveries?size=100`, { token });
    const logged = (log.json.deliveries as { eventId: string; status: string }[]).filter((d) => events.some((e) => e.id === d.eventId));
    expect(logged.map((d) => d.eventId).sort()).toEqual(list.filter((d) => d.webhookId === hooks.completed).map((d) => d.eventId).sort());
  });

  it('pages by events, the token going on after the last event of a page', async () => {
    const all = (await delivered()) as any[];
    const paged = await walk((t) => deliveriesOf(`processInstanceId=${id}&size=1${t ? `&nextToken=${encodeURIComponent(t)}` : ''}`), 'deliveries');
    expect(paged.all).toEqual(all);
    expect(paged.sizes).toHaveLength(events.length);
  });

  it('rejects a key that holds only the events permission: 403; and one with the webhooks read may list them', async () => {
    const eventsOnly = await issueToken((await keyWith(['ProcessManager:getProcessInstanceEvents'])).secret);
    expect((await eventsOf(id, '', eventsOnly)).status).toBe(200);
    const refused = await deliveriesOf(`processInstanceId=${id}`, eventsOnly);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.json.code).toBe('MISSING_PERMISSION');
    const webhooksOnly = await issueToken((await keyWith(['WebhookManager:getWebhooks'])).secret);
    expect((await deliveriesOf(`processInstanceId=${id}`, webhooksOnly)).status).toBe(200);
    expect((await eventsOf(id, '', webhooksOnly)).status).toBe(403);
  });

  it("rejects another tenant's instance (404), and a missing or bad instance id, size or token (400)", async () => {
    const theirs = await deliveriesOf(`processInstanceId=${id}`, other, 'other');
    expect(theirs.status, theirs.text).toBe(404);
    expect(theirs.json.code).toBe('PROCESS_INSTANCE_NOT_FOUND');
    for (const [query, code] of [
      ['', 'VALIDATION_FAILED'],
      ['processInstanceId=nope', 'VALIDATION_FAILED'],
      [`processInstanceId=${id}&size=51`, 'VALIDATION_FAILED'],
      [`processInstanceId=${id}&size=0`, 'VALIDATION_FAILED'],
      [`processInstanceId=${id}&nextToken=x`, 'INVALID_CURSOR'],
    ]) {
      const res = await deliveriesOf(query!);
      expect(res.status, `${query}: ${res.text}`).toBe(400);
      expect(res.json.code, query).toBe(code);
    }
    const eventsToken = (await eventsOf(id, 'size=1')).json.nextToken as string;
    expect((await deliveriesOf(`processInstanceId=${id}&nextToken=${encodeURIComponent(eventsToken)}`)).json.code).toBe('INVALID_CURSOR');
  });
});
