import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../lib/local/runtime.js';
import { localBus } from '../../lib/local/events.js';
import { completeUserStep } from '../../functions/journey/steps.js';
import { orchestrator } from '../../functions/process-manager/orchestrator.js';
import { processInstanceStore } from '../../functions/store/process-instances.js';
import type { InstanceEvent } from '../../functions/events/publisher.js';
import { call } from './client.js';

/**
 * The local runtime in this test's own process, so that user steps can be completed through
 * the same internal call the hosted pages will use (completeUserStep), while the backend side
 * still goes over HTTP.
 */
const dir = mkdtempSync(join(tmpdir(), 'arthr-journey-'));
let runtime: LocalRuntime;
let token: string;
const events: InstanceEvent[] = [];

beforeAll(async () => {
  runtime = await startLocalRuntime({ localDir: dir, port: 0 });
  localBus.on('event', (e: InstanceEvent) => events.push(e));
  const issued = await call('POST', '/api/arthr/apiKeys/issue', { port: runtime.port, apiKey: runtime.bootstrap!.apiKey, body: {} });
  token = issued.json.token;
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function startJourney(definition: string): Promise<string> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    port: runtime.port,
    token,
    body: { name: `j-${Math.random().toString(36).slice(2)}`, processDefnName: definition, processDefnVersion: 1, parameters: { firstName: 'Ann', externalId: 'ext-1' } },
  });
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { port: runtime.port, token });
  expect(created.status).toBe(201);
  return created.json.processInstanceId;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const waitingAt = (id: string, activityId: string) =>
  until(`the journey to wait at ${activityId}`, async () => {
    const r = await processInstanceStore.get('demo', id);
    return r?.currentStep?.activityId === activityId ? r.currentStep : undefined;
  });

const statusOf = async (id: string) => (await call('GET', `/api/process-manager/processInstances/${id}`, { port: runtime.port, token })).json.status;
const finalStatus = (id: string) =>
  until('the instance to end', async () => {
    const s = await statusOf(id);
    return s === 'PENDING' || s === 'ACTIVE' ? undefined : s;
  });

describe('an identity-check journey', () => {
  it('waits at each user step, resumes on completion and ends COMPLETED_ENDED_SUCCESS when the face check passed', async () => {
    const id = await startJourney('identity-check');
    const form = await waitingAt(id, 'personalDetails');
    expect(form.activityType).toBe('DATA_FORM');
    expect(form.state.parameters).toMatchObject({ firstName: 'Ann' });
    const resumer = await orchestrator();
    await completeUserStep(
      { tenantId: 'demo', processInstanceId: id, activityId: 'personalDetails', result: { vars: { personalDetails: { firstName: 'Ann', lastName: 'Lee', dateOfBirth: '1990-01-01' } } } },
      resumer,
      new Date(),
    );
    await waitingAt(id, 'captureFace');
    await completeUserStep(
      { tenantId: 'demo', processInstanceId: id, activityId: 'captureFace', result: { _faces: { face: { captures: ['s3://demo/face.jpg'] } }, _checks: { face: { result: 'PASS' } } } },
      resumer,
      new Date(),
    );
    expect(await finalStatus(id)).toBe('COMPLETED_ENDED_SUCCESS');
    // The status is written, then the event published: wait for the event.
    const mine = await until('the status event', async () => {
      const found = events.filter((e) => e.processInstanceId === id);
      return found.some((e) => e.type === 'ProcessInstanceStatusChanged') ? found : undefined;
    });
    expect(mine.map((e) => (e.type === 'ProcessInstanceStatusChanged' ? `${e.previousStatus}->${e.status}` : `step ${e.activityId}`))).toEqual([
      'step personalDetails',
      'step captureFace',
      'PENDING->COMPLETED_ENDED_SUCCESS',
    ]);
  });

  it('ends REVIEW when the face check did not pass', async () => {
    const id = await startJourney('identity-check');
    const resumer = await orchestrator();
    await waitingAt(id, 'personalDetails');
    await completeUserStep({ tenantId: 'demo', processInstanceId: id, activityId: 'personalDetails', result: {} }, resumer, new Date());
    await waitingAt(id, 'captureFace');
    await completeUserStep({ tenantId: 'demo', processInstanceId: id, activityId: 'captureFace', result: { _checks: { face: { result: 'FAIL' } } } }, resumer, new Date());
    expect(await finalStatus(id)).toBe('REVIEW');
  });

  it('completes a step at most once and only the step the journey waits at', async () => {
    const id = await startJourney('identity-check');
    const resumer = await orchestrator();
    await waitingAt(id, 'personalDetails');
    await expect(
      completeUserStep({ tenantId: 'demo', processInstanceId: id, activityId: 'captureFace', result: {} }, resumer, new Date()),
    ).rejects.toMatchObject({ code: 'STEP_NOT_WAITING' });
    await completeUserStep({ tenantId: 'demo', processInstanceId: id, activityId: 'personalDetails', result: {} }, resumer, new Date());
    await expect(
      completeUserStep({ tenantId: 'demo', processInstanceId: id, activityId: 'personalDetails', result: {} }, resumer, new Date()),
    ).rejects.toMatchObject({ code: 'STEP_NOT_WAITING' });
    await expect(
      completeUserStep({ tenantId: 'other', processInstanceId: id, activityId: 'captureFace', result: {} }, resumer, new Date()),
    ).rejects.toMatchObject({ statusCode: 404 });
  });

  it('ends COMPLETED_TERMINATED when its execution is stopped (abandoned)', async () => {
    const id = await startJourney('identity-check');
    await waitingAt(id, 'personalDetails');
    const execution = runtime.engine.waitingTasks().find((t) => t.executionArn.endsWith(`:${id}`));
    expect(execution).toBeDefined();
    runtime.engine.stopExecution(execution!.executionArn);
    expect(await finalStatus(id)).toBe('COMPLETED_TERMINATED');
  });
});

describe('a journey that reaches a service activity this build cannot run', () => {
  it('ends COMPLETED_PROCESS_ERROR', async () => {
    const id = await startJourney('passcode-registration');
    expect(await finalStatus(id)).toBe('COMPLETED_PROCESS_ERROR');
  });
});
