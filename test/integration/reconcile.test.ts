import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, finalStatus, storedInstance, unrecordEnd } from './client.js';

/**
 * The reconciler against the local runtime (it runs every second in the test setup, as the
 * five-minute schedule does on AWS): an instance whose execution's end was recorded by
 * nobody, the journey's last state and the status-change event both lost, gets its final status
 * from the execution as Step Functions (the local engine) tells it.
 */
let token: string;
const fresh = () => Math.random().toString(36).slice(2, 10);

/** A journey that ends at once, deciding REVIEW (no user step). */
async function publishDecider(): Promise<string> {
  const name = `decide-${fresh()}`;
  const res = await call('POST', '/api/process-manager/processDefinitions', {
    token,
    body: {
      name,
      version: 1,
      startActivityId: 'decide',
      activities: { decide: { type: 'SIMPLE_DECIDER', rules: [{ when: { variable: 'vars.vip', equals: 'yes' }, outcome: 'PASS' }], default: 'REVIEW' } },
    },
  });
  expect(res.status, res.text).toBe(201);
  return name;
}

async function start(definition: string): Promise<string> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: { name: `rc-${fresh()}`, processDefnName: definition, processDefnVersion: 1, parameters: { firstName: 'Ann' } },
  });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status, created.text).toBe(201);
  return created.json.processInstanceId as string;
}

async function statusUntil(id: string, done: (s: string) => boolean): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const s = (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.status as string;
    if (done(s)) return s;
    if (Date.now() > deadline) throw new Error(`instance ${id} stayed ${s}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  token = await adminToken();
});

describe('the reconciler', () => {
  it('records the final status of a journey whose end nobody recorded', async () => {
    const id = await start(await publishDecider());
    // Recorded by the journey's own last state.
    expect(await finalStatus(id, token)).toBe('REVIEW');
    const stored = await storedInstance('demo', id);
    // Off the reconciler's index once final.
    expect(stored).not.toHaveProperty('GSI2PK');
    expect(stored).not.toHaveProperty('reconcileAt');

    // Due in 3 s, so that it is seen ACTIVE before the reconciler (every second here) looks.
    await unrecordEnd('demo', id, { status: 'ACTIVE', dueInMs: 3000 });
    expect((await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.status).toBe('ACTIVE');
    expect(await statusUntil(id, (s) => s !== 'ACTIVE')).toBe('REVIEW');
    expect(await storedInstance('demo', id)).not.toHaveProperty('GSI2PK');
  });

  it('ends an instance whose execution does not exist as COMPLETED_PROCESS_ERROR', async () => {
    const id = await start(await publishDecider());
    await finalStatus(id, token);
    const stored = await storedInstance('demo', id);
    await unrecordEnd('demo', id, { status: 'PENDING', stateMachineArn: `${String(stored!.stateMachineArn)}-never-ran` });
    expect(await statusUntil(id, (s) => s !== 'PENDING')).toBe('COMPLETED_PROCESS_ERROR');
  });

  it('asks again later about a journey still running, and leaves it running', async () => {
    // identity-check waits at its first user step.
    const id = await start('identity-check');
    await statusUntil(id, (s) => s === 'PENDING' || s === 'ACTIVE');
    await unrecordEnd('demo', id, { status: 'PENDING' });
    const deadline = Date.now() + 15_000;
    let stored = await storedInstance('demo', id);
    while (Date.now() < deadline && Date.parse(String(stored!.reconcileAt)) < Date.now()) {
      await new Promise((r) => setTimeout(r, 100));
      stored = await storedInstance('demo', id);
    }
    // The first check found it running: the next in about half an hour.
    const next = Date.parse(String(stored!.reconcileAt)) - Date.now();
    expect(next).toBeGreaterThan(25 * 60_000);
    expect(next).toBeLessThanOrEqual(30 * 60_000);
    expect(stored).toMatchObject({ status: 'PENDING', reconcileChecks: 1 });
    expect(stored!.GSI2PK).toMatch(/^TNT#demo#OPEN#\d{2}$/);
    // The instance read shows none of it.
    const read = await call('GET', `/api/process-manager/processInstances/${id}`, { token });
    expect(read.json).not.toHaveProperty('reconcileAt');
  });
});
