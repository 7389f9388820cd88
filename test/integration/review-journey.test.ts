import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { EventEnvelope } from '../../functions/shared/events.js';
import { adminToken, call, issueToken, keyWith, latestSession, pageUntil, relayedEvents, until } from './client.js';

/**
 * The family's manual-review tail over HTTP: a decider says REVIEW, a gateway on `_decision` leads
 * to Review Required, Process Instance Review Status Report and Waiting for B/O review (with its
 * timer), and a reviewer decides through POST .../processInstances/{id}/review.
 */
const BASE = '/api/process-manager/processDefinitions';
const fresh = () => Math.random().toString(36).slice(2, 10);
let token: string;
let reviewer: { id: string; token: string };
beforeAll(async () => {
  token = await adminToken();
  const { id, secret } = await keyWith(['ProcessManager:reviewProcessInstance', 'ProcessManager:getProcessInstance']);
  reviewer = { id, token: await issueToken(secret) };
});

/**
 * As the family's designer draws it (its beans, palette codes and parameter names): a token
 * parameter `channel` of "direct" ends the journey in REVIEW with no review step; otherwise the
 * decider's REVIEW leads to the tail, whose wait has a timer. After the wait a Counter stands in
 * for the family's Write Summary Report (`reviewed`), and the timer's route counts `timedOut`.
 */
const TAIL = (timer: string) => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="Definitions_review" targetNamespace="http://bpmn.io/schema/bpmn" exporter="Camunda Modeler" exporterVersion="5.19.0">
  <bpmn:process id="Process_review" name="Manual review" isExecutable="true">
    <bpmn:startEvent id="StartEvent_1"><bpmn:outgoing>Flow_start</bpmn:outgoing></bpmn:startEvent>
    <bpmn:sequenceFlow id="Flow_start" sourceRef="StartEvent_1" targetRef="Gateway_channel" />
    <bpmn:exclusiveGateway id="Gateway_channel" default="Flow_tail">
      <bpmn:incoming>Flow_start</bpmn:incoming><bpmn:outgoing>Flow_direct</bpmn:outgoing><bpmn:outgoing>Flow_tail</bpmn:outgoing>
    </bpmn:exclusiveGateway>
    <bpmn:sequenceFlow id="Flow_direct" sourceRef="Gateway_channel" targetRef="Activity_directReview">
      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">\${channel == "direct"}</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="Flow_tail" sourceRef="Gateway_channel" targetRef="Activity_decide" />
    <bpmn:serviceTask id="Activity_directReview" name="Simple Decider" camunda:delegateExpression="\${activityOutcomeDeciderV1}">
      <bpmn:extensionElements><camunda:inputOutput><camunda:inputParameter name="outcome" labelName="Outcome" type="ENUM">REVIEW</camunda:inputParameter></camunda:inputOutput></bpmn:extensionElements>
      <bpmn:incoming>Flow_direct</bpmn:incoming><bpmn:outgoing>Flow_directEnd</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="Flow_directEnd" sourceRef="Activity_directReview" targetRef="End_done" />
    <bpmn:serviceTask id="Activity_decide" name="Simple Decider" camunda:delegateExpression="\${activityOutcomeDeciderV1}">
      <bpmn:extensionElements><camunda:inputOutput><camunda:inputParameter name="outcome" labelName="Outcome" type="ENUM">REVIEW</camunda:inputParameter></camunda:inputOutput></bpmn:extensionElements>
      <bpmn:incoming>Flow_tail</bpmn:incoming><bpmn:outgoing>Flow_decided</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="Flow_decided" sourceRef="Activity_decide" targetRef="Gateway_review" />
    <bpmn:exclusiveGateway id="Gateway_review" default="Flow_noReview">
      <bpmn:incoming>Flow_decided</bpmn:incoming><bpmn:outgoing>Flow_review</bpmn:outgoing><bpmn:outgoing>Flow_noReview</bpmn:outgoing>
    </bpmn:exclusiveGateway>
    <bpmn:sequenceFlow id="Flow_review" sourceRef="Gateway_review" targetRef="Activity_reviewRequired">
      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">\${_decision == "REVIEW"}</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="Flow_noReview" sourceRef="Gateway_review" targetRef="End_done" />
    <bpmn:serviceTask id="Activity_reviewRequired" name="Review Required" camunda:delegateExpression="\${reviewRequired}">
      <bpmn:extensionElements>
        <camunda:properties><camunda:property name="skyId" value="RRD01-1" /></camunda:properties>
        <camunda:inputOutput>
          <camunda:inputParameter name="screenId" labelName="UI Component Id" type="STRING">review</camunda:inputParameter>
          <camunda:inputParameter name="screens" labelName="List of Screens" type="LIST_STRING"><camunda:list><camunda:value>thank-you</camunda:value></camunda:list></camunda:inputParameter>
          <camunda:inputParameter name="stepId" labelName="Starting component ID" type="STRING">review</camunda:inputParameter>
        </camunda:inputOutput>
      </bpmn:extensionElements>
      <bpmn:incoming>Flow_review</bpmn:incoming><bpmn:outgoing>Flow_toStatus</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="Flow_toStatus" sourceRef="Activity_reviewRequired" targetRef="Activity_reviewStatus" />
    <bpmn:serviceTask id="Activity_reviewStatus" name="Process Instance Review Status Report" camunda:delegateExpression="\${writeReviewStatus}">
      <bpmn:extensionElements><camunda:properties><camunda:property name="skyId" value="RSR01-1" /></camunda:properties></bpmn:extensionElements>
      <bpmn:incoming>Flow_toStatus</bpmn:incoming><bpmn:outgoing>Flow_toWait</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="Flow_toWait" sourceRef="Activity_reviewStatus" targetRef="Activity_waitBackOffice" />
    <bpmn:serviceTask id="Activity_waitBackOffice" name="Waiting for B/O review" camunda:type="external" camunda:topic="userTask">
      <bpmn:extensionElements>
        <camunda:properties><camunda:property name="skyId" value="WBOR01-1" /></camunda:properties>
        <camunda:executionListener delegateExpression="\${reviewFromBackOfficeStart}" event="start" />
        <camunda:executionListener delegateExpression="\${reviewFromBackOfficeEnd}" event="end" />
      </bpmn:extensionElements>
      <bpmn:incoming>Flow_toWait</bpmn:incoming><bpmn:outgoing>Flow_reviewed</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:boundaryEvent id="Event_reviewTimer" name="${timer}" attachedToRef="Activity_waitBackOffice">
      <bpmn:outgoing>Flow_timedOut</bpmn:outgoing>
      <bpmn:timerEventDefinition id="TimerEventDefinition_review"><bpmn:timeDuration xsi:type="bpmn:tFormalExpression">${timer}</bpmn:timeDuration></bpmn:timerEventDefinition>
    </bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="Flow_reviewed" sourceRef="Activity_waitBackOffice" targetRef="Activity_summary" />
    <bpmn:sequenceFlow id="Flow_timedOut" sourceRef="Event_reviewTimer" targetRef="Activity_timedOut" />
    <bpmn:serviceTask id="Activity_summary" name="Summary" camunda:delegateExpression="\${counterV1}">
      <bpmn:extensionElements><camunda:inputOutput><camunda:inputParameter name="counterName" labelName="Counter Name" type="STRING">reviewed</camunda:inputParameter></camunda:inputOutput></bpmn:extensionElements>
      <bpmn:incoming>Flow_reviewed</bpmn:incoming><bpmn:outgoing>Flow_summaryEnd</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:serviceTask id="Activity_timedOut" name="Timed out" camunda:delegateExpression="\${counterV1}">
      <bpmn:extensionElements><camunda:inputOutput><camunda:inputParameter name="counterName" labelName="Counter Name" type="STRING">timedOut</camunda:inputParameter></camunda:inputOutput></bpmn:extensionElements>
      <bpmn:incoming>Flow_timedOut</bpmn:incoming><bpmn:outgoing>Flow_timedOutEnd</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="Flow_summaryEnd" sourceRef="Activity_summary" targetRef="End_done" />
    <bpmn:sequenceFlow id="Flow_timedOutEnd" sourceRef="Activity_timedOut" targetRef="End_done" />
    <bpmn:endEvent id="End_done">
      <bpmn:incoming>Flow_directEnd</bpmn:incoming><bpmn:incoming>Flow_noReview</bpmn:incoming><bpmn:incoming>Flow_summaryEnd</bpmn:incoming><bpmn:incoming>Flow_timedOutEnd</bpmn:incoming>
    </bpmn:endEvent>
  </bpmn:process>
</bpmn:definitions>
`;

/** Uploads the tail as the family's deployment tools do, activates it, and gives its name. */
async function publish(timer: string): Promise<string> {
  const name = `review-${fresh()}`;
  const made = await call('POST', BASE, {
    token,
    body: { name, description: 'Manual review', serverType: 'CAMUNDA', resources: { bpmn: { data: Buffer.from(TAIL(timer)).toString('base64'), type: 'BPMN' } } },
  });
  expect(made.status, made.text).toBe(201);
  const activated = await call('POST', `${BASE}/${made.json.id}/status/DEPLOYED_ACTIVE`, { token });
  expect(activated.status, activated.text).toBe(200);
  return name;
}

/** An instance of the definition (version 1); its id and journey link. */
async function start(name: string, parameters: Record<string, string> = {}): Promise<{ id: string; link: string }> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: { name: `${name}-${fresh()}`, processDefnName: name, processDefnVersion: '1', parameters },
  });
  expect(pt.status, pt.text).toBe(201);
  const made = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(made.status, made.text).toBe(201);
  const link = new URL(made.json.redirectUrl as string);
  return { id: made.json.processInstanceId as string, link: `${link.pathname}${link.search}` };
}

const read = (id: string, as = token) => call('GET', `/api/process-manager/processInstances/${id}`, { token: as });
const review = (id: string, body: unknown, as = reviewer.token, tenant?: string) =>
  call('POST', `/api/process-manager/processInstances/${id}/review`, { token: as, body, ...(tenant ? { tenant } : {}) });

/** The events relayed of one instance. */
const eventsOf = (id: string): EventEnvelope[] => relayedEvents().filter((e) => e.subject.id === id);

/** The journey waits for the back office: its status REVIEW, its step begun (the step's event on the bus). */
async function waitingForReview(id: string): Promise<void> {
  await until(`${id} to wait for the back office`, () =>
    eventsOf(id).some((e) => e.type === 'process-instance.step-changed' && e.data.activityType === 'REVIEW_FROM_BACK_OFFICE') ? true : undefined,
  );
  expect((await read(id)).json.status).toBe('REVIEW');
}

/** The journey's session once a step has written `variable`. */
const sessionWith = (id: string, variable: string) =>
  until(`${id} to set ${variable}`, async () => {
    const s = await latestSession('demo', id);
    return s.vars?.[variable] !== undefined ? s : undefined;
  });

let days: string;
beforeAll(async () => {
  days = await publish('P5D');
});

describe('the manual-review tail', () => {
  it('waits in REVIEW with the review page for the end user; APPROVE ends it COMPLETED_ENDED_SUCCESS and the journey goes on', async () => {
    const { id, link } = await start(days);
    await waitingForReview(id);
    const waiting = await read(id);
    // A pending review is the status, not a field: the read is as before until a reviewer decides.
    expect(waiting.json).not.toHaveProperty('review');
    // The end user's part is over: the page says so, and waits for nobody.
    const page = await pageUntil(link, 'being reviewed');
    expect(page).not.toContain('http-equiv="refresh"');

    const approved = await review(id, { status: 'Approved', comment: '  Passport checked by hand.  ' });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.json).toMatchObject({
      id,
      status: 'COMPLETED_ENDED_SUCCESS',
      review: { status: 'APPROVE', comment: 'Passport checked by hand.', reviewedBy: `apikey:${reviewer.id}` },
    });
    expect(Date.parse(approved.json.review.reviewedAt)).toBeGreaterThan(Date.now() - 60_000);

    // The journey went on from the back office's step with the decision, to its summary.
    const session = await sessionWith(id, 'reviewed');
    expect(session._decision).toBe('PASS');
    expect(session.vars.timedOut).toBeUndefined();
    const after = await read(id);
    expect(after.json).toMatchObject({ status: 'COMPLETED_ENDED_SUCCESS', review: approved.json.review });
    await pageUntil(link, 'You have completed this journey');

    // The event: who decided what, and the status it made; not the comment.
    const reviewed = await until('the reviewed event', () => eventsOf(id).find((e) => e.type === 'process-instance.reviewed'));
    expect(reviewed.data).toMatchObject({ decision: 'APPROVE', status: 'COMPLETED_ENDED_SUCCESS', previousStatus: 'REVIEW', reviewedBy: `apikey:${reviewer.id}` });
    expect(JSON.stringify(reviewed)).not.toContain('Passport checked');
    await until('the completed event', () => eventsOf(id).find((e) => e.type === 'process-instance.completed' && e.data.status === 'COMPLETED_ENDED_SUCCESS'));

    // A second decision: the instance is no longer in review.
    const again = await review(id, { status: 'REJECT', comment: 'Changed my mind.' });
    expect(again.status, again.text).toBe(409);
    expect(again.json.code).toBe('PROCESS_INSTANCE_NOT_IN_REVIEW');
    expect((await read(id)).json.review).toEqual(approved.json.review);
  });

  it('REJECT ends it COMPLETED_ENDED_ERROR, with FAIL as the journey\'s decision', async () => {
    const { id } = await start(days);
    await waitingForReview(id);
    const rejected = await review(id, { status: 'REJECT', comment: 'The document has expired.' });
    expect(rejected.status, rejected.text).toBe(200);
    expect(rejected.json).toMatchObject({ status: 'COMPLETED_ENDED_ERROR', review: { status: 'REJECT', comment: 'The document has expired.' } });
    expect((await sessionWith(id, 'reviewed'))._decision).toBe('FAIL');
    expect((await read(id)).json.status).toBe('COMPLETED_ENDED_ERROR');
  });

  it('refuses a decision without a comment or with an unknown status (400), changing nothing', async () => {
    const { id } = await start(days);
    await waitingForReview(id);
    for (const body of [{ status: 'APPROVE' }, { status: 'APPROVE', comment: '   ' }, { status: 'APPROVE', comment: 'x'.repeat(2001) }, { status: 'MAYBE', comment: 'Hm.' }, {}]) {
      const res = await review(id, body);
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect(res.json.code).toBe('VALIDATION_FAILED');
      expect(res.json.details.map((d: { location: string }) => d.location).join(' ')).toMatch(/body\.(comment|status)/);
    }
    const still = await read(id);
    expect(still.json.status).toBe('REVIEW');
    expect(still.json).not.toHaveProperty('review');
    // Still waiting: a valid decision goes through.
    expect((await review(id, { status: 'APPROVE', comment: 'Fine after all.' })).status).toBe(200);
  });

  it("needs its own permission (403), and finds no other tenant's instance (404)", async () => {
    const { id } = await start(days);
    await waitingForReview(id);
    const { secret } = await keyWith(['ProcessManager:getProcessInstance']);
    const readOnly = await review(id, { status: 'APPROVE', comment: 'Not mine to say.' }, await issueToken(secret));
    expect(readOnly.status, readOnly.text).toBe(403);
    expect(readOnly.json.code).toBe('MISSING_PERMISSION');
    const other = await issueToken(inject('otherKey'), 'other');
    const elsewhere = await review(id, { status: 'APPROVE', comment: 'Not my tenant.' }, other, 'other');
    expect(elsewhere.status, elsewhere.text).toBe(404);
    expect(elsewhere.json.code).toBe('PROCESS_INSTANCE_NOT_FOUND');
    const unknown = await review('00000000-0000-4000-8000-000000000000', { status: 'APPROVE', comment: 'Nobody.' });
    expect(unknown.status).toBe(404);
    expect((await read(id)).json.status).toBe('REVIEW');
  });

  it('lets exactly one of two reviewers deciding at once win', async () => {
    const { id } = await start(days);
    await waitingForReview(id);
    const answers = await Promise.all([
      review(id, { status: 'APPROVE', comment: 'Looks right.' }),
      review(id, { status: 'REJECT', comment: 'Looks wrong.' }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const winner = answers.find((a) => a.status === 200)!;
    expect(['CONCURRENT_UPDATE', 'PROCESS_INSTANCE_NOT_IN_REVIEW']).toContain(answers.find((a) => a.status === 409)!.json.code);
    expect((await read(id)).json).toMatchObject({ status: winner.json.status, review: winner.json.review });
    await sessionWith(id, 'reviewed');
  });

  it('refuses an instance that is not in review: running elsewhere', async () => {
    // The identity-check example waits for its end user at a data form.
    const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `ic-${fresh()}`, processDefnName: 'identity-check', processDefnVersion: '1' } });
    const made = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    const res = await review(made.json.processInstanceId, { status: 'APPROVE', comment: 'Too early.' });
    expect(res.status, res.text).toBe(409);
    expect(res.json.code).toBe('PROCESS_INSTANCE_NOT_IN_REVIEW');
  });

  it('decides a journey a decider ended in REVIEW: REVIEW keeps it there with the comment, then APPROVE ends it', async () => {
    const { id } = await start(days, { channel: 'direct' });
    await until(`${id} to end in REVIEW`, async () => ((await read(id)).json.status === 'REVIEW' ? true : undefined));
    const kept = await review(id, { status: 'review', comment: 'Ask for a utility bill.' });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.json).toMatchObject({ status: 'REVIEW', review: { status: 'REVIEW', comment: 'Ask for a utility bill.' } });
    const approved = await review(id, { status: 'APPROVE', comment: 'Bill received.' });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.json).toMatchObject({ status: 'COMPLETED_ENDED_SUCCESS', review: { status: 'APPROVE', comment: 'Bill received.' } });
    expect((await review(id, { status: 'APPROVE', comment: 'Once more.' })).status).toBe(409);
    const types = await until('both reviewed events', () => {
      const reviewed = eventsOf(id).filter((e) => e.type === 'process-instance.reviewed');
      return reviewed.length === 2 ? reviewed.map((e) => e.data.decision) : undefined;
    });
    expect(types).toEqual(['REVIEW', 'APPROVE']);
  });
});

describe('the back office that never decides', () => {
  it('takes the timer route (10 s here, P5D in the family), leaving the instance in REVIEW for a reviewer to decide later', async () => {
    const name = await publish('PT10S');
    const { id } = await start(name);
    await waitingForReview(id);
    const session = await sessionWith(id, 'timedOut');
    expect(session.vars.reviewed).toBeUndefined();
    expect(session._decision).toBe('REVIEW');
    expect((await read(id)).json.status).toBe('REVIEW');
    // The journey has ended; the review is still the reviewer's to give.
    const approved = await review(id, { status: 'APPROVE', comment: 'Late, but fine.' });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.json.status).toBe('COMPLETED_ENDED_SUCCESS');
  }, 60_000);
});
