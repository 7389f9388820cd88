import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../functions/errors.js';
import { parseBpmn } from '../../../statemachines/bpmn/parse.js';
import { bpmnToDefinition } from '../../../statemachines/bpmn/to-definition.js';
import type { ProcessDefinitionInput } from '../../../statemachines/definition.js';
import { aslPathTransitions, compileDefinition } from '../../../statemachines/compile.js';
import { validateDefinition } from '../../../statemachines/validate.js';
import { ARN, END_ARN } from './fixtures.js';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../../fixtures/bpmn', name), 'utf8');
const META = { name: 'onboarding', version: 3, description: 'From the designer' };

const definitions = (body: string, after = '') => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="Definitions_t" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="start" />
    ${body}
  </bpmn:process>
  <bpmn:error id="Error_dup" name="Duplicate" errorCode="extIdNotUnique" />
  <bpmn:error id="Error_other" name="Other" errorCode="failedFaceMatch" />
  ${after}
</bpmn:definitions>`;

const flow = (id: string, from: string, to: string, condition?: string) =>
  condition === undefined
    ? `<bpmn:sequenceFlow id="${id}" sourceRef="${from}" targetRef="${to}" />`
    : `<bpmn:sequenceFlow id="${id}" sourceRef="${from}" targetRef="${to}"><bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">${condition}</bpmn:conditionExpression></bpmn:sequenceFlow>`;
const addUser = (id: string, inputs = '') =>
  `<bpmn:serviceTask id="${id}" camunda:delegateExpression="\${addUserV1}"><bpmn:extensionElements><camunda:inputOutput>
     <camunda:inputParameter name="externalId" labelName="External ID" type="STRING">\${externalId}</camunda:inputParameter>
     <camunda:inputParameter name="storeName" labelName="Store Name" type="STRING">customers</camunda:inputParameter>${inputs}
   </camunda:inputOutput></bpmn:extensionElements></bpmn:serviceTask>`;
const capture = (id: string, bean = 'captureFaceImageV1') =>
  `<bpmn:serviceTask id="${id}" camunda:type="external" camunda:topic="userTask"><bpmn:extensionElements>
     <camunda:executionListener delegateExpression="\${${bean}}" event="start" />
   </bpmn:extensionElements></bpmn:serviceTask>`;
const end = (id: string) => `<bpmn:endEvent id="${id}" />`;
const errorBoundary = (id: string, on: string, error: string) =>
  `<bpmn:boundaryEvent id="${id}" attachedToRef="${on}"><bpmn:errorEventDefinition errorRef="${error}" /></bpmn:boundaryEvent>`;
const timer = (id: string, on: string, duration: string) =>
  `<bpmn:boundaryEvent id="${id}" attachedToRef="${on}"><bpmn:timerEventDefinition><bpmn:timeDuration xsi:type="bpmn:tFormalExpression">${duration}</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>`;

async function convert(xml: string) {
  return bpmnToDefinition(await parseBpmn(xml), META);
}

async function definitionOf(xml: string): Promise<ProcessDefinitionInput> {
  const result = await convert(xml);
  if ('problems' in result) throw new Error(`unexpected problems: ${JSON.stringify(result.problems)}`);
  return result.definition;
}

async function problemsOf(xml: string) {
  const result = await convert(xml);
  if (!('problems' in result)) throw new Error(`expected problems, got ${JSON.stringify(result.definition)}`);
  return result.problems.map((p) => `${p.code} ${p.id}: ${p.message}`);
}

function refusal(def: unknown): ValidationError {
  try {
    validateDefinition(def);
  } catch (e) {
    if (e instanceof ValidationError) return e;
    throw e;
  }
  throw new Error('expected validateDefinition to refuse');
}

describe('bpmnToDefinition', () => {
  describe('the onboarding journey (gateways, merges, a timer, error routes by code, a retake loop, an error end, outputs)', () => {
    const converted = parseBpmn(fixture('onboarding.bpmn')).then((graph) => bpmnToDefinition(graph, META));

    it('becomes a definition that validates and compiles, named and versioned by the caller', async () => {
      const result = await converted;
      expect('definition' in result).toBe(true);
      const def = validateDefinition((result as { definition: unknown }).definition);
      expect(def).toMatchObject({ name: 'onboarding', version: 3, description: 'From the designer', startActivityId: 'Activity_addUser' });
      const asl = compileDefinition(def, { activityFunctionArn: ARN, executionEndFunctionArn: END_ARN });
      expect(asl.StartAt).toBe('Activity_addUser');
      expect(Object.keys(asl.States)).toEqual(
        expect.arrayContaining(['Activity_addUser', 'Activity_details', 'Activity_idCard', 'Activity_captureFace', 'Gateway_document', 'Gateway_photo', 'EndEvent_timedOut', 'EndEvent_declined']),
      );
      // Happy path: add user, details, the document gateway, the ID card, capture, the photo gateway, the PASS decider, Record outcome.
      expect(aslPathTransitions(asl).happy).toBe(8);
    });

    it('keys activities by BPMN id, with their type from the bean name, inputs by label and outputs', async () => {
      const { definition } = (await converted) as { definition: ProcessDefinitionInput };
      expect(definition.activities.Activity_addUser).toEqual({
        type: 'ADD_USER',
        name: 'Add user',
        inputs: { 'External ID': '${externalId}', 'Store Name': 'customers', 'User Key': 'user1' },
        next: 'Activity_details',
        errorEvents: { 'ExtId Not Unique': 'Activity_decline', 'Failed to add the user': 'Activity_decline' },
        // camunda:errorCodeVariable on the boundary event
        errorVariables: { 'ExtId Not Unique': { code: 'addUserErrorCode' } },
      });
      const details = definition.activities.Activity_details!;
      // The inline form, written as text in the designer, is its JSON.
      expect(details.inputs?.Form).toMatchObject({ title: { values: { en: 'Your details' } }, components: [{ id: 'firstName' }, { id: 'lastName' }, { id: 'passport' }] });
      expect(details.outputs).toEqual({ _documentType: '${details.passport == true ? "PASSPORT" : "ID_CARD"}', lastName: '${details.lastName}' });
      expect(details.timer).toEqual({ id: 'Event_detailsTimeout', duration: 'PT30M', next: 'EndEvent_abandoned' });
      expect(definition.activities.Activity_idCard?.inputs?.['Step Timeout (Seconds)']).toBe(900);
      expect(definition.activities.Activity_captureFace?.timer).toEqual({ id: 'Event_captureTimeout', duration: 'PT4M30S', next: 'EndEvent_timedOut' });
      expect(definition.activities.Activity_pass).toEqual({ type: 'SIMPLE_DECIDER', name: 'Pass', inputs: { Outcome: 'PASS' }, next: 'EndEvent_done' });
    });

    it('collapses merging gateways: the flows into one go where it leads', async () => {
      const { definition } = (await converted) as { definition: ProcessDefinitionInput };
      expect(Object.keys(definition.gateways ?? {})).toEqual(['Gateway_document', 'Gateway_photo']);
      expect(definition.activities.Activity_idCard?.next).toBe('Activity_captureFace');
      expect(definition.gateways?.Gateway_document?.branches[0]?.next).toBe('Activity_captureFace');
    });

    it('makes the conditional flows branches in document order and the default flow the default, keeping flow ids and names', async () => {
      const { definition } = (await converted) as { definition: ProcessDefinitionInput };
      expect(definition.gateways?.Gateway_photo).toEqual({
        name: 'Photo usable?',
        branches: [
          { id: 'Flow_retake', name: 'Retake', when: '${faceResult == "REVIEW" && retake != "no"}', next: 'Activity_captureFace' },
          { id: 'Flow_photoFailed', name: 'Failed', when: '${faceResult eq "FAIL"}', next: 'Activity_decline' },
          { id: 'Flow_mobile', name: 'On a phone', when: '${execution.hasVariable("isMobile") ? isMobile : false}', next: 'Activity_review' },
        ],
        default: 'Activity_pass',
        defaultFlowId: 'Flow_pass',
      });
    });

    it('keeps end events, an error end with its error code', async () => {
      const { definition } = (await converted) as { definition: ProcessDefinitionInput };
      expect(definition.ends).toEqual({
        EndEvent_abandoned: { name: 'Abandoned' },
        EndEvent_timedOut: { name: 'Capture timed out', error: 'captureTimedOut' },
        EndEvent_done: { name: 'Onboarded' },
        EndEvent_review: { name: 'To review' },
        EndEvent_declined: { name: 'Declined', error: 'identityDeclined' },
      });
    });
  });

  it('converts the other valid fixtures and the onboarding example to definitions that validate', async () => {
    const example = readFileSync(join(import.meta.dirname, '../../../statemachines/examples/onboarding.bpmn'), 'utf8');
    for (const xml of [fixture('linear.bpmn'), fixture('retake.bpmn'), example]) {
      const def = validateDefinition(await definitionOf(xml));
      expect(Object.values(def.activities).some((a) => a.type === 'DATA_FORM' && a.inputs['Data form name'] !== undefined)).toBe(true);
    }
  });

  it('returns the parser problems as they are, adding none for the flows that touch the elements they name', async () => {
    const graph = await parseBpmn(fixture('unsupported.bpmn'));
    expect(bpmnToDefinition(graph, META)).toEqual({ problems: graph.problems });
  });

  it('leaves empty inputs out, reads a number or boolean written as text, and sets an empty output to null', async () => {
    const def = await definitionOf(
      definitions(`${flow('f0', 'start', 'a')}
        <bpmn:serviceTask id="a" camunda:type="external"><bpmn:extensionElements>
          <camunda:executionListener delegateExpression="\${waitOnPushNotificationV1}" event="start" />
          <camunda:inputOutput>
            <camunda:inputParameter name="url" labelName="Polling URL" type="STRING" />
            <camunda:inputParameter name="count" labelName="Polling Error Retry Count" type="STRING">4</camunda:inputParameter>
            <camunda:inputParameter name="interval" labelName="Polling Interval (ms)" type="STRING">\${interval}</camunda:inputParameter>
            <camunda:outputParameter name="cleared" />
          </camunda:inputOutput>
        </bpmn:extensionElements></bpmn:serviceTask>`),
    );
    expect(def.activities.a).toEqual({ type: 'WAIT_ON_PUSH_NOTIFICATION', inputs: { 'Polling Error Retry Count': 4, 'Polling Interval (ms)': '${interval}' }, outputs: { cleared: '${null}' } });
    expect(validateDefinition(def).activities.a?.inputs['Polling URL']).toBe('${_pollingUrl}');
  });

  it('reads a label differing from the catalogue only in case or spacing as that input, and refuses it given twice', async () => {
    const task = (params: string) =>
      definitions(`${flow('f0', 'start', 'a')}
        <bpmn:serviceTask id="a" camunda:type="external"><bpmn:extensionElements>
          <camunda:executionListener delegateExpression="\${waitOnPushNotificationV1}" event="start" />
          <camunda:inputOutput>${params}</camunda:inputOutput>
        </bpmn:extensionElements></bpmn:serviceTask>`);
    const def = await definitionOf(task(`<camunda:inputParameter name="count" labelName="polling  error retry COUNT" type="STRING">4</camunda:inputParameter>`));
    expect(def.activities.a?.inputs).toEqual({ 'Polling Error Retry Count': 4 });
    const twice = (await convert(
      task(`<camunda:inputParameter name="a" labelName="Polling Error Retry Count" type="STRING">4</camunda:inputParameter>
            <camunda:inputParameter name="b" labelName="polling error retry count" type="STRING">5</camunda:inputParameter>`),
    )) as { problems: { code: string; message: string }[] };
    expect(twice.problems).toEqual([expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringContaining('given twice') })]);
  });

  it('matches an input by the family\'s stable name first, then by the family\'s label, as its designer writes them', async () => {
    const form = (params: string, listeners = '<camunda:executionListener delegateExpression="\${customDataFormV1}" event="start" />') =>
      definitions(`${flow('f0', 'start', 'form')}
        <bpmn:serviceTask id="form" camunda:type="external"><bpmn:extensionElements>
          ${listeners}
          <camunda:inputOutput>${params}</camunda:inputOutput>
        </bpmn:extensionElements></bpmn:serviceTask>${flow('f1', 'form', 'done')}${end('done')}`);
    // As a real export writes them: labels the spec does not use, names it knows.
    const def = await definitionOf(
      form(`<camunda:inputParameter name="dataFormName" labelName="Name of the form" type="STRING">signup</camunda:inputParameter>
            <camunda:inputParameter name="dataFormVersion" labelName="Data form version" type="STRING">2</camunda:inputParameter>
            <camunda:inputParameter name="maxAttempts" labelName="Attempts" type="STRING">\${3}</camunda:inputParameter>
            <camunda:inputParameter name="readOnlyForm" labelName="Readonly" type="BOOLEAN">\${true}</camunda:inputParameter>
            <camunda:inputParameter name="hideButtons" labelName="Hide buttons" type="BOOLEAN">false</camunda:inputParameter>`),
    );
    expect(def.activities.form?.inputs).toEqual({ 'Data form name': 'signup', 'Data form version': 2, 'Max Attempts': 3, 'Read Only': true, 'Hide Buttons': false });
    // The stable name wins over a label naming another input.
    const named = await definitionOf(form(`<camunda:inputParameter name="dataFormName" labelName="Form data Key" type="STRING">signup</camunda:inputParameter>`));
    expect(named.activities.form?.inputs).toEqual({ 'Data form name': 'signup' });
    // Two parameters that name one input, one by name and one by label, are that input twice.
    const twice = await problemsOf(
      form(`<camunda:inputParameter name="dataFormName" labelName="x" type="STRING">a</camunda:inputParameter>
            <camunda:inputParameter name="other" labelName="Data form name" type="STRING">b</camunda:inputParameter>`),
    );
    expect(twice).toEqual([expect.stringMatching(/^INVALID_INPUT form: input Data form name: given twice/)]);
  });

  it('accepts a user step\'s end listener that is its own or no spec\'s, and refuses one of another activity', async () => {
    const step = (endBean: string) =>
      definitions(`${flow('f0', 'start', 'form')}
        <bpmn:serviceTask id="form" camunda:type="external"><bpmn:extensionElements>
          <camunda:executionListener delegateExpression="\${customDataFormV1}" event="start" />
          <camunda:executionListener delegateExpression="\${${endBean}}" event="end" />
          <camunda:inputOutput><camunda:inputParameter name="dataFormName" labelName="Data form name" type="STRING">signup</camunda:inputParameter></camunda:inputOutput>
        </bpmn:extensionElements></bpmn:serviceTask>${flow('f1', 'form', 'done')}${end('done')}`);
    expect((await definitionOf(step('customDataFormWriterV1'))).activities.form?.type).toBe('DATA_FORM');
    expect((await parseBpmn(step('customDataFormWriterV1'))).tasks[0]?.endBeanName).toBe('customDataFormWriterV1');
    expect((await definitionOf(step('someAuditWriterV1'))).activities.form?.type).toBe('DATA_FORM');
    expect(await problemsOf(step('captureFaceImageV1'))).toEqual([
      'UNKNOWN_ACTIVITY form: the end listener captureFaceImageV1 belongs to CAPTURE_FACE_IMAGE, not to this step\'s DATA_FORM',
    ]);
  });

  it('refuses a data form input whose text is not JSON, naming the task and the input', async () => {
    const problems = (
      await convert(
        definitions(`${flow('f0', 'start', 'form')}
          <bpmn:serviceTask id="form" camunda:type="external"><bpmn:extensionElements>
            <camunda:executionListener delegateExpression="\${customDataFormV1}" event="start" />
            <camunda:inputOutput><camunda:inputParameter name="form" labelName="Form" type="STRING">{"title": </camunda:inputParameter></camunda:inputOutput>
          </bpmn:extensionElements></bpmn:serviceTask>`),
      )
    ) as { problems: unknown[] };
    expect(problems.problems).toEqual([
      { code: 'INVALID_INPUT', id: 'form', element: 'bpmn:ServiceTask', input: 'Form', message: expect.stringMatching(/^input Form: the data form is not JSON: /) },
    ]);
  });

  it('routes error boundary events by error code to the activity’s error event, and refuses an unknown code naming the activity and its codes', async () => {
    const def = await definitionOf(
      definitions(`${flow('f0', 'start', 'add')}${addUser('add')}${flow('f1', 'add', 'done')}${end('done')}
        ${errorBoundary('dup', 'add', 'Error_dup')}${flow('f2', 'dup', 'declined')}${end('declined')}`),
    );
    expect(def.activities.add?.errorEvents).toEqual({ 'ExtId Not Unique': 'declined' });
    expect(def.activities.add?.errorVariables).toBeUndefined();

    expect(
      await problemsOf(
        definitions(`${flow('f0', 'start', 'add')}${addUser('add')}${flow('f1', 'add', 'done')}${end('done')}
          ${errorBoundary('other', 'add', 'Error_other')}${flow('f2', 'other', 'done')}`),
      ),
    ).toEqual(['UNKNOWN_ERROR_CODE other: error code failedFaceMatch (Error_other) is not an error of add (addUserV1); its error codes are failedToAddUser, extIdNotUnique']);
    expect(
      await problemsOf(definitions(`${flow('f0', 'start', 'c')}${capture('c')}${errorBoundary('e', 'c', 'Error_dup')}${flow('f2', 'e', 'c')}`)),
    ).toEqual(['UNKNOWN_ERROR_CODE e: error code extIdNotUnique (Error_dup) is not an error of c (captureFaceImageV1); its error codes are livenessChallengeDeclined']);
    expect(
      await problemsOf(definitions(`${flow('f0', 'start', 'c')}${capture('c', 'genericUserTaskV1')}${errorBoundary('e', 'c', 'Error_dup')}${flow('f2', 'e', 'c')}`)),
    ).toEqual(['UNKNOWN_ERROR_CODE e: error code extIdNotUnique (Error_dup) is not an error of c (genericUserTaskV1); it raises no errors']);
  });

  it("matches the family's PascalCase error codes, capitalised codes, and leaves an unknown activity's boundaries to its own problem", async () => {
    const errors = `<bpmn:error id="Error_ex" name="Exceeded" errorCode="ExceededCustomDataFormRetake" />
      <bpmn:error id="Error_fsr" name="Failed sync rule" errorCode="FailedSyncRuleExecution" />
      <bpmn:error id="Error_dupCap" name="Dup" errorCode="ExtIdNotUnique" />
      <bpmn:error id="Error_unused" name="Never referenced" errorCode="FailedDocumentQuality" />`;
    const form = `<bpmn:serviceTask id="form" camunda:type="external" camunda:topic="userTask"><bpmn:extensionElements>
        <camunda:executionListener delegateExpression="\${customDataFormV1}" event="start" />
        <camunda:executionListener delegateExpression="\${customDataFormWriterV1}" event="end" />
        <camunda:inputOutput><camunda:inputParameter name="dataFormName" labelName="Data form name">details</camunda:inputParameter>
        <camunda:inputParameter name="dataFormVersion" labelName="Data form version" /><camunda:inputParameter name="formDataKey" labelName="Form data Key">details</camunda:inputParameter>
        <camunda:inputParameter name="maxAttempts" labelName="Max Attempts">\${3}</camunda:inputParameter></camunda:inputOutput>
      </bpmn:extensionElements></bpmn:serviceTask>`;
    const cf = `<bpmn:serviceTask id="cf" camunda:delegateExpression="\${syncCloudFunctionExecutorV2}"><bpmn:extensionElements><camunda:inputOutput>
        <camunda:inputParameter name="functionName" labelName="Function Name">check</camunda:inputParameter></camunda:inputOutput></bpmn:extensionElements></bpmn:serviceTask>`;
    const def = await definitionOf(
      definitions(
        `${flow('f0', 'start', 'form')}${form}${flow('f1', 'form', 'cf')}${cf}${flow('f2', 'cf', 'add')}${addUser('add')}${flow('f3', 'add', 'done')}${end('done')}
        ${errorBoundary('ex', 'form', 'Error_ex')}${flow('f4', 'ex', 'done')}${errorBoundary('fsr', 'cf', 'Error_fsr')}${flow('f5', 'fsr', 'done')}
        ${errorBoundary('dup', 'add', 'Error_dupCap')}${flow('f6', 'dup', 'done')}`,
        errors,
      ),
    );
    expect(def.activities.form?.errorEvents).toEqual({ 'Max Attempts Exceeded': 'done' });
    expect(def.activities.cf?.errorEvents).toEqual({ 'Failed Sync Rule Execution': 'done' });
    expect(def.activities.add?.errorEvents).toEqual({ 'ExtId Not Unique': 'done' });
    // The family's route catches every failure of the cloud function step.
    const asl = compileDefinition(validateDefinition(def), { activityFunctionArn: ARN, executionEndFunctionArn: END_ARN });
    const cfState = asl.States.cf as { Catch?: { ErrorEquals: string[] }[] };
    expect(cfState.Catch?.[0]?.ErrorEquals).toEqual(['CloudFunctionError', 'CloudFunctionTimeout', 'CloudFunctionNotFound', 'CloudSecretMissing']);
    // Routing it beside one of the four is refused: the first Catch would take the error.
    const both = { ...def, activities: { ...def.activities, cf: { ...def.activities.cf!, errorEvents: { 'Failed Sync Rule Execution': 'done', 'Function Error': 'done' } } } };
    expect(refusal(both).details?.map((d) => d.message).join('\n')).toContain('both catch CloudFunctionError');

    // A bean the service cannot run: only that is said, not each of its error codes.
    const unknown = `<bpmn:serviceTask id="dq" camunda:delegateExpression="\${vendorVoiceMatchV1}" />`;
    expect(
      await problemsOf(definitions(`${flow('f0', 'start', 'dq')}${unknown}${flow('f1', 'dq', 'done')}${end('done')}${errorBoundary('q', 'dq', 'Error_unused')}${flow('f2', 'q', 'done')}`, errors)),
    ).toEqual(['UNKNOWN_ACTIVITY dq: vendorVoiceMatchV1 names no activity this service runs']);
  });

  it("reads the end event's redirectMapperV1 listener as the final screen, and refuses another bean there", async () => {
    const endWith = (bean: string) => `<bpmn:endEvent id="done"><bpmn:extensionElements><camunda:inputOutput>
        <camunda:inputParameter name="screens"><camunda:list><camunda:value>thank-you</camunda:value></camunda:list></camunda:inputParameter>
        <camunda:inputParameter name="stepId">thank-you</camunda:inputParameter><camunda:inputParameter name="screenId">thank-you
        </camunda:inputParameter></camunda:inputOutput><camunda:executionListener delegateExpression="\${${bean}}" event="start" /></bpmn:extensionElements></bpmn:endEvent>`;
    const def = await definitionOf(definitions(`${flow('f0', 'start', 'add')}${addUser('add')}${flow('f1', 'add', 'done')}${endWith('redirectMapperV1')}`));
    expect(def.ends?.done).toEqual({ screen: 'thank-you' });
    expect(validateDefinition(def).ends?.done).toEqual({ screen: 'thank-you' });
    expect(await problemsOf(definitions(`${flow('f0', 'start', 'add')}${addUser('add')}${flow('f1', 'add', 'done')}${endWith('somethingElseV1')}`))).toEqual([
      "UNKNOWN_ACTIVITY done: the end event's listener somethingElseV1 is not one this service runs: an end event takes redirectMapperV1 once",
    ]);
  });

  it('refuses a second timer on a task and a second route for one error', async () => {
    expect(
      await problemsOf(
        definitions(`${flow('f0', 'start', 'c')}${capture('c')}${flow('f1', 'c', 'done')}${end('done')}
          ${timer('t1', 'c', 'PT5M')}${flow('f2', 't1', 'done')}${timer('t2', 'c', 'PT9M')}${flow('f3', 't2', 'done')}
          ${addUser('add')}${flow('f4', 'add', 'done')}
          ${errorBoundary('d1', 'add', 'Error_dup')}${flow('f5', 'd1', 'done')}${errorBoundary('d2', 'add', 'Error_dup')}${flow('f6', 'd2', 'done')}`),
      ),
    ).toEqual([
      'DUPLICATE_BOUNDARY t2: a second timer on c (the first is t1): a step has one timeout',
      'DUPLICATE_BOUNDARY d2: a second boundary event on add for error code extIdNotUnique: one route per error',
    ]);
  });

  it('reads a timer on a service step as its timer, which validation takes', async () => {
    const def = await definitionOf(
      definitions(`${flow('f0', 'start', 'add')}${addUser('add')}${flow('f1', 'add', 'done')}${end('done')}${timer('Event_slow', 'add', 'PT10M30S')}${flow('f2', 'Event_slow', 'done')}`),
    );
    expect(def.activities.add?.timer).toEqual({ id: 'Event_slow', duration: 'PT10M30S', next: 'done' });
    expect(() => validateDefinition(def)).not.toThrow();
  });

  it('refuses a task with two outgoing flows (a parallel split) and a condition on a flow that leaves no gateway', async () => {
    expect(
      await problemsOf(
        definitions(`${flow('f0', 'start', 'c')}${capture('c')}${flow('f1', 'c', 'x')}${flow('f2', 'c', 'y')}${end('x')}${end('y')}
          ${capture('d')}${flow('f3', 'd', 'x', '${a == 1}')}`),
      ),
    ).toEqual([
      'CONDITIONAL_FLOW f3: the flow out of d has a condition: only the flows out of an exclusive gateway have conditions',
      'PARALLEL_SPLIT c: task c has 2 outgoing flows (f1, f2): a journey follows one path at a time; branch with an exclusive gateway',
    ]);
  });

  it('refuses a branching gateway’s flow without a condition that is not its default, and a default that is not its own flow', async () => {
    expect(
      await problemsOf(
        definitions(`${flow('f0', 'start', 'g')}
          <bpmn:exclusiveGateway id="g" default="f9" />${flow('f1', 'g', 'x', '${a == 1}')}${flow('f2', 'g', 'y')}${end('x')}${end('y')}
          ${flow('f9', 'start', 'y')}`),
      ),
    ).toEqual([
      'PARALLEL_SPLIT start: the start event has 2 outgoing flows (f0, f9): a journey follows one path at a time; branch with an exclusive gateway',
      "INVALID_FLOW g: the gateway's default f9 is not one of its outgoing flows (f1, f2)",
      "MISSING_CONDITION f2: the flow out of gateway g has no condition and is not the gateway's default flow: give it a condition, or make it the default",
    ]);
  });

  it('ignores a condition on a default flow, as Camunda does, and leaves a gateway without default to validation', async () => {
    const def = await definitionOf(
      definitions(`${flow('f0', 'start', 'g')}
        <bpmn:exclusiveGateway id="g" default="f2" />${flow('f1', 'g', 'x', '${a == 1}')}${flow('f2', 'g', 'y', '${a == 2}')}${end('x')}${end('y')}
        ${capture('c')}${flow('f3', 'c', 'h')}<bpmn:exclusiveGateway id="h" />${flow('f4', 'h', 'x', '${b == 1}')}`),
    );
    expect(def.gateways?.g).toEqual({ branches: [{ id: 'f1', when: '${a == 1}', next: 'x' }], default: 'y', defaultFlowId: 'f2' });
    // A gateway without a default is taken (no branch is a run-time error, as in the family).
    expect(def.gateways?.h).toEqual({ branches: [{ id: 'f4', when: '${b == 1}', next: 'x' }] });
    expect(refusal(def).details?.map((d) => d.location) ?? []).not.toContain('gateways.h.default');
  });

  it('refuses flows the journey cannot take, missing flows and a loop of merging gateways', async () => {
    expect(
      await problemsOf(
        definitions(`${flow('f0', 'start', 'm1')}<bpmn:exclusiveGateway id="m1" />${flow('f1', 'm1', 'm2')}<bpmn:exclusiveGateway id="m2" />${flow('f2', 'm2', 'm1')}
          ${end('e')}${flow('f3', 'e', 'c')}${capture('c')}${flow('f4', 'c', 'start')}
          ${timer('t', 'c', 'PT5M')}<bpmn:exclusiveGateway id="lonely" />`),
      ),
    ).toEqual([
      'INVALID_FLOW f3: the flow leaves end event e: nothing follows an end',
      'INVALID_FLOW f4: the flow goes to start event start: a journey starts only from its process token',
      'INVALID_FLOW m1: merging gateways m1 → m2 lead only to each other: the journey would never leave them',
      'MISSING_FLOW t: the boundary event on c has no outgoing flow: say where the journey goes when it fires',
      'MISSING_FLOW lonely: the gateway has no outgoing flow',
    ]);
    expect(await problemsOf(definitions(capture('c')))).toEqual(['MISSING_FLOW start: the start event has no outgoing flow']);
  });

  it('follows a chain of merging gateways, from the start too', async () => {
    const def = await definitionOf(
      definitions(`${flow('f0', 'start', 'm1')}<bpmn:exclusiveGateway id="m1" />${flow('f1', 'm1', 'm2')}<bpmn:exclusiveGateway id="m2" default="f2" />${flow('f2', 'm2', 'c')}
        ${capture('c')}${flow('f3', 'c', 'm1')}`),
    );
    expect(def.startActivityId).toBe('c');
    expect(def.activities.c?.next).toBe('c');
    expect(def.gateways).toBeUndefined();
  });

  it('keeps BPMN ids as they are, and leaves ids the definition cannot take to validation, which names them', async () => {
    const long = `Activity_${'x'.repeat(80)}`;
    const def = await definitionOf(definitions(`${flow('f0', 'start', long)}${capture(long)}`));
    expect(def.startActivityId).toBe(long);
    expect(refusal(def).details?.some((d) => d.location.includes(long))).toBe(true);
  });
});
