import { describe, expect, it } from 'vitest';
import { activityDeps } from '../../../functions/activities/deps.js';
import type { ActivityDeps, Session } from '../../../functions/activities/contract.js';
import { run as reviewRequired } from '../../../functions/activities/review-required.js';
import { run as writeReviewStatus } from '../../../functions/activities/write-review-status.js';
import { screens as backOfficeScreens } from '../../../functions/activities/review-from-back-office.js';
import { FACE_STEPS, FORM_STEPS, PASSCODE_STEPS, PASSKEY_STEPS, SCREENS } from '../../../functions/activities/index.generated.js';
import { journeyPage, journeyScreens } from '../../../functions/journey/pages.js';
import type { EventEnvelope } from '../../../functions/shared/events.js';
import type { InstanceReview, ProcessInstanceRecord } from '../../../functions/process-manager/model.js';
import { parseBpmn } from '../../../statemachines/bpmn/parse.js';
import { bpmnToDefinition } from '../../../statemachines/bpmn/to-definition.js';
import { compileDefinition } from '../../../statemachines/compile.js';
import { validateDefinition } from '../../../statemachines/validate.js';

const now = new Date('2026-06-01T12:00:00.000Z');
const session = (): Session => ({ instance: { tenantId: 'acme', processInstanceId: 'pi' }, parameters: {}, vars: { kept: 1 } }) as Session;

const record = (overrides: Partial<ProcessInstanceRecord> = {}): ProcessInstanceRecord =>
  ({
    tenantId: 'acme',
    id: 'pi',
    processDefnId: 'def',
    processDefnName: 'review-tail',
    processDefnVersion: 1,
    processTokenId: 'tok',
    status: 'ACTIVE',
    parameters: {},
    ...overrides,
  }) as ProcessInstanceRecord;

/** The review steps' instance access, recording what they write. */
function fakeReviews(stored: ProcessInstanceRecord | undefined) {
  const required: InstanceReview[] = [];
  const statuses: { from: string; to: string; final: boolean; events: readonly EventEnvelope[] }[] = [];
  const reviews: ActivityDeps['reviews'] = {
    get: async () => stored,
    setStatus: async (_r, from, to, _now, final, events) => {
      statuses.push({ from, to, final, events });
      return true;
    },
    requireReview: async (_t, _id, review) => {
      required.push(review);
      return true;
    },
  };
  return { deps: { ...activityDeps, reviews }, required, statuses };
}

describe('Review Required', () => {
  it("makes the journey's decision REVIEW and the instance's review PENDING, keeping the rest of the session", async () => {
    const { deps, required } = fakeReviews(record());
    const after = await reviewRequired({ activityId: 'rr', inputs: { 'UI Component ID': 'review', 'List of Screens': ['thank-you'], 'Starting Component ID': 'review' }, session: session(), tenantId: 'acme', actor: 'journey:pi', now, deps });
    expect(after).toMatchObject({ _decision: 'REVIEW', vars: { kept: 1 } });
    expect(required).toEqual([{ status: 'PENDING', id: expect.any(String), requiredAt: now.toISOString() }]);
  });
});

describe('Process Instance Review Status Report', () => {
  it('writes the status REVIEW as a final status, with its status-changed and completed events, asking for the review when none was', async () => {
    const { deps, required, statuses } = fakeReviews(record({ status: 'ACTIVE' }));
    const after = await writeReviewStatus({ activityId: 'rs', inputs: {}, session: session(), tenantId: 'acme', actor: 'journey:pi', now, deps });
    expect(after._decision).toBe('REVIEW');
    expect(required).toHaveLength(1);
    expect(statuses).toHaveLength(1);
    expect(statuses[0]).toMatchObject({ from: 'ACTIVE', to: 'REVIEW', final: true });
    expect(statuses[0]!.events.map((e) => [e.type, e.data.status])).toEqual([
      ['process-instance.status-changed', 'REVIEW'],
      ['process-instance.completed', 'REVIEW'],
    ]);
  });

  it('leaves a status that is REVIEW already, or final, as it is (a retried step), and a review that is there', async () => {
    for (const status of ['REVIEW', 'COMPLETED_ENDED_SUCCESS'] as const) {
      const { deps, required, statuses } = fakeReviews(record({ status, review: { status: 'PENDING', id: 'r1' } }));
      await writeReviewStatus({ activityId: 'rs', inputs: {}, session: session(), tenantId: 'acme', actor: 'journey:pi', now, deps });
      expect(required, status).toEqual([]);
      expect(statuses, status).toEqual([]);
    }
  });

  it('writes nothing for an instance that is gone', async () => {
    const { deps, required, statuses } = fakeReviews(undefined);
    expect(await writeReviewStatus({ activityId: 'rs', inputs: {}, session: session(), tenantId: 'acme', actor: 'journey:pi', now, deps })).toEqual(session());
    expect([...required, ...statuses]).toEqual([]);
  });
});

describe('Waiting for B/O review', () => {
  const screens = journeyScreens(SCREENS, { identityStores: activityDeps.identityStores as never });
  const waiting = (r: ProcessInstanceRecord): ProcessInstanceRecord => ({
    ...r,
    currentStep: { activityId: 'wait', activityType: 'REVIEW_FROM_BACK_OFFICE', inputs: {}, state: {}, taskToken: 't', since: now.toISOString() },
  });

  it('shows the end user the review page, and on to the redirect URL when the token has one', async () => {
    expect(backOfficeScreens.component).toBe('review');
    const page = await journeyPage(screens, waiting(record()), 'cap', 'en');
    expect(page).toContain('Your application is being reviewed');
    expect(page).not.toContain('<form');
    const onward = await journeyPage(screens, waiting(record({ parameters: { _redirectUrl: 'https://rp.example/back' } })), 'cap', 'de');
    expect(onward).toContain('Ihr Antrag wird geprüft');
    expect(onward).toContain('url=https://rp.example/back');
  });

  it('is completed by no journey page: no submission route takes it', () => {
    for (const steps of [FORM_STEPS, FACE_STEPS, PASSCODE_STEPS, PASSKEY_STEPS]) expect(Object.keys(steps)).not.toContain('REVIEW_FROM_BACK_OFFICE');
  });

  it('keeps the review page once the review is required: between steps, in REVIEW, and the end once decided', async () => {
    const pending: InstanceReview = { status: 'PENDING', id: 'r1', requiredAt: now.toISOString() };
    // Between Review Required and the wait (a service step runs): not the "one moment" page.
    expect(await journeyPage(screens, record({ review: pending }), 'cap', 'en')).toContain('being reviewed');
    // The status REVIEW hides the step the journey waits at, and shows the same page.
    expect(await journeyPage(screens, waiting(record({ status: 'REVIEW', review: pending })), 'cap', 'en')).toContain('being reviewed');
    // Decided: the end.
    const approved = record({ status: 'COMPLETED_ENDED_SUCCESS', review: { status: 'APPROVE', id: 'r2', comment: 'ok', reviewedBy: 'apikey:k', reviewedAt: now.toISOString() } });
    expect(await journeyPage(screens, approved, 'cap', 'en')).toContain('You have completed this journey');
    // A journey a decider ended in REVIEW, with no review step, shows its end as before.
    expect(await journeyPage(screens, record({ status: 'REVIEW' }), 'cap', 'en')).toContain('You have completed this journey');
  });
});

/** The family's manual-review tail, as its designer exports it. */
const FAMILY_TAIL = (duration: string) => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="Definitions_r" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="Process_r" isExecutable="true">
    <bpmn:startEvent id="StartEvent_1"><bpmn:outgoing>Flow_1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:sequenceFlow id="Flow_1" sourceRef="StartEvent_1" targetRef="Activity_reviewRequired" />
    <bpmn:serviceTask id="Activity_reviewRequired" name="Review Required" camunda:delegateExpression="\${reviewRequired}">
      <bpmn:extensionElements>
        <camunda:properties><camunda:property name="skyId" value="RRD01-1" /></camunda:properties>
        <camunda:inputOutput>
          <camunda:inputParameter name="screenId" labelName="UI Component Id" type="STRING">review</camunda:inputParameter>
          <camunda:inputParameter name="screens" labelName="List of Screens" type="LIST_STRING"><camunda:list><camunda:value>thank-you</camunda:value></camunda:list></camunda:inputParameter>
          <camunda:inputParameter name="stepId" labelName="Starting component ID" type="STRING">review</camunda:inputParameter>
        </camunda:inputOutput>
      </bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="Flow_2" sourceRef="Activity_reviewRequired" targetRef="Activity_status" />
    <bpmn:serviceTask id="Activity_status" name="Process Instance Review Status Report" camunda:delegateExpression="\${writeReviewStatus}" />
    <bpmn:sequenceFlow id="Flow_3" sourceRef="Activity_status" targetRef="Activity_wait" />
    <bpmn:serviceTask id="Activity_wait" name="Waiting for B/O review" camunda:type="external" camunda:topic="userTask">
      <bpmn:extensionElements>
        <camunda:executionListener delegateExpression="\${reviewFromBackOfficeStart}" event="start" />
        <camunda:executionListener delegateExpression="\${reviewFromBackOfficeEnd}" event="end" />
      </bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:boundaryEvent id="Event_timer" attachedToRef="Activity_wait">
      <bpmn:outgoing>Flow_timer</bpmn:outgoing>
      <bpmn:timerEventDefinition><bpmn:timeDuration xsi:type="bpmn:tFormalExpression">${duration}</bpmn:timeDuration></bpmn:timerEventDefinition>
    </bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="Flow_4" sourceRef="Activity_wait" targetRef="End_done" />
    <bpmn:sequenceFlow id="Flow_timer" sourceRef="Event_timer" targetRef="End_done" />
    <bpmn:endEvent id="End_done" />
  </bpmn:process>
</bpmn:definitions>`;

describe("the review tail in the family's BPMN", () => {
  it('imports by its beans and parameter names, waits up to its timer, and compiles the wait as a user step', async () => {
    const converted = bpmnToDefinition(await parseBpmn(FAMILY_TAIL('P5D')), { name: 'review-tail', version: 1 });
    if ('problems' in converted) throw new Error(JSON.stringify(converted.problems));
    const definition = validateDefinition(converted.definition);
    expect(definition.activities.Activity_reviewRequired).toMatchObject({
      type: 'REVIEW_REQUIRED',
      inputs: { 'UI Component ID': 'review', 'List of Screens': ['thank-you'], 'Starting Component ID': 'review' },
    });
    expect(definition.activities.Activity_status).toMatchObject({ type: 'WRITE_REVIEW_STATUS' });
    expect(definition.activities.Activity_wait).toMatchObject({ type: 'REVIEW_FROM_BACK_OFFICE', timer: { duration: 'P5D', next: 'End_done' } });
    const asl = compileDefinition(definition, { activityFunctionArn: 'arn:aws:lambda:eu-west-1:1:function:a', executionEndFunctionArn: 'arn:aws:lambda:eu-west-1:1:function:e' }) as {
      States: Record<string, { Resource?: string; TimeoutSeconds?: number }>;
    };
    expect(asl.States.Activity_wait).toMatchObject({ Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken', TimeoutSeconds: 5 * 86_400 });
    expect(asl.States.Activity_reviewRequired!.Resource).toBe('arn:aws:states:::lambda:invoke');
  });

  it('gives the wait without a timer the longest step timeout, 28 days', () => {
    const definition = validateDefinition({
      name: 'review-tail',
      version: 1,
      startActivityId: 'wait',
      activities: { wait: { type: 'REVIEW_FROM_BACK_OFFICE' } },
    });
    expect(definition.activities.wait!.inputs).toEqual({ 'Step Timeout (Seconds)': 2_419_200 });
  });
});
