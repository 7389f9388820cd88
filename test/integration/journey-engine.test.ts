import { afterAll, describe, expect, it } from 'vitest';
import { localBus } from '../../lib/local/events.js';
import { completeUserStep } from '../../functions/journey/steps.js';
import { orchestrator } from '../../functions/process-manager/executions/orchestrator.js';
import { processInstanceStore } from '../../functions/store/process-instances.js';
import type { EventEnvelope } from '../../functions/shared/events.js';
import { call } from './client.js';
import { inProcessRuntime, until, waitingAt } from './in-process.js';
import { SESSION_MAX_BYTES, sessionBytes } from '../../functions/shared/session-limit.js';
import { mockClient } from 'aws-sdk-client-mock';
import { SFNClient, SFNServiceException, SendTaskSuccessCommand } from '@aws-sdk/client-sfn';
import { stepFunctionsOrchestrator } from '../../functions/process-manager/executions/step-functions.js';

/**
 * The local runtime in this test's own process, so that user steps can be completed through
 * the same internal call the hosted pages will use (completeUserStep), while the backend side
 * still goes over HTTP.
 */
const events: EventEnvelope[] = [];
const context = inProcessRuntime('journey', () => localBus.on('event', (e: EventEnvelope) => events.push(e)));

async function startJourney(definition: string): Promise<string> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    port: context.runtime().port,
    token: context.token(),
    body: { name: `j-${Math.random().toString(36).slice(2)}`, processDefnName: definition, processDefnVersion: 1, parameters: { firstName: 'Ann', externalId: 'ext-1' } },
  });
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { port: context.runtime().port, token: context.token() });
  expect(created.status).toBe(201);
  return created.json.processInstanceId;
}

const statusOf = async (id: string) => (await call('GET', `/api/process-manager/processInstances/${id}`, { port: context.runtime().port, token: context.token() })).json.status;
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
    // The status and its events are written together; the relay takes them from the table's stream.
    const mine = await until('the completed event', async () => {
      const found = events.filter((e) => e.subject.id === id);
      return found.some((e) => e.type === 'process-instance.completed') ? found : undefined;
    });
    expect(
      mine.map((e) =>
        e.type === 'process-instance.step-changed' ? `step ${e.data.activityId}` : e.data.previousStatus ? `${e.data.previousStatus}->${e.data.status}` : `${e.type} ${e.data.status}`,
      ),
    ).toEqual([
      'process-instance.created PENDING',
      'step personalDetails',
      'step captureFace',
      'PENDING->COMPLETED_ENDED_SUCCESS',
      'process-instance.completed COMPLETED_ENDED_SUCCESS',
    ]);
    // Ids and statuses only: none of what the end user gave (the capture's location, its check).
    expect(JSON.stringify(mine)).not.toContain('face.jpg');
    expect(new Set(mine.map((e) => e.id)).size).toBe(mine.length);
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

  it("refuses a step result that would make the session larger than its cap, and keeps the step waiting for a smaller one", async () => {
    const id = await startJourney('identity-check');
    const resumer = await orchestrator();
    const waiting = await waitingAt(id, 'personalDetails');
    // Just over the cap once merged into the session the step began with.
    const pad = SESSION_MAX_BYTES - sessionBytes({ ...waiting.state, vars: { ...(waiting.state.vars as object), notes: '' } }) + 1;
    await expect(
      completeUserStep({ tenantId: 'demo', processInstanceId: id, activityId: 'personalDetails', result: { vars: { notes: 'é'.repeat(Math.ceil(pad / 2)) } } }, resumer, new Date()),
    ).rejects.toMatchObject({ code: 'SESSION_TOO_LARGE', statusCode: 413 });
    expect((await processInstanceStore.get('demo', id))?.currentStep?.taskToken).toBe(waiting.taskToken);
    // At the cap exactly, it goes on.
    const fits = 'x'.repeat(SESSION_MAX_BYTES - sessionBytes({ ...waiting.state, vars: { ...(waiting.state.vars as object), notes: '' } }));
    await completeUserStep({ tenantId: 'demo', processInstanceId: id, activityId: 'personalDetails', result: { vars: { notes: fits } } }, resumer, new Date());
    const next = await waitingAt(id, 'captureFace');
    expect(sessionBytes(next.state)).toBe(SESSION_MAX_BYTES);
  });

  it('ends COMPLETED_TERMINATED when its execution is stopped (abandoned)', async () => {
    const id = await startJourney('identity-check');
    await waitingAt(id, 'personalDetails');
    const execution = context.runtime().engine.waitingTasks().find((t) => t.executionArn.endsWith(`:${id}`));
    expect(execution).toBeDefined();
    context.runtime().engine.stopExecution(execution!.executionArn);
    expect(await finalStatus(id)).toBe('COMPLETED_TERMINATED');
  });
});

describe('a journey that reaches a service activity this build cannot run', () => {
  it('ends COMPLETED_PROCESS_ERROR', async () => {
    const id = await startJourney('passcode-registration');
    expect(await finalStatus(id)).toBe('COMPLETED_PROCESS_ERROR');
  });
});

/**
 * SendTaskSuccess on AWS (the Step Functions orchestrator, its SFN client mocked) against the
 * real store and the local engine: the mock fails the way Step Functions does, or hands the
 * output to the engine as Step Functions would.
 */
describe('a user step whose hand-over to Step Functions fails', () => {
  const sfn = mockClient(SFNClient);
  afterAll(() => sfn.restore());
  const throttled = () =>
    new SFNServiceException({ name: 'ThrottlingException', message: 'Rate exceeded', $fault: 'client', $metadata: { httpStatusCode: 400 } });
  const noAnswer = () => Object.assign(new Error('socket hang up'), { name: 'TimeoutError', code: 'ETIMEDOUT' });
  const deliver = (input: { taskToken?: string; output?: string }) => {
    context.runtime().engine.sendTaskSuccess(input.taskToken!, JSON.parse(input.output!));
    return {};
  };
  const details = (firstName: string) => ({
    tenantId: 'demo',
    activityId: 'personalDetails',
    result: { vars: { personalDetails: { firstName } } },
    values: { firstName },
    dataKey: 'personalDetails',
  });

  async function startWithLink(): Promise<{ id: string; c: string }> {
    const pt = await call('POST', '/api/process-manager/processTokens', {
      port: context.runtime().port,
      token: context.token(),
      body: { name: `j-${Math.random().toString(36).slice(2)}`, processDefnName: 'identity-check', processDefnVersion: 1, parameters: { firstName: 'Ann' } },
    });
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { port: context.runtime().port, token: context.token() });
    return { id: created.json.processInstanceId, c: new URL(created.json.redirectUrl).searchParams.get('c')! };
  }

  it('answers 503 to a throttled SendTaskSuccess and leaves the step waiting; the next submission completes it', async () => {
    sfn.reset();
    sfn.on(SendTaskSuccessCommand).rejectsOnce(throttled()).callsFake(deliver);
    const id = await startJourney('identity-check');
    const step = await waitingAt(id, 'personalDetails');
    const resumer = stepFunctionsOrchestrator();

    await expect(completeUserStep({ ...details('Ann'), processInstanceId: id }, resumer, new Date())).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      statusCode: 503,
    });
    // Nothing was taken: the step still waits, unclaimed, and nothing is recorded as given.
    const after = await processInstanceStore.get('demo', id);
    expect(after?.currentStep).toMatchObject({ activityId: 'personalDetails', taskToken: step.taskToken });
    expect(after?.currentStep?.claim).toBeUndefined();
    expect(await processInstanceStore.listUserData('demo', id)).toEqual([]);
    expect(context.runtime().engine.waitingTasks().map((t) => t.taskToken)).toContain(step.taskToken);

    // Judged afresh: the end user may send something else.
    await completeUserStep({ ...details('Anna'), processInstanceId: id }, resumer, new Date());
    const next = await waitingAt(id, 'captureFace');
    expect(next.state.vars).toMatchObject({ personalDetails: { firstName: 'Anna' } });
    expect((await processInstanceStore.listUserData('demo', id)).map((d) => d.values)).toEqual([{ firstName: 'Anna' }]);
    expect(sfn.commandCalls(SendTaskSuccessCommand)).toHaveLength(2);
  });

  it('hands over the first accepted result again when Step Functions did not answer, whatever the next submission says', async () => {
    sfn.reset();
    sfn.on(SendTaskSuccessCommand).rejectsOnce(noAnswer()).callsFake(deliver);
    const id = await startJourney('identity-check');
    await waitingAt(id, 'personalDetails');
    const resumer = stepFunctionsOrchestrator();

    await expect(completeUserStep({ ...details('Ann'), processInstanceId: id }, resumer, new Date())).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect((await processInstanceStore.get('demo', id))?.currentStep?.claim).toMatchObject({ outcome: 'complete' });

    await completeUserStep({ ...details('Someone else'), processInstanceId: id }, resumer, new Date());
    const next = await waitingAt(id, 'captureFace');
    expect(next.state.vars).toMatchObject({ personalDetails: { firstName: 'Ann' } });
    expect((await processInstanceStore.listUserData('demo', id)).map((d) => d.values)).toEqual([{ firstName: 'Ann' }]);
    expect(await processInstanceStore.getStepClaim('demo', id, 'personalDetails')).toBeUndefined();
  });

  it('finishes a step whose result reached Step Functions though the answer was lost, when the end user sends it again', async () => {
    sfn.reset();
    // Step Functions takes the result; its answer never arrives.
    sfn.on(SendTaskSuccessCommand).callsFakeOnce((input) => {
      deliver(input);
      throw noAnswer();
    });
    const { id, c } = await startWithLink();
    await waitingAt(id, 'personalDetails');

    await expect(completeUserStep({ ...details('Ann'), processInstanceId: id }, stepFunctionsOrchestrator(), new Date())).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    // The journey went on; what the end user gave is not recorded yet.
    await waitingAt(id, 'captureFace');
    expect(await processInstanceStore.listUserData('demo', id)).toEqual([]);

    const again = await call('POST', `/journey/${id}/steps/personalDetails?c=${c}&lang=en`, {
      port: context.runtime().port,
      rawBody: 'firstName=Ann&lastName=Lee&dateOfBirth=1990-05-17',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(again.status).toBe(303);
    expect((await processInstanceStore.listUserData('demo', id)).map((d) => d.values)).toEqual([{ firstName: 'Ann' }]);
    expect((await processInstanceStore.get('demo', id))?.currentStep?.activityId).toBe('captureFace');
  });
});
