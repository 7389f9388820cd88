import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, finalStatus, pageUntil } from './client.js';

/**
 * The family's journeys over HTTP, as its deployment pipeline and its end users' browsers use the
 * service: a data form and a cloud function uploaded under the names the BPMN gives (the BPMN
 * names neither version: the latest active one runs), the BPMN uploaded as the pipeline sends it,
 * activated, and run through its pages to the status the family would give. The BPMN
 * (test/fixtures/bpmn/family-journey.bpmn) is drawn in the family's dialect.
 */
const BASE = '/api/process-manager/processDefinitions';
const BPMN = readFileSync(join(import.meta.dirname, '../fixtures/bpmn/family-journey.bpmn'), 'utf8');
const fresh = () => Math.random().toString(36).slice(2, 10);
let token: string;

/** The details form as the family's visual builder saves it. */
const DETAILS_FORM = JSON.stringify({
  title: { type: 'title', isValid: true, values: { en: 'Your details' } },
  subtitle: { values: { en: '' } },
  components: [
    { type: 'paragraph', id: 'intro', index: 0, isValid: true, values: { en: 'Tell us how this should end.' } },
    { type: 'text', id: 'name', index: 1, label: { values: { en: 'Name' } }, default: '{{processvar.firstName }}', validate: { required: true } },
    {
      type: 'select',
      id: 'plan',
      index: 2,
      label: { values: { en: 'Plan' } },
      values: ['PASS', 'FAIL', 'REVIEW', 'RETRY', 'ERROR'].map((value) => ({ value, label: { values: { en: value } } })),
      validate: { required: true },
    },
  ],
  submitButton: { values: { en: 'Continue' } },
  version: '1',
});

/** What decides: the plan the end user chose; RETRY asks for another pass until the third; ERROR fails the step. */
const DECISION_FUNCTION = `export async function handler({ variables }) {
  const plan = variables.details && variables.details.plan;
  const attempt = Number(variables.attempt);
  console.log('attempt', attempt, 'plan', plan);
  if (plan === 'ERROR') throw new Error('no decision for this plan');
  if (plan === 'RETRY') return { idv: { retry: attempt < 3 } };
  return { idv: { overallDecision: plan, retry: false } };
}`;

/** The upload as the family's deployment tools send it. */
const upload = (name: string, bpmn: string) => ({
  name,
  description: 'The family journey',
  serverType: 'CAMUNDA',
  resources: { bpmn: { data: Buffer.from(bpmn).toString('base64'), type: 'BPMN' } },
  processDefinitionType: 'ONBOARDING',
  attributes: {},
  themeId: null,
});

beforeAll(async () => {
  token = await adminToken();
  // The names the BPMN gives; each run adds a newer active version, which the journey then shows and runs.
  // No version given: the next one is taken (other suites add versions of this name too).
  const form = await call('POST', '/api/process-manager/customDataForms', {
    token,
    body: { name: 'FamilyDetails', description: 'the family journey details', status: 'DEPLOYED_ACTIVE', creationOption: 'NEW', resource: DETAILS_FORM },
  });
  expect(form.status, form.text).toBe(201);
  const fn = await call('POST', '/api/process-manager/cloudFunctions', { token, body: { name: 'FamilyDecision', source: DECISION_FUNCTION, status: 'DEPLOYED_ACTIVE' } });
  expect(fn.status, fn.text).toBe(201);
});

async function deploy(bpmn = BPMN): Promise<string> {
  const name = `family-${fresh()}`;
  const created = await call('POST', BASE, { token, body: upload(name, bpmn) });
  expect(created.status, created.text).toBe(201);
  const activated = await call('POST', `${BASE}/${created.json.id}/status/DEPLOYED_ACTIVE`, { token });
  expect(activated.status, activated.text).toBe(200);
  return name;
}

async function run(definition: string, plan: string): Promise<{ id: string; status: string; logs: string }> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: { name: `fam-${fresh()}`, processDefnName: definition, processDefnVersion: 1, parameters: { firstName: 'Ann', middleName: null } },
  });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status, created.text).toBe(201);
  const url = new URL(created.json.redirectUrl);
  const id = created.json.processInstanceId as string;
  const page = await pageUntil(`${url.pathname}${url.search}&lang=en`, 'name="plan"');
  // The template default, filled from the token's parameters; the builder's paragraph text.
  expect(page).toContain('value="Ann"');
  expect(page).toContain('Tell us how this should end.');
  const sent = await call('POST', `/journey/${id}/steps/CDF01_details?c=${url.searchParams.get('c')}&lang=en`, {
    rawBody: new URLSearchParams({ name: 'Ann', plan }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(sent.status, sent.text).toBe(303);
  const status = await finalStatus(id, token);
  const logs = JSON.stringify((await call('GET', `/api/process-manager/processInstances/${id}/cloudFunctionLogs`, { token })).json);
  return { id, status, logs };
}

describe("the family's journeys", () => {
  it('deploy as drawn and end in the status the family gives: the decider from the function, its failure route, a counted retry loop', async () => {
    const definition = await deploy();
    // The decision the function derives.
    expect((await run(definition, 'PASS')).status).toBe('COMPLETED_ENDED_SUCCESS');
    expect((await run(definition, 'FAIL')).status).toBe('COMPLETED_ENDED_ERROR');
    expect((await run(definition, 'REVIEW')).status).toBe('REVIEW');
    // The function fails: FailedSyncRuleExecution's route, then the decider's Decision on Any Failure.
    expect((await run(definition, 'ERROR')).status).toBe('REVIEW');
    // A loop of service steps counted by the Counter: three passes, then the gateway's `${attempt > 2}`.
    const retried = await run(definition, 'RETRY');
    expect(retried.status).toBe('COMPLETED_ENDED_SUCCESS');
    expect(retried.logs).toContain('attempt 3');
    expect(retried.logs).not.toContain('attempt 4');
  });

  it('read back as uploaded, and are refused only for the activities other work adds, each named with its element id and bean', async () => {
    const definition = await deploy();
    const versions = await call('GET', `${BASE}/${definition}/versions?page=0&size=1&sort=version,desc`, { token });
    expect(versions.status).toBe(200);
    const bpmnFile = await call('GET', `${BASE}/${versions.json.content[0].processDefinitionId}/bpmnFile`, { token });
    expect(bpmnFile.text).toBe(BPMN);

    // A custom page (a user step, known since issue 28), a Python cloud function (known since issue 29), a face liveness check and a face template generation (known since issue 31) and an archive step (known, not yet runnable: issue 33) on the disabled branch.
    const withOthers = BPMN.replace(
      '<bpmn:endEvent id="Event_declined" name="Declined">',
      `<bpmn:serviceTask id="CPG01_page" name="Custom page" camunda:skyId="CPG01" camunda:type="external" camunda:topic="\${execution.getVariableLocal('localTopicId')}">
        <bpmn:extensionElements>
          <camunda:inputOutput><camunda:inputParameter name="customPageName" labelName="Custom Page Name" type="STRING">PageOtp</camunda:inputParameter></camunda:inputOutput>
          <camunda:executionListener delegateExpression="\${customPageV1}" event="start" />
          <camunda:executionListener delegateExpression="\${customPageEndV1}" event="end" />
        </bpmn:extensionElements>
      </bpmn:serviceTask>
      <bpmn:serviceTask id="ECF01_python" name="Python CF" camunda:delegateExpression="\${syncRuleExecutorV1}" camunda:skyId="ECF01" />
      <bpmn:sequenceFlow id="Flow_p1" sourceRef="CPG01_page" targetRef="ECF01_python" />
      <bpmn:sequenceFlow id="Flow_p2" sourceRef="ECF01_python" targetRef="FLA01_liveness" />
      <bpmn:serviceTask id="FLA01_liveness" name="Perform liveness check" camunda:delegateExpression="\${checkFaceLivenessV1}" camunda:skyId="FLA01" />
      <bpmn:sequenceFlow id="Flow_p4" sourceRef="FLA01_liveness" targetRef="FTG01_template" />
      <bpmn:serviceTask id="FTG01_template" name="Face template" camunda:delegateExpression="\${faceTemplateGenerationV1}" camunda:skyId="FTG01" />
      <bpmn:sequenceFlow id="Flow_p5" sourceRef="FTG01_template" targetRef="API01_archive" />
      <bpmn:serviceTask id="API01_archive" name="Archive" camunda:delegateExpression="\${archiveProcessInstanceV1}" camunda:skyId="API01">
        <bpmn:extensionElements><camunda:inputOutput>
          <camunda:inputParameter name="Archive Policy Name" labelName="Archive Policy Name">kyc-7y</camunda:inputParameter>
          <camunda:inputParameter name="Archive Policy Version" labelName="Archive Policy Version">\${1}</camunda:inputParameter>
        </camunda:inputOutput></bpmn:extensionElements>
      </bpmn:serviceTask>
      <bpmn:sequenceFlow id="Flow_p6" sourceRef="API01_archive" targetRef="Event_declined" />
      <bpmn:boundaryEvent id="ECF01-e-fsr_python" attachedToRef="ECF01_python"><bpmn:outgoing>Flow_p3</bpmn:outgoing><bpmn:errorEventDefinition errorRef="Error_syncRule" /></bpmn:boundaryEvent>
      <bpmn:sequenceFlow id="Flow_p3" sourceRef="ECF01-e-fsr_python" targetRef="Event_declined" />
      <bpmn:endEvent id="Event_declined" name="Declined">`,
    ).replace('targetRef="Event_declined">\n      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">${false}', 'targetRef="CPG01_page">\n      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">${false}');
    expect(withOthers).toContain('targetRef="CPG01_page"');
    const refused = await call('POST', BASE, { token, body: upload(`family-${fresh()}`, withOthers) });
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe('INVALID_BPMN');
    expect(refused.json.details.map((d: { location: string }) => d.location).sort()).toEqual(['bpmn.API01_archive']);
    const messages = refused.json.details.map((d: { message: string }) => d.message).join('\n');
    expect(messages).not.toContain('customPageV1');
    expect(messages).not.toContain('syncRuleExecutorV1');
    expect(messages).not.toContain('checkFaceLivenessV1');
    expect(messages).not.toContain('faceTemplateGenerationV1');
    expect(messages).toContain('archiveProcessInstanceV1, ARCHIVE_PROCESS_INSTANCE): this deployment cannot run it');
  });
});
