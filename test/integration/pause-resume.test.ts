import { beforeAll, describe, expect, inject, it } from 'vitest';
import { adminToken, call, finalStatus, issueToken, keyWith, latestSession, pageUntil, type CallOptions } from './client.js';
import { tampered as tamperedSecret } from '../support/tamper.js';

/**
 * Pause and resume over HTTP, as a relying party and its end users use them: a journey pauses
 * (Pause Instance: PAUSED, a resume URL in its data), waits (Waiting for Resume, with a timer),
 * and goes on once when the resume URL is opened or the resume API is called; a second resume,
 * a tampered link and another tenant's instance change nothing.
 */
let token: string;
const fresh = () => Math.random().toString(36).slice(2, 10);
const INSTANCES = '/api/process-manager/processInstances';

beforeAll(async () => {
  token = await adminToken();
});

/** A form, the pause (with the family's output parameter), the wait with its timer, then PASS (resumed) or FAIL (timed out). */
const journey = (name: string, timer: string) => ({
  name,
  version: 1,
  retentionDays: 1,
  startActivityId: 'details',
  activities: {
    details: {
      type: 'DATA_FORM',
      inputs: {
        'Form data Key': 'details',
        Form: {
          title: { values: { en: 'Your details' } },
          components: [{ type: 'textfield', id: 'firstName', label: { values: { en: 'First name' } }, validate: { required: true } }],
        },
      },
      next: 'pause',
    },
    pause: { type: 'PAUSE_INSTANCE', outputs: { _resumeUrl: '${resumeUrl}' }, next: 'wait' },
    wait: { type: 'WAIT_RESUME_INSTANCE', timer: { id: 'Event_resumeTimeout', duration: timer, next: 'timedOut' }, next: 'resumed' },
    resumed: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
    timedOut: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'FAIL' } },
  },
});

/** The family's shape in BPMN: the pause first (its output parameter), the wait with its start and end listeners and a timer. */
const BPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="Definitions_pause" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="Process_pause" isExecutable="true">
    <bpmn:startEvent id="StartEvent_1"><bpmn:outgoing>Flow_start</bpmn:outgoing></bpmn:startEvent>
    <bpmn:sequenceFlow id="Flow_start" sourceRef="StartEvent_1" targetRef="Activity_pause" />
    <bpmn:serviceTask id="Activity_pause" name="Pause Instance Activity" camunda:delegateExpression="\${pauseInstance}">
      <bpmn:extensionElements>
        <camunda:inputOutput>
          <camunda:outputParameter name="_resumeUrl">\${resumeUrl}</camunda:outputParameter>
        </camunda:inputOutput>
      </bpmn:extensionElements>
      <bpmn:incoming>Flow_start</bpmn:incoming>
      <bpmn:outgoing>Flow_toWait</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="Flow_toWait" sourceRef="Activity_pause" targetRef="Activity_wait" />
    <bpmn:serviceTask id="Activity_wait" name="Waiting for Resume" camunda:type="external" camunda:topic="userTask">
      <bpmn:extensionElements>
        <camunda:executionListener delegateExpression="\${waitResumeInstance}" event="start" />
        <camunda:executionListener delegateExpression="\${waitResumeInstanceEnd}" event="end" />
      </bpmn:extensionElements>
      <bpmn:incoming>Flow_toWait</bpmn:incoming>
      <bpmn:outgoing>Flow_resumed</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:boundaryEvent id="Event_resumeTimeout" name="30 minutes" attachedToRef="Activity_wait">
      <bpmn:outgoing>Flow_timedOut</bpmn:outgoing>
      <bpmn:timerEventDefinition id="TimerEventDefinition_resume">
        <bpmn:timeDuration xsi:type="bpmn:tFormalExpression">PT30M</bpmn:timeDuration>
      </bpmn:timerEventDefinition>
    </bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="Flow_resumed" sourceRef="Activity_wait" targetRef="EndEvent_done" />
    <bpmn:sequenceFlow id="Flow_timedOut" sourceRef="Event_resumeTimeout" targetRef="EndEvent_timedOut" />
    <bpmn:endEvent id="EndEvent_done"><bpmn:incoming>Flow_resumed</bpmn:incoming></bpmn:endEvent>
    <bpmn:endEvent id="EndEvent_timedOut">
      <bpmn:incoming>Flow_timedOut</bpmn:incoming>
      <bpmn:errorEventDefinition id="ErrorEventDefinition_timedOut" errorRef="Error_timedOut" />
    </bpmn:endEvent>
  </bpmn:process>
  <bpmn:error id="Error_timedOut" name="Not resumed" errorCode="notResumed" />
</bpmn:definitions>
`;

async function publish(body: object): Promise<void> {
  const res = await call('POST', '/api/process-manager/processDefinitions', { token, body });
  expect(res.status, res.text).toBe(201);
}

/** A process token and an instance of a definition's version 1: the instance id, its definition id and its journey page. */
async function start(definition: string) {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: { name: `${definition}-${fresh()}`, processDefnName: definition, processDefnVersion: '1', parameters: { firstName: 'Ann' } },
  });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `${INSTANCES}/create?pt=${pt.json.id}`, { token });
  expect(created.status, created.text).toBe(201);
  const id = created.json.processInstanceId as string;
  const url = new URL(created.json.redirectUrl as string);
  const read = await call('GET', `${INSTANCES}/${id}`, { token });
  return { id, defnId: read.json.processDefnId as string, page: `${url.pathname}${url.search}`, capability: url.searchParams.get('c')! };
}

const status = async (id: string) => (await call('GET', `${INSTANCES}/${id}`, { token })).json.status as string;

async function statusUntil(id: string, wanted: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const s = await status(id);
    if (s === wanted) return;
    if (Date.now() > deadline) throw new Error(`instance ${id} stayed ${s}, not ${wanted}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The resume URL as the relying party reads it: in the Pause Instance step's user data. */
async function resumeUrlOf(defnId: string, id: string): Promise<URL> {
  const data = await call('GET', `/api/userdata-server/processDefinitions/${defnId}/processInstances/${id}/userdata`, { token });
  expect(data.status, data.text).toBe(200);
  const step = (data.json.steps as { activityType: string; values: { resumeUrl?: string } }[]).find((s) => s.activityType === 'PAUSE_INSTANCE');
  expect(step?.values.resumeUrl, JSON.stringify(data.json.steps)).toBeDefined();
  return new URL(step!.values.resumeUrl!);
}

/** Opens a URL of the service the way a browser would, on its own host (no redirect followed). */
const open = (url: URL, opts: CallOptions = {}) => call('GET', `${url.pathname}${url.search}`, { host: url.host, ...opts });

const submit = (page: { id: string; capability: string }, values: Record<string, string>) =>
  call('POST', `/journey/${page.id}/steps/details?c=${page.capability}`, {
    rawBody: new URLSearchParams(values).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

describe('Pause Instance and Waiting for Resume', () => {
  it('pause after the form with a resume URL, which resumes the journey once and brings the end user back', async () => {
    const definition = `pause-${fresh()}`;
    await publish(journey(definition, 'PT10M'));
    const j = await start(definition);
    await pageUntil(j.page, 'Your details');
    // Not paused yet: the resume API has nothing to resume.
    const early = await call('POST', `${INSTANCES}/${j.id}/resume`, { token });
    expect(early.status, early.text).toBe(409);
    expect(early.json.code).toBe('INSTANCE_NOT_PAUSED');

    expect((await submit(j, { firstName: 'Ann' })).status).toBe(303);
    await statusUntil(j.id, 'PAUSED');
    const resume = await resumeUrlOf(j.defnId, j.id);
    expect(resume.origin).toBe(`http://demo.fir.localhost:${inject('port')}`);
    expect(resume.pathname).toBe(`/journey/${j.id}/resume`);
    expect(resume.searchParams.get('r')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The variable the activity sets, and the family's output parameter's copy of it.
    const paused = await latestSession('demo', j.id);
    expect(paused.vars).toMatchObject({ resumeUrl: resume.href, _resumeUrl: resume.href });
    // The instance keeps only the secret's hash.
    expect(JSON.stringify(await call('GET', `${INSTANCES}/${j.id}/withParameters`, { token }))).not.toContain(resume.searchParams.get('r'));

    // The end user's page, still open, says the journey is paused.
    await pageUntil(j.page, 'This journey is paused');

    // A tampered secret, and the link on another tenant's host: not found, nothing changed.
    const tampered = new URL(resume);
    tampered.searchParams.set('r', tamperedSecret(resume.searchParams.get('r')!, 2));
    expect((await open(tampered)).status).toBe(404);
    const elsewhere = new URL(resume);
    elsewhere.host = `other.fir.localhost:${inject('port')}`;
    expect((await open(elsewhere)).status).toBe(404);
    expect(await status(j.id)).toBe('PAUSED');

    // Opened: on to the journey page, with a journey link of its own; the journey goes on and ends.
    const opened = await open(resume);
    expect(opened.status, opened.text).toBe(303);
    const onward = new URL(String(opened.headers.location), resume);
    expect(onward.pathname).toBe(`/journey/${j.id}`);
    const c = onward.searchParams.get('c')!;
    expect(c).not.toBe(j.capability);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    expect((await call('GET', `${onward.pathname}${onward.search}`)).text).toContain('You have completed this journey');
    // The first journey link keeps working.
    expect((await call('GET', j.page)).status).toBe(200);

    // A second use, by the link or the API: refused, nothing changed.
    const again = await open(resume);
    expect(again.status).toBe(410);
    const api = await call('POST', `${INSTANCES}/${j.id}/resume`, { token });
    expect(api.status, api.text).toBe(410);
    expect(api.json.code).toBe('RESUME_ALREADY_USED');
    expect(await status(j.id)).toBe('COMPLETED_ENDED_SUCCESS');

    const data = await call('GET', `/api/userdata-server/processDefinitions/${j.defnId}/processInstances/${j.id}/userdata`, { token });
    expect(data.json.steps.find((s: { activityType: string }) => s.activityType === 'WAIT_RESUME_INSTANCE')?.values).toMatchObject({ resumedBy: 'link' });
  });

  it('resumes by the API once, as the family\'s BPMN draws it; for the instance\'s own tenant and with the permission only', async () => {
    const definition = `pause-bpmn-${fresh()}`;
    const uploaded = await call('POST', '/api/process-manager/processDefinitions', {
      token,
      body: { name: definition, serverType: 'CAMUNDA', resources: { bpmn: { data: Buffer.from(BPMN).toString('base64'), type: 'BPMN' } } },
    });
    expect(uploaded.status, uploaded.text).toBe(201);
    expect(uploaded.json.activities).toMatchObject({
      Activity_pause: { type: 'PAUSE_INSTANCE', outputs: { _resumeUrl: '${resumeUrl}' } },
      Activity_wait: { type: 'WAIT_RESUME_INSTANCE', timer: { id: 'Event_resumeTimeout', duration: 'PT30M' } },
    });
    expect((await call('POST', `/api/process-manager/processDefinitions/${uploaded.json.id}/status/DEPLOYED_ACTIVE`, { token })).status).toBe(200);
    const exported = await call('GET', `/api/process-manager/processDefinitions/${uploaded.json.id}/bpmnFile`, { token });
    expect(exported.text).toContain('${waitResumeInstanceEnd}');

    const j = await start(definition);
    await statusUntil(j.id, 'PAUSED');
    const resume = await resumeUrlOf(j.defnId, j.id);

    const other = await issueToken(inject('otherKey'), 'other');
    const fromOther = await call('POST', `${INSTANCES}/${j.id}/resume`, { tenant: 'other', token: other });
    expect(fromOther.status).toBe(404);
    const reader = await keyWith(['ProcessManager:getProcessInstance']);
    const readerToken = await issueToken(reader.secret);
    const forbidden = await call('POST', `${INSTANCES}/${j.id}/resume`, { token: readerToken });
    expect(forbidden.status).toBe(403);
    expect(await status(j.id)).toBe('PAUSED');

    const resumed = await call('POST', `${INSTANCES}/${j.id}/resume`, { token });
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.json).toMatchObject({ id: j.id, status: 'ACTIVE' });
    const onward = new URL(resumed.json.redirectUrl as string);
    expect(onward.pathname).toBe(`/journey/${j.id}`);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    expect((await call('GET', `${onward.pathname}${onward.search}`)).status).toBe(200);

    const twice = await call('POST', `${INSTANCES}/${j.id}/resume`, { token });
    expect(twice.status).toBe(410);
    expect(twice.json.code).toBe('RESUME_ALREADY_USED');
    expect((await open(resume)).status).toBe(410);
  });

  it('takes the timer route when nobody resumes, after which the resume URL no longer resumes anything', async () => {
    const definition = `pause-timer-${fresh()}`;
    await publish(journey(definition, 'PT10S'));
    const j = await start(definition);
    await pageUntil(j.page, 'Your details');
    expect((await submit(j, { firstName: 'Ann' })).status).toBe(303);
    await statusUntil(j.id, 'PAUSED');
    const resume = await resumeUrlOf(j.defnId, j.id);
    const deadline = Date.now() + 30_000;
    while ((await status(j.id)) === 'PAUSED' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(await status(j.id)).toBe('COMPLETED_ENDED_ERROR');
    const late = await open(resume);
    expect(late.status).toBe(410);
    const api = await call('POST', `${INSTANCES}/${j.id}/resume`, { token });
    expect(api.json.code).toBe('RESUME_EXPIRED');
  }, 45_000);
});
