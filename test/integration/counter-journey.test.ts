import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, latestSession, runJourney } from './client.js';

/** Counter v1 in a journey, over HTTP: it counts passes for a gateway to read. */
const fresh = () => Math.random().toString(36).slice(2, 10);
let token: string;

beforeAll(async () => {
  token = await adminToken();
});

/** Two passes through a counter, then a gateway on the count: PASS when it is 2, REVIEW otherwise. */
const journey = (name: string) => ({
  name,
  version: 1,
  retentionDays: 1,
  startActivityId: 'first',
  activities: {
    first: { type: 'COUNTER_V1', inputs: { 'Counter Name': 'visits' }, next: 'second' },
    second: { type: 'COUNTER_V1', inputs: { 'Counter Name': 'visits' }, next: 'route' },
    pass: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
    review: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'REVIEW' } },
  },
  gateways: { route: { name: 'Twice?', branches: [{ when: '${visits == 2}', next: 'pass' }], default: 'review' } },
});

const run = (definition: string, parameters: Record<string, string>) => runJourney(token, definition, parameters);

describe('Counter v1', () => {
  it('counts each pass for a gateway to read, and counts on from a token parameter of its name', async () => {
    const definition = `counter-${fresh()}`;
    const published = await call('POST', '/api/process-manager/processDefinitions', { token, body: journey(definition) });
    expect(published.status, published.text).toBe(201);

    const fromNothing = await run(definition, {});
    expect(fromNothing.status).toBe('COMPLETED_ENDED_SUCCESS');
    expect((await latestSession('demo', fromNothing.id)).vars).toMatchObject({ visits: 2 });

    const fromFive = await run(definition, { visits: '5' });
    expect(fromFive.status).toBe('REVIEW');
    expect((await latestSession('demo', fromFive.id)).vars).toMatchObject({ visits: 7 });
  });

  it('refuses at publish a counter whose name is no variable name', async () => {
    const bad = journey(`counter-${fresh()}`);
    bad.activities.first.inputs['Counter Name'] = 'two words';
    const res = await call('POST', '/api/process-manager/processDefinitions', { token, body: bad });
    expect(res.status, res.text).toBe(400);
    expect(res.text).toContain('Counter Name');
  });
});
