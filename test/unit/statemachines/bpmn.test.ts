import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBpmn } from '../../../statemachines/bpmn/parse.js';
import type { BpmnGraph } from '../../../statemachines/bpmn/graph.js';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../../fixtures/bpmn', name), 'utf8');

/** A definitions document in the Modeler's namespaces around a process body (for the small cases). */
const definitions = (body: string, { executable = true, after = '' } = {}) => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="Definitions_t" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="p" isExecutable="${executable}">
    <bpmn:startEvent id="start" />
    ${body}
  </bpmn:process>
  ${after}
</bpmn:definitions>`;

const byId = <T extends { id: string }>(items: readonly T[], id: string) => {
  const found = items.find((i) => i.id === id);
  if (!found) throw new Error(`no ${id}`);
  return found;
};

describe('parseBpmn', () => {
  it('reads a linear journey: start, data form, face capture, decider, end, with ids and names', async () => {
    const graph = await parseBpmn(fixture('linear.bpmn'));
    expect(graph.problems).toEqual([]);
    expect(graph.process).toEqual({ id: 'identity-check-linear', name: 'Identity check (linear)', isExecutable: true });
    expect(graph.startEvents).toEqual([{ id: 'StartEvent_1', name: 'Token opened', kind: 'startEvent' }]);
    expect(graph.endEvents).toEqual([{ id: 'EndEvent_done', name: 'Done', kind: 'endEvent' }]);
    expect(graph.tasks.map((t) => [t.id, t.kind, t.beanName, t.activityType, t.activityKind])).toEqual([
      ['Activity_applicantForm', 'userStep', 'customDataFormV1', 'DATA_FORM', 'user'],
      ['Activity_captureFace', 'userStep', 'captureFaceImageV1', 'CAPTURE_FACE_IMAGE', 'user'],
      ['Activity_decide', 'serviceTask', 'activityOutcomeDeciderV1', 'SIMPLE_DECIDER', 'decider'],
    ]);
    expect(graph.flows.map((f) => `${f.source}->${f.target}`)).toEqual([
      'StartEvent_1->Activity_applicantForm',
      'Activity_applicantForm->Activity_captureFace',
      'Activity_captureFace->Activity_decide',
      'Activity_decide->EndEvent_done',
    ]);
    expect(graph.gateways).toEqual([]);
    expect(graph.boundaryEvents).toEqual([]);
  });

  it('keys inputs by the designer label and types their values; outputs map variables to expressions', async () => {
    const graph = await parseBpmn(fixture('linear.bpmn'));
    const form = byId(graph.tasks, 'Activity_applicantForm');
    expect(form.inputs).toEqual({
      'Data form name': { label: 'Data form name', variable: 'dataFormName', type: 'STRING', value: 'applicant-details' },
      'Data form version': { label: 'Data form version', variable: 'dataFormVersion', type: 'INTEGER', value: 1 },
      'Form data Key': { label: 'Form data Key', variable: 'formDataKey', type: 'STRING', value: 'form1' },
      'Read Only': { label: 'Read Only', variable: 'readOnly', type: 'BOOLEAN', value: false },
    });
    expect(form.outputs).toEqual({ applicantCountry: '${form1.country}' });
    expect(byId(graph.tasks, 'Activity_captureFace').inputs['Step Timeout (Seconds)']?.value).toBe(600);
  });

  describe('a journey with a gateway, a timer, error routes and a retake loop', () => {
    const parsed = parseBpmn(fixture('retake.bpmn'));
    let graph: BpmnGraph;
    it('has no problems', async () => {
      graph = await parsed;
      expect(graph.problems).toEqual([]);
      expect(graph.tasks).toHaveLength(7);
      expect(graph.endEvents.map((e) => e.id)).toEqual(['EndEvent_duplicate', 'EndEvent_timedOut', 'EndEvent_done']);
    });

    it('reads the exclusive gateway with its default flow and each condition as written', async () => {
      graph = await parsed;
      expect(graph.gateways).toEqual([{ id: 'Gateway_photoConfirmed', name: 'Photo confirmed?', kind: 'exclusiveGateway', default: 'Flow_toMatch' }]);
      const out = graph.flows.filter((f) => f.source === 'Gateway_photoConfirmed');
      expect(out).toEqual([
        { id: 'Flow_retake', name: 'Retake', source: 'Gateway_photoConfirmed', target: 'Activity_captureFace', condition: '${_photoConfirmed!=true}' },
        {
          id: 'Flow_mobile',
          name: 'On a phone',
          source: 'Gateway_photoConfirmed',
          target: 'Activity_notify',
          condition: '${execution.hasVariable("isMobile") ? isMobile : false}',
        },
        { id: 'Flow_toMatch', source: 'Gateway_photoConfirmed', target: 'Activity_faceMatch' },
      ]);
    });

    it('keeps the loop back to the earlier step', async () => {
      graph = await parsed;
      const into = graph.flows.filter((f) => f.target === 'Activity_captureFace').map((f) => f.source);
      expect(into).toEqual(['Activity_score', 'Gateway_photoConfirmed']);
    });

    it('reads the timer on the user step as an interrupting PT30M, 1800 seconds', async () => {
      graph = await parsed;
      expect(byId(graph.boundaryEvents, 'Event_captureTimeout')).toEqual({
        id: 'Event_captureTimeout',
        name: '30 minutes',
        kind: 'boundaryEvent',
        attachedTo: 'Activity_captureFace',
        cancelActivity: true,
        trigger: { kind: 'timer', duration: 'PT30M', seconds: 1800 },
      });
      expect(byId(graph.tasks, 'Activity_captureFace').kind).toBe('userStep');
      expect(graph.flows.find((f) => f.source === 'Event_captureTimeout')?.target).toBe('EndEvent_timedOut');
    });

    it('matches error boundaries by the bpmn:error code, with the code and message variables', async () => {
      graph = await parsed;
      expect(byId(graph.boundaryEvents, 'Event_duplicateUser').trigger).toEqual({ kind: 'error', errorRef: 'Error_extIdNotUnique', errorCode: 'extIdNotUnique' });
      expect(byId(graph.boundaryEvents, 'Event_faceMismatch')).toEqual({
        id: 'Event_faceMismatch',
        name: 'Failed face match',
        kind: 'boundaryEvent',
        attachedTo: 'Activity_faceMatch',
        cancelActivity: true,
        trigger: {
          kind: 'error',
          errorRef: 'Error_failedFaceMatch',
          errorCode: 'failedFaceMatch',
          errorCodeVariable: 'faceMatchErrorCode',
          errorMessageVariable: 'faceMatchErrorMessage',
        },
      });
      expect(byId(graph.boundaryEvents, 'Event_tooManyMatches').trigger).toMatchObject({ errorCode: 'exceedFaceMatchCount' });
      expect(graph.errors).toEqual([
        { id: 'Error_extIdNotUnique', name: 'ExtId Not Unique', errorCode: 'extIdNotUnique', errorMessage: 'A user with this external ID exists' },
        { id: 'Error_failedFaceMatch', name: 'Failed face match', errorCode: 'failedFaceMatch' },
        { id: 'Error_exceedFaceMatchCount', name: 'Exceed face match count', errorCode: 'exceedFaceMatchCount' },
      ]);
    });

    it('types list, map, boolean, enum and integer inputs, keeping expressions as strings', async () => {
      graph = await parsed;
      const values = Object.fromEntries(Object.values(byId(graph.tasks, 'Activity_notify').inputs).map((i) => [i.label, [i.type, i.value]]));
      expect(values).toMatchObject({
        'Localized Title Arguments': ['LIST_STRING', ['${firstName}']],
        'Monitor Push Notification Process': ['BOOLEAN', false],
        'Push Notification Parameters': ['MAP_STRING', { screen: 'face-capture', lang: '${lang}' }],
        'Push Notification Process Definition Version': ['INTEGER', '${pushVersion}'],
        'Relying Party ID': ['ENUM', 'appkey-policy'],
        'Time To Live (Seconds)': ['INTEGER', 300],
      });
      expect(byId(graph.tasks, 'Activity_score').inputs['Process Variables']?.value).toEqual(['form1', 'externalId']);
      expect(byId(graph.tasks, 'Activity_addUser').inputs['External ID']?.value).toBe('${externalId}');
      expect(byId(graph.tasks, 'Activity_faceMatch').inputs['Max Attempts']?.value).toBe(3);
    });

    it('leaves the diagram, the text annotation and its association out of the graph', async () => {
      graph = await parsed;
      const ids = JSON.stringify(graph);
      for (const id of ['TextAnnotation_retake', 'Association_retake', '_di', 'BPMNPlane']) expect(ids).not.toContain(id);
    });
  });

  it('reports, with the element ids, unknown bean names, parallel gateways and an error boundary without errorRef', async () => {
    const graph = await parseBpmn(fixture('unsupported.bpmn'));
    expect(graph.problems.map(({ code, id, element, beanName }) => ({ code, id, element, ...(beanName ? { beanName } : {}) }))).toEqual([
      { code: 'UNSUPPORTED_ELEMENT', id: 'Gateway_fork', element: 'bpmn:ParallelGateway' },
      { code: 'UNKNOWN_ACTIVITY', id: 'Activity_liveness', element: 'bpmn:ServiceTask', beanName: 'passiveLivenessV3' },
      { code: 'UNKNOWN_ACTIVITY', id: 'Activity_lookup', element: 'bpmn:ServiceTask', beanName: 'creditBureauLookupV1' },
      { code: 'MISSING_ERROR_REF', id: 'Event_lookupFailed', element: 'bpmn:BoundaryEvent' },
      { code: 'UNSUPPORTED_ELEMENT', id: 'Gateway_join', element: 'bpmn:ParallelGateway' },
    ]);
    expect(graph.problems[0]?.message).toMatch(/parallel gateway/);
    expect(graph.problems[1]?.message).toBe('passiveLivenessV3 names no activity this service runs');
    // The rest is still read, so every problem is found in one pass.
    expect(byId(graph.tasks, 'Activity_decide').activityType).toBe('SIMPLE_DECIDER');
  });

  it('reports an errorRef that names no bpmn:error, and an error without a code', async () => {
    const graph = await parseBpmn(
      definitions(
        `<bpmn:serviceTask id="t" camunda:delegateExpression="\${addUserV1}" />
         <bpmn:boundaryEvent id="b1" attachedToRef="t"><bpmn:errorEventDefinition id="d1" errorRef="Error_nope" /></bpmn:boundaryEvent>
         <bpmn:boundaryEvent id="b2" attachedToRef="t"><bpmn:errorEventDefinition id="d2" errorRef="Error_noCode" /></bpmn:boundaryEvent>`,
        { after: '<bpmn:error id="Error_noCode" name="No code" />' },
      ),
    );
    expect(graph.problems).toEqual([
      {
        code: 'MISSING_ERROR_REF',
        id: 'b1',
        element: 'bpmn:BoundaryEvent',
        message: 'the error boundary event names Error_nope in errorRef, which does not exist: it must name a bpmn:error',
      },
      { code: 'MISSING_ERROR_CODE', id: 'b2', element: 'bpmn:BoundaryEvent', message: 'the error Error_noCode it names has no errorCode to match' },
    ]);
    expect(graph.boundaryEvents).toEqual([]);
  });

  it('reads an error end event with its error code; one naming no error or an error without a code is reported', async () => {
    const graph = await parseBpmn(
      definitions(
        `<bpmn:endEvent id="declined" name="Declined"><bpmn:errorEventDefinition id="d1" errorRef="Error_declined" /></bpmn:endEvent>
         <bpmn:endEvent id="nope"><bpmn:errorEventDefinition id="d2" errorRef="Error_nope" /></bpmn:endEvent>
         <bpmn:endEvent id="noCode"><bpmn:errorEventDefinition id="d3" errorRef="Error_noCode" /></bpmn:endEvent>
         <bpmn:endEvent id="twice"><bpmn:errorEventDefinition id="d4" errorRef="Error_declined" /><bpmn:terminateEventDefinition id="d5" /></bpmn:endEvent>`,
        { after: '<bpmn:error id="Error_declined" name="Declined" errorCode="identityDeclined" /><bpmn:error id="Error_noCode" />' },
      ),
    );
    expect(graph.endEvents).toEqual([{ id: 'declined', name: 'Declined', kind: 'endEvent', error: { errorRef: 'Error_declined', errorCode: 'identityDeclined' } }]);
    expect(graph.problems.map((p) => `${p.code} ${p.id}: ${p.message}`)).toEqual([
      'MISSING_ERROR_REF nope: the error end event names Error_nope in errorRef, which does not exist: it must name a bpmn:error',
      'MISSING_ERROR_CODE noCode: the error Error_noCode it names has no errorCode to end with',
      'UNSUPPORTED_ELEMENT twice: an end event that throws error and terminate: a journey ends plainly or with an error',
    ]);
  });

  it('reports what else the service does not run, each by id', async () => {
    const graph = await parseBpmn(
      definitions(`
        <bpmn:serviceTask id="noBean" />
        <bpmn:serviceTask id="javaClass" camunda:class="com.example.Step" />
        <bpmn:serviceTask id="noListener" camunda:type="external" camunda:topic="t" />
        <bpmn:serviceTask id="multi" camunda:delegateExpression="\${getUserV1}"><bpmn:multiInstanceLoopCharacteristics /></bpmn:serviceTask>
        <bpmn:inclusiveGateway id="inclusive" />
        <bpmn:subProcess id="sub" />
        <bpmn:userTask id="camundaUserTask" />
        <bpmn:intermediateCatchEvent id="waitMessage"><bpmn:messageEventDefinition /></bpmn:intermediateCatchEvent>
        <bpmn:boundaryEvent id="nonInterrupting" attachedToRef="noBean" cancelActivity="false"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
        <bpmn:boundaryEvent id="messageBoundary" attachedToRef="noBean"><bpmn:messageEventDefinition /></bpmn:boundaryEvent>
        <bpmn:boundaryEvent id="timerDate" attachedToRef="noBean"><bpmn:timerEventDefinition><bpmn:timeDate>2030-01-01T00:00:00Z</bpmn:timeDate></bpmn:timerEventDefinition></bpmn:boundaryEvent>
        <bpmn:boundaryEvent id="oneMonth" attachedToRef="noBean"><bpmn:timerEventDefinition><bpmn:timeDuration>P1M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
        <bpmn:sequenceFlow id="script" sourceRef="start" targetRef="noBean"><bpmn:conditionExpression xsi:type="bpmn:tFormalExpression" language="javascript">true</bpmn:conditionExpression></bpmn:sequenceFlow>
        <bpmn:sequenceFlow id="dangling" sourceRef="start" targetRef="Activity_gone" />
        <bpmn:endEvent id="errorEnd"><bpmn:errorEventDefinition /></bpmn:endEvent>
        <bpmn:endEvent id="messageEnd"><bpmn:messageEventDefinition /></bpmn:endEvent>
        <bpmn:startEvent id="secondStart" />`),
    );
    expect(graph.problems.map((p) => `${p.code} ${p.id}`)).toEqual([
      'MISSING_ACTIVITY noBean',
      'UNSUPPORTED_ELEMENT javaClass',
      'MISSING_ACTIVITY noListener',
      'UNSUPPORTED_ELEMENT multi',
      'UNSUPPORTED_ELEMENT inclusive',
      'UNSUPPORTED_ELEMENT sub',
      'UNSUPPORTED_ELEMENT camundaUserTask',
      'UNSUPPORTED_ELEMENT waitMessage',
      'UNSUPPORTED_ELEMENT nonInterrupting',
      'UNSUPPORTED_ELEMENT messageBoundary',
      'INVALID_TIMER timerDate',
      'INVALID_TIMER oneMonth',
      'INVALID_CONDITION script',
      'UNRESOLVED_REFERENCE dangling',
      'MISSING_ERROR_REF errorEnd',
      'UNSUPPORTED_ELEMENT messageEnd',
      'UNSUPPORTED_ELEMENT secondStart',
    ]);
    expect(graph.problems.find((p) => p.id === 'dangling')?.message).toBe('the flow names Activity_gone in targetRef, which does not exist');
    expect(graph.problems.find((p) => p.id === 'oneMonth')?.message).toMatch(/no fixed length/);
  });

  it('reports inputs whose value does not fit their type, of an unknown type, or given twice', async () => {
    const graph = await parseBpmn(
      definitions(`
        <bpmn:serviceTask id="t" camunda:delegateExpression="\${svcPushNotificationV1}">
          <bpmn:extensionElements><camunda:inputOutput>
            <camunda:inputParameter name="ttl" labelName="Time To Live (Seconds)" type="INTEGER">five minutes</camunda:inputParameter>
            <camunda:inputParameter name="monitor" labelName="Monitor Push Notification Process" type="BOOLEAN">yes</camunda:inputParameter>
            <camunda:inputParameter name="args" labelName="Localized Title Arguments" type="LIST_STRING">a,b</camunda:inputParameter>
            <camunda:inputParameter name="x" labelName="Title" type="DATE">2020</camunda:inputParameter>
            <camunda:inputParameter name="m1" labelName="Message" type="STRING">one</camunda:inputParameter>
            <camunda:inputParameter name="m2" labelName="Message" type="STRING">two</camunda:inputParameter>
            <camunda:inputParameter name="s" labelName="Store Name" type="STRING" />
          </camunda:inputOutput></bpmn:extensionElements>
        </bpmn:serviceTask>`),
    );
    expect(graph.problems.map((p) => [p.code, p.id, p.input])).toEqual([
      ['INVALID_INPUT', 't', 'Time To Live (Seconds)'],
      ['INVALID_INPUT', 't', 'Monitor Push Notification Process'],
      ['INVALID_INPUT', 't', 'Localized Title Arguments'],
      ['INVALID_INPUT', 't', 'Title'],
      ['INVALID_INPUT', 't', 'Message'],
    ]);
    const task = byId(graph.tasks, 't');
    // The first of a duplicated label is kept; an empty parameter is null, as Camunda reads it.
    expect(task.inputs.Message?.value).toBe('one');
    expect(task.inputs['Store Name']?.value).toBeNull();
  });

  it('reports a second process and a process that is not executable', async () => {
    const two = await parseBpmn(definitions('', { after: '<bpmn:process id="p2" isExecutable="true"><bpmn:startEvent id="s2" /></bpmn:process>' }));
    expect(two.problems.map((p) => `${p.code} ${p.id}`)).toEqual(['PROCESS p2']);
    expect(two.process?.id).toBe('p');
    const draft = await parseBpmn(definitions('', { executable: false }));
    expect(draft.problems.map((p) => `${p.code} ${p.id}`)).toEqual(['PROCESS p']);
  });

  it('does not throw on text that is not BPMN: the problem says so', async () => {
    for (const text of ['', 'not xml', '<definitions/>', '<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"><bpmn:process']) {
      const graph = await parseBpmn(text);
      expect(graph.problems.length, text).toBeGreaterThan(0);
      expect(graph.problems[0]?.code, text).toMatch(/INVALID_XML|PROCESS/);
      expect(graph.tasks).toEqual([]);
    }
  });

  it('expands no entity and reads no external one (the XML comes from tenants over the API)', async () => {
    const graph = await parseBpmn(`<?xml version="1.0"?>
<!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY xxe SYSTEM "file:///etc/passwd">]>
${definitions('').replace(/^<\?xml[^>]*>\n/, '').replace('<bpmn:startEvent id="start" />', '<bpmn:startEvent id="start" name="&b; &xxe;" />')}`);
    expect(graph.startEvents[0]?.name).toBe('&b; &xxe;');
    expect(JSON.stringify(graph)).not.toContain('root:');
  });

  it('reads a definition the size of the largest real ones (130 tasks, 160 gateways) in well under a second', async () => {
    const body: string[] = ['<bpmn:sequenceFlow id="f_start" sourceRef="start" targetRef="t0" />'];
    for (let i = 0; i < 130; i++) {
      body.push(`<bpmn:serviceTask id="t${i}" camunda:delegateExpression="\${getUserV1}" />`);
      body.push(`<bpmn:boundaryEvent id="timer${i}" attachedToRef="t${i}"><bpmn:timerEventDefinition><bpmn:timeDuration>PT${i + 1}M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>`);
      body.push(`<bpmn:sequenceFlow id="f_timer${i}" sourceRef="timer${i}" targetRef="end" />`);
    }
    for (let g = 0; g < 160; g++) {
      const from = `t${g % 130}`;
      body.push(`<bpmn:exclusiveGateway id="g${g}" default="g${g}_default" />`);
      body.push(`<bpmn:sequenceFlow id="f_into_g${g}" sourceRef="${from}" targetRef="g${g}" />`);
      body.push(`<bpmn:sequenceFlow id="g${g}_cond" sourceRef="g${g}" targetRef="t${(g + 1) % 130}"><bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">\${v${g} == "x"}</bpmn:conditionExpression></bpmn:sequenceFlow>`);
      body.push(`<bpmn:sequenceFlow id="g${g}_default" sourceRef="g${g}" targetRef="end" />`);
    }
    body.push('<bpmn:endEvent id="end" />');
    const started = performance.now();
    const graph = await parseBpmn(definitions(body.join('\n')));
    const elapsed = performance.now() - started;
    expect(graph.problems).toEqual([]);
    expect([graph.tasks.length, graph.gateways.length, graph.boundaryEvents.length]).toEqual([130, 160, 130]);
    expect(elapsed).toBeLessThan(1000);
  });

  it('reports an element BPMN does not define by its line, since it has no id to give', async () => {
    const graph = await parseBpmn(definitions('\n    <bpmn:fooTask id="x" />'));
    expect(graph.problems).toEqual([{ code: 'INVALID_XML', message: 'unparsable content <bpmn:fooTask> detected at line 6' }]);
  });
});
