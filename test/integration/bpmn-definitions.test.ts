import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, exampleNamed, finalStatus, pageUntil } from './client.js';
import { MAX_BPMN_BYTES, MAX_UPLOAD_BODY_BYTES } from '../../functions/process-manager/definitions/definition-schemas.js';
import { EXAMPLE_FORMS } from '../../statemachines/examples/index.js';

const BASE = '/api/process-manager/processDefinitions';
const FIXTURES = join(import.meta.dirname, '../fixtures/bpmn');
let token: string;
beforeAll(async () => {
  token = await adminToken();
});

const fresh = () => `bpmn-${Math.random().toString(36).slice(2, 10)}`;

/** The body the family's deployment tools post: the file as base64, the version left to the server. */
function upload(name: string, bpmn: string | Buffer, extra: Record<string, unknown> = {}) {
  return {
    name,
    description: 'Uploaded as the deployment tools do',
    serverType: 'CAMUNDA',
    resources: { bpmn: { data: Buffer.from(bpmn).toString('base64'), type: 'BPMN' } },
    processDefinitionType: 'ONBOARDING',
    attributes: { searchable: true },
    themeId: null,
    tenantId: 'demo',
    ...extra,
  };
}

const post = (body: unknown) => call('POST', BASE, { token, body });

/** A theme of the demo tenant, as the family's tools make one before they name it in a definition. */
async function newThemeId(): Promise<string> {
  const res = await call('POST', '/api/theme-server/themes', { token, body: { name: `brand-${fresh()}`, palette: {}, status: 'EDITABLE' } });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

/**
 * A journey in the family's dialect that this deployment runs as it is: add the user (an error
 * boundary by the family's code), a gateway on a token parameter with a default flow, a user step
 * with a timer boundary, deciders that record the outcome, and ends.
 */
const JOURNEY = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="Definitions_publish" targetNamespace="http://bpmn.io/schema/bpmn" exporter="Camunda Modeler" exporterVersion="5.19.0">
  <bpmn:process id="Process_publish" name="Publish test journey" isExecutable="true">
    <bpmn:startEvent id="StartEvent_1">
      <bpmn:outgoing>Flow_start</bpmn:outgoing>
    </bpmn:startEvent>
    <bpmn:sequenceFlow id="Flow_start" sourceRef="StartEvent_1" targetRef="Activity_addUser" />
    <bpmn:serviceTask id="Activity_addUser" name="Add the user" camunda:delegateExpression="\${addUserV1}">
      <bpmn:extensionElements>
        <camunda:inputOutput>
          <camunda:inputParameter name="externalId" labelName="External ID" type="STRING">\${externalId}</camunda:inputParameter>
          <camunda:inputParameter name="storeName" labelName="Store Name" type="STRING">customers</camunda:inputParameter>
          <camunda:inputParameter name="userKey" labelName="User Key" type="STRING">user1</camunda:inputParameter>
        </camunda:inputOutput>
      </bpmn:extensionElements>
      <bpmn:incoming>Flow_start</bpmn:incoming>
      <bpmn:outgoing>Flow_toChannel</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:boundaryEvent id="Event_extIdTaken" name="External id taken" attachedToRef="Activity_addUser">
      <bpmn:outgoing>Flow_taken</bpmn:outgoing>
      <bpmn:errorEventDefinition id="ErrorEventDefinition_taken" errorRef="Error_extIdNotUnique" />
    </bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="Flow_taken" sourceRef="Event_extIdTaken" targetRef="Activity_decline" />
    <bpmn:sequenceFlow id="Flow_toChannel" sourceRef="Activity_addUser" targetRef="Gateway_channel" />
    <bpmn:exclusiveGateway id="Gateway_channel" name="Which channel?" default="Flow_other">
      <bpmn:incoming>Flow_toChannel</bpmn:incoming>
      <bpmn:outgoing>Flow_web</bpmn:outgoing>
      <bpmn:outgoing>Flow_other</bpmn:outgoing>
    </bpmn:exclusiveGateway>
    <bpmn:sequenceFlow id="Flow_web" name="Web" sourceRef="Gateway_channel" targetRef="Activity_captureFace">
      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">\${channel == "web"}</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="Flow_other" sourceRef="Gateway_channel" targetRef="Activity_review" />
    <bpmn:serviceTask id="Activity_captureFace" name="Capture face" camunda:type="external" camunda:topic="userTask">
      <bpmn:extensionElements>
        <camunda:executionListener delegateExpression="\${captureFaceImageV1}" event="start" />
        <camunda:inputOutput>
          <camunda:inputParameter name="faceKey" labelName="Face Key" type="STRING">face1</camunda:inputParameter>
        </camunda:inputOutput>
      </bpmn:extensionElements>
      <bpmn:incoming>Flow_web</bpmn:incoming>
      <bpmn:outgoing>Flow_captured</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:boundaryEvent id="Event_captureTimeout" name="10 minutes" attachedToRef="Activity_captureFace">
      <bpmn:outgoing>Flow_timedOut</bpmn:outgoing>
      <bpmn:timerEventDefinition id="TimerEventDefinition_capture">
        <bpmn:timeDuration xsi:type="bpmn:tFormalExpression">PT10M</bpmn:timeDuration>
      </bpmn:timerEventDefinition>
    </bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="Flow_timedOut" sourceRef="Event_captureTimeout" targetRef="Activity_decline" />
    <bpmn:sequenceFlow id="Flow_captured" sourceRef="Activity_captureFace" targetRef="Activity_accept" />
    <bpmn:serviceTask id="Activity_accept" name="Accept" camunda:delegateExpression="\${activityOutcomeDeciderV1}">
      <bpmn:extensionElements>
        <camunda:inputOutput>
          <camunda:inputParameter name="outcome" labelName="Outcome" type="ENUM">PASS</camunda:inputParameter>
        </camunda:inputOutput>
      </bpmn:extensionElements>
      <bpmn:incoming>Flow_captured</bpmn:incoming>
      <bpmn:outgoing>Flow_accepted</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="Flow_accepted" sourceRef="Activity_accept" targetRef="EndEvent_done" />
    <bpmn:serviceTask id="Activity_review" name="Review" camunda:delegateExpression="\${activityOutcomeDeciderV1}">
      <bpmn:extensionElements>
        <camunda:inputOutput>
          <camunda:inputParameter name="outcome" labelName="Outcome" type="ENUM">REVIEW</camunda:inputParameter>
        </camunda:inputOutput>
      </bpmn:extensionElements>
      <bpmn:incoming>Flow_other</bpmn:incoming>
      <bpmn:outgoing>Flow_reviewed</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="Flow_reviewed" sourceRef="Activity_review" targetRef="EndEvent_done" />
    <bpmn:serviceTask id="Activity_decline" name="Decline" camunda:delegateExpression="\${activityOutcomeDeciderV1}">
      <bpmn:extensionElements>
        <camunda:inputOutput>
          <camunda:inputParameter name="outcome" labelName="Outcome" type="ENUM">FAIL</camunda:inputParameter>
        </camunda:inputOutput>
      </bpmn:extensionElements>
      <bpmn:incoming>Flow_taken</bpmn:incoming>
      <bpmn:incoming>Flow_timedOut</bpmn:incoming>
      <bpmn:outgoing>Flow_declined</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="Flow_declined" sourceRef="Activity_decline" targetRef="EndEvent_done" />
    <bpmn:endEvent id="EndEvent_done" name="Done">
      <bpmn:incoming>Flow_accepted</bpmn:incoming>
      <bpmn:incoming>Flow_reviewed</bpmn:incoming>
      <bpmn:incoming>Flow_declined</bpmn:incoming>
    </bpmn:endEvent>
  </bpmn:process>
  <bpmn:error id="Error_extIdNotUnique" name="External id not unique" errorCode="extIdNotUnique" />
</bpmn:definitions>
`;

/** JOURNEY with one change, which must be there to make. */
function changed(from: string | RegExp, to: string): string {
  const out = JOURNEY.replace(from, to);
  expect(out, `the change of ${String(from)}`).not.toBe(JOURNEY);
  return out;
}

/** Starts an instance of a definition version through a token, and gives the instance id and its redirect URL. */
async function startInstance(name: string, version: number, parameters: Record<string, string>) {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    token,
    body: { name: `${name}-v${version}-${fresh()}`, processDefnName: name, processDefnVersion: String(version), parameters },
  });
  expect(pt.status, pt.text).toBe(201);
  const made = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(made.status, made.text).toBe(201);
  return made.json as { processInstanceId: string; redirectUrl: string };
}

describe('POST /api/process-manager/processDefinitions with a BPMN upload', () => {
  it('versions, activates, finds the latest, reads the file back byte for byte and runs it, as the deployment tools do', async () => {
    const name = fresh();
    const v1 = await post(upload(name, JOURNEY));
    expect(v1.status, v1.text).toBe(201);
    expect(v1.json).toMatchObject({
      name,
      version: 1,
      status: 'DRAFT',
      processDefinitionId: v1.json.id,
      description: 'Uploaded as the deployment tools do',
      serverType: 'CAMUNDA',
      processDefinitionType: 'ONBOARDING',
      attributes: { searchable: true },
      themeId: null,
      startActivityId: 'Activity_addUser',
    });
    expect(v1.headers.location).toBe(`${BASE}/${v1.json.id}`);
    const theme = await newThemeId();
    const v2 = await post(upload(name, JOURNEY, { themeId: theme, version: 7 }));
    expect(v2.status, v2.text).toBe(201);
    // The server assigns the version: one the body names is ignored.
    expect(v2.json).toMatchObject({ version: 2, status: 'DRAFT', themeId: theme });

    // A DRAFT takes no process token until it is activated.
    const early = await call('POST', '/api/process-manager/processTokens', {
      token,
      body: { name: `${name}-early`, processDefnName: name, processDefnVersion: '2' },
    });
    expect(early.status).toBe(409);
    expect(early.json.code).toBe('PROCESS_DEFINITION_NOT_ACTIVE');
    const activated = await call('POST', `${BASE}/${v2.json.id}/status/DEPLOYED_ACTIVE`, { token });
    expect(activated.status).toBe(200);
    expect(activated.json.status).toBe('DEPLOYED_ACTIVE');

    const latest = await call('GET', `${BASE}/${encodeURIComponent(name)}/versions?page=0&size=1&sort=version,desc`, { token });
    expect(latest.status).toBe(200);
    expect(latest.json.content).toHaveLength(1);
    expect(latest.json.content[0]).toMatchObject({ processDefinitionId: v2.json.id, version: 2, status: 'DEPLOYED_ACTIVE' });

    const read = await call('GET', `${BASE}/${v2.json.id}`, { token });
    expect(read.json).toMatchObject({
      processDefinitionId: v2.json.id,
      name,
      version: 2,
      status: 'DEPLOYED_ACTIVE',
      themeId: theme,
      description: 'Uploaded as the deployment tools do',
      serverType: 'CAMUNDA',
      processDefinitionType: 'ONBOARDING',
      attributes: { searchable: true },
    });
    const file = await call('GET', `${BASE}/${v2.json.id}/bpmnFile`, { token });
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/xml');
    expect(file.raw.equals(Buffer.from(JOURNEY, 'utf8'))).toBe(true);
    // The read carries the upload as the family's migration tools read it back.
    expect(read.json.resources).toEqual({ bpmn: { data: Buffer.from(JOURNEY, 'utf8').toString('base64'), type: 'BPMN' } });
    // Lists never carry the file.
    expect(latest.json.content[0]).not.toHaveProperty('resources');
    const listed = await call('GET', `${BASE}?name=${encodeURIComponent(name)}`, { token });
    expect(listed.json.content.length).toBe(2);
    for (const row of listed.json.content) expect(row).not.toHaveProperty('resources');

    // The default flow: no channel parameter, so the journey goes to review without a user step.
    const other = await startInstance(name, 2, { externalId: `ext-${fresh()}` });
    expect(await finalStatus(other.processInstanceId, token)).toBe('REVIEW');
    // The web branch waits at the face capture, the user step with the timer.
    const web = await startInstance(name, 2, { externalId: `ext-${fresh()}`, channel: 'web' });
    const journey = new URL(web.redirectUrl);
    await pageUntil(`${journey.pathname}${journey.search}`, 'type="file"');
  });

  it('creates an upload EDITABLE, DRAFT or active as its status says; an unknown status is refused', async () => {
    const name = fresh();
    const editable = await post(upload(name, JOURNEY, { status: 'EDITABLE' }));
    expect(editable.status, editable.text).toBe(201);
    expect(editable.json.status).toBe('EDITABLE');
    expect((await call('GET', `${BASE}/${editable.json.id}`, { token })).json.status).toBe('EDITABLE');
    expect((await call('POST', `${BASE}/${editable.json.id}/status/ARCHIVED`, { token })).json.status).toBe('ARCHIVED');
    // Active at once: it has its state machine, and takes tokens without an activation.
    const active = await post(upload(name, JOURNEY, { status: 'DEPLOYED_ACTIVE' }));
    expect(active.status, active.text).toBe(201);
    expect(active.json).toMatchObject({ version: 2, status: 'DEPLOYED_ACTIVE' });
    const other = await startInstance(name, 2, { externalId: `ext-${fresh()}` });
    expect(await finalStatus(other.processInstanceId, token)).toBe('REVIEW');
    const unknown = await post(upload(name, JOURNEY, { status: 'PUBLISHED' }));
    expect(unknown.status).toBe(400);
    expect(unknown.json.details.map((d: { location: string }) => d.location)).toContain('body.status');
  });

  it('gives concurrent uploads of one name distinct versions', async () => {
    const name = fresh();
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(upload(name, JOURNEY))));
    for (const a of answers) expect(a.status, a.text).toBe(201);
    expect(answers.map((a) => a.json.version).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('takes the version after the highest one, also when versions were published in the JSON format by number', async () => {
    const name = fresh();
    expect((await post(exampleNamed(name, 4))).status).toBe(201);
    const next = await post(upload(name, JOURNEY));
    expect(next.status, next.text).toBe(201);
    expect(next.json.version).toBe(5);
  });

  it('reads back byte for byte a file with CRLF line ends, a byte-order mark, non-ASCII names and odd whitespace', async () => {
    const odd = JOURNEY.replace('name="Add the user"', 'name="Ajouter l\u2019usager \u00e0 Z\u00fcrich \u2013 \u65e5\u672c"')
      .replace('<bpmn:endEvent id="EndEvent_done" name="Done">', '<bpmn:endEvent   id="EndEvent_done"\tname="Fini \u2713 \ud83d\ude00" >')
      .replace(/\n/g, '\r\n')
      .replace('</bpmn:definitions>\r\n', '</bpmn:definitions>\r\n\r\n  \t\r\n');
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(odd, 'utf8')]);
    const made = await post(upload(fresh(), bytes));
    expect(made.status, made.text).toBe(201);
    expect(made.json.activities.Activity_addUser.name).toBe('Ajouter l\u2019usager \u00e0 Z\u00fcrich \u2013 \u65e5\u672c');
    const file = await call('GET', `${BASE}/${made.json.id}/bpmnFile`, { token });
    expect(file.raw.equals(bytes)).toBe(true);
    // The read's resources.bpmn.data is the same bytes, byte-order mark and all.
    const read = await call('GET', `${BASE}/${made.json.id}`, { token });
    expect(Buffer.from(read.json.resources.bpmn.data, 'base64').equals(bytes)).toBe(true);
  });

  it('takes each fixture whole or refuses it whole, every reason at an element of the file; the file of what cannot run is refused', async () => {
    // linear.bpmn names this form by name and version: the tenant has it (made here when missing).
    const form = await call('POST', '/api/process-manager/customDataForms', {
      token,
      body: { name: 'applicant-details', version: 1, status: 'DEPLOYED_ACTIVE', resource: EXAMPLE_FORMS.find((f) => f.name === 'onboarding-details')!.resource },
    });
    expect([201, 409]).toContain(form.status);
    // family-journey.bpmn names FamilyDetails by its latest active version: at publish the name
    // must exist. A DRAFT, so the version family-journeys.test.ts runs stays the latest active one.
    const family = await call('POST', '/api/process-manager/customDataForms', {
      token,
      body: { name: 'FamilyDetails', status: 'DRAFT', resource: EXAMPLE_FORMS.find((f) => f.name === 'onboarding-details')!.resource },
    });
    expect(family.status, family.text).toBe(201);
    // python-journey.bpmn names PyConfirm and PyError the same way (python-functions.test.ts runs it).
    for (const name of ['PyConfirm', 'PyError']) {
      const form = await call('POST', '/api/process-manager/customDataForms', {
        token,
        body: { name, status: 'DRAFT', resource: EXAMPLE_FORMS.find((f) => f.name === 'onboarding-details')!.resource },
      });
      expect(form.status, form.text).toBe(201);
    }
    const files = [
      ...readdirSync(FIXTURES).filter((f) => f.endsWith('.bpmn')).map((f) => join(FIXTURES, f)),
      join(import.meta.dirname, '../../statemachines/examples/onboarding.bpmn'),
    ];
    const outcomes: Record<string, number> = {};
    for (const path of files) {
      const bytes = readFileSync(path);
      const res = await post(upload(fresh(), bytes));
      outcomes[path.split('/').slice(-2).join('/')] = res.status;
      if (res.status === 201) {
        const file = await call('GET', `${BASE}/${res.json.id}/bpmnFile`, { token });
        expect(file.raw.equals(bytes), path).toBe(true);
        continue;
      }
      expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBe(400);
      expect(res.json.code).toBe('INVALID_BPMN');
      const ids = new Set([...bytes.toString('utf8').matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));
      for (const d of res.json.details as { location: string }[]) {
        const id = [...ids].find((i) => d.location === `bpmn.${i}` || d.location.startsWith(`bpmn.${i}.`));
        expect(id, `${path}: ${d.location}`).toBeDefined();
      }
    }
    expect(outcomes).toEqual({
      'bpmn/linear.bpmn': 201,
      // The family's dialect (family-journeys.test.ts runs it).
      'bpmn/family-journey.bpmn': 201,
      // Select Document Type and Capture Document Image (document-capture.test.ts runs it).
      'bpmn/documents.bpmn': 201,
      // The additional documents' selection, capture and decider (additional-documents.test.ts runs it).
      'bpmn/additional-documents.bpmn': 201,
      // Python cloud functions in the family's dialect (python-functions.test.ts runs it).
      'bpmn/python-journey.bpmn': 201,
      'bpmn/onboarding.bpmn': 201,
      'examples/onboarding.bpmn': 201,
      // Push notifications have no runtime here (next test).
      'bpmn/retake.bpmn': 400,
      // Parallel gateways, subprocesses and the like.
      'bpmn/unsupported.bpmn': 400,
    });
  });

  it('names each activity of a file that this deployment cannot run', async () => {
    const res = await post(upload(fresh(), readFileSync(join(FIXTURES, 'retake.bpmn'))));
    expect(res.status).toBe(400);
    const cannot = (res.json.details as { location: string; message: string }[]).filter((d) => d.message.includes('cannot run'));
    // Its cloud function step (Activity_score, issue 13) and its face match (Activity_faceMatch, issue 14) run now.
    expect(cannot.map((d) => d.location).sort()).toEqual(['bpmn.Activity_notify']);
  });
});

describe('what a BPMN upload is refused for', () => {
  const refused = async (bpmn: string) => {
    const res = await post(upload(fresh(), bpmn));
    expect(res.status, res.text).toBe(400);
    expect(res.json.code).toBe('INVALID_BPMN');
    return res.json.details as { location: string; message: string }[];
  };
  const at = (details: { location: string; message: string }[], id: string) => details.filter((d) => d.location.startsWith(`bpmn.${id}`));

  it('an unknown bean, naming the element and the bean', async () => {
    const details = await refused(changed('${addUserV1}', '${teleportUserV1}'));
    expect(at(details, 'Activity_addUser')[0]!.message).toContain('teleportUserV1');
  });

  it('an activity this deployment cannot run, naming the element, the bean and the activity', async () => {
    const details = await refused(
      changed('camunda:delegateExpression="${addUserV1}"', 'camunda:delegateExpression="${archiveProcessInstanceV1}"'),
    );
    const mine = at(details, 'Activity_addUser');
    expect(mine.map((d) => d.message).join('\n')).toMatch(/archiveProcessInstanceV1.*ARCHIVE_PROCESS_INSTANCE.*cannot run/);
  });

  it('a condition outside the JUEL the service compiles, with its flow', async () => {
    const details = await refused(changed('${channel == "web"}', '${channel == }'));
    expect(JSON.stringify(details)).toContain('Flow_web');
  });

  it('not a gateway without a default flow whose conditions can all fail, nor a timer on a service step: the family draws both', async () => {
    const noDefault = changed(' default="Flow_other"', '').replace(
      '<bpmn:sequenceFlow id="Flow_other" sourceRef="Gateway_channel" targetRef="Activity_review" />',
      '<bpmn:sequenceFlow id="Flow_other" sourceRef="Gateway_channel" targetRef="Activity_review">' +
        '<bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">${channel == "app"}</bpmn:conditionExpression></bpmn:sequenceFlow>',
    );
    // No branch taken is the instance's run-time error (States.NoChoiceMatched), as in the family.
    expect((await post(upload(fresh(), noDefault))).status).toBe(201);
    const serviceTimer = await post(upload(fresh(), changed('attachedToRef="Activity_captureFace"', 'attachedToRef="Activity_addUser"')));
    expect(serviceTimer.status, serviceTimer.text).toBe(201);
  });

  it('an error code the activity does not raise, with the codes it does', async () => {
    const details = await refused(changed('errorCode="extIdNotUnique"', 'errorCode="userExists"'));
    const text = JSON.stringify(details);
    expect(text).toContain('userExists');
    expect(text).toMatch(/Event_extIdTaken|Activity_addUser/);
    expect(text).toContain('extIdNotUnique');
  });

  it('every problem at once', async () => {
    const details = await refused(changed('${addUserV1}', '${teleportUserV1}').replace('${captureFaceImageV1}', '${archiveProcessInstanceV1}'));
    expect(at(details, 'Activity_addUser')).toHaveLength(1);
    expect(at(details, 'Activity_captureFace').length).toBeGreaterThanOrEqual(1);
  });

  it('every problem of a file with hundreds, each a detail, as many as the message counts', async () => {
    // 225 service tasks in a row, each naming a bean no activity has: 225 problems.
    const ids = Array.from({ length: 225 }, (_, i) => `Task_${i}`);
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?>\n<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" ' +
      'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="Definitions_many" targetNamespace="http://bpmn.io/schema/bpmn">' +
      '<bpmn:process id="Process_many" isExecutable="true"><bpmn:startEvent id="Start" />' +
      ids.map((id) => `<bpmn:serviceTask id="${id}" camunda:delegateExpression="\${teleportUserV1}" />`).join('') +
      ['Start', ...ids].map((from, i) => `<bpmn:sequenceFlow id="Flow_${i}" sourceRef="${from}" targetRef="${ids[i] ?? 'End'}" />`).join('') +
      '<bpmn:endEvent id="End" /></bpmn:process></bpmn:definitions>';
    const res = await post(upload(fresh(), xml));
    expect(res.status, res.text.slice(0, 300)).toBe(400);
    expect(res.json.code).toBe('INVALID_BPMN');
    const counted = Number(/\((\d+) more problems in details\)/.exec(res.json.message)?.[1]) + 1;
    expect(counted).toBe(225);
    expect(res.json.details).toHaveLength(counted);
    expect(new Set(res.json.details.map((d: { location: string }) => d.location))).toEqual(new Set(ids.map((id) => `bpmn.${id}`)));
  });

  it('data that is not strict base64, or not UTF-8, with its own code', async () => {
    const good = upload(fresh(), JOURNEY);
    const data = good.resources.bpmn.data;
    for (const bad of [`${data.slice(0, 76)}\n${data.slice(76)}`, data.replace(/=+$/, ''), `${data.slice(0, -4)}!!!!`, data.replace(/\+/g, '-').replace(/\//g, '_') + '-_', '']) {
      const res = await post({ ...good, resources: { bpmn: { data: bad, type: 'BPMN' } } });
      expect(res.status, bad.slice(-8)).toBe(400);
      expect(res.json.code).toBe('INVALID_BPMN_DATA');
    }
    const latin1 = Buffer.from(JOURNEY.replace('name="Add the user"', 'name="Z\u00fcrich"'), 'latin1');
    const res = await post(upload(fresh(), latin1));
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('INVALID_BPMN_DATA');
  });

  it('a malformed upload body, with the member at fault', async () => {
    const res = await post({ ...upload(fresh(), JOURNEY), resources: { bpmn: { type: 'BPMN' } } });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('VALIDATION_FAILED');
    expect(res.json.details).toEqual([expect.objectContaining({ location: 'body.resources.bpmn.data' })]);
    const dmn = await post({ ...upload(fresh(), JOURNEY), resources: { bpmn: { data: 'PGEvPg==', type: 'DMN' } } });
    expect(dmn.json.details).toEqual([expect.objectContaining({ location: 'body.resources.bpmn.type' })]);
  });
});

describe('the size of an upload', () => {
  /** JOURNEY padded with a comment of random text to exactly `size` bytes (random: it barely compresses). */
  function bpmnOfSize(size: number): Buffer {
    const head = Buffer.from(JOURNEY, 'utf8');
    const filler = size - head.length - '<!--  -->\n'.length;
    return Buffer.concat([head, Buffer.from(`<!-- ${randomBytes(filler).toString('base64').slice(0, filler)} -->\n`, 'utf8')]);
  }

  it('takes a BPMN of exactly 1 MB, stores it in chunks and reads it back byte for byte; one byte more is 413', async () => {
    const largest = bpmnOfSize(MAX_BPMN_BYTES);
    expect(largest.length).toBe(MAX_BPMN_BYTES);
    const made = await post(upload(fresh(), largest));
    expect(made.status, made.text.slice(0, 300)).toBe(201);
    const file = await call('GET', `${BASE}/${made.json.id}/bpmnFile`, { token });
    expect(file.raw.equals(largest)).toBe(true);
    // The read carries it whole too: 1.4 MB of base64 beside the definition, within a Lambda response.
    const read = await call('GET', `${BASE}/${made.json.id}`, { token });
    expect(read.status).toBe(200);
    expect(read.json.resources.bpmn.type).toBe('BPMN');
    expect(Buffer.from(read.json.resources.bpmn.data, 'base64').equals(largest)).toBe(true);

    const over = await post(upload(fresh(), bpmnOfSize(MAX_BPMN_BYTES + 1)));
    expect(over.status).toBe(413);
    expect(over.json.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it(`takes a body of exactly ${MAX_UPLOAD_BODY_BYTES} bytes on this route and refuses one byte more with 413; other routes keep their limit`, async () => {
    const sized = (bytes: number) => {
      const body = upload(fresh(), JOURNEY, { padding: '' });
      const length = Buffer.byteLength(JSON.stringify(body));
      return JSON.stringify({ ...body, padding: 'x'.repeat(bytes - length) });
    };
    const exact = sized(MAX_UPLOAD_BODY_BYTES);
    expect(Buffer.byteLength(exact)).toBe(MAX_UPLOAD_BODY_BYTES);
    const fits = await call('POST', BASE, { token, rawBody: exact, headers: { 'content-type': 'application/json' } });
    expect(fits.status, fits.text).toBe(201);
    const over = await call('POST', BASE, { token, rawBody: sized(MAX_UPLOAD_BODY_BYTES + 1), headers: { 'content-type': 'application/json' } });
    expect(over.status).toBe(413);
    expect(over.json.code).toBe('PAYLOAD_TOO_LARGE');
    // A tag list is no upload: 64 KiB there.
    const tags = await call('POST', `${BASE}/${fits.json.id}/tags`, { token, rawBody: JSON.stringify({ tags: ['a'], pad: 'x'.repeat(70_000) }), headers: { 'content-type': 'application/json' } });
    expect(tags.status).toBe(413);
  });
});

describe('the JSON format beside it', () => {
  it('refuses activities this deployment cannot run, each named', async () => {
    const body = exampleNamed(fresh());
    body.activities.captureFace = { type: 'ARCHIVE_PROCESS_INSTANCE', next: body.activities.captureFace.next };
    const res = await post(body);
    expect(res.status, res.text).toBe(400);
    expect(res.json.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ location: 'body.activities.captureFace.type', message: expect.stringContaining('cannot run') })]),
    );
  });

  it("refuses a definition whose state machine would be over Step Functions' 1 MB", async () => {
    const body = exampleNamed(fresh());
    // 30 face captures in a row, each setting 50 variables from long expressions: about 1.1 MB of
    // ASL from a body under the route's limit.
    const outputs = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`v${i}`, `\${${'a'.repeat(700)}}`]));
    let next = body.activities.captureFace.next as string;
    for (let i = 30; i >= 1; i--) {
      body.activities[`face${i}`] = { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': `face${i}` }, outputs, next };
      next = `face${i}`;
    }
    body.activities.captureFace.next = next;
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThan(MAX_UPLOAD_BODY_BYTES);
    const res = await post(body);
    expect(res.status, res.text.slice(0, 500)).toBe(400);
    expect(res.json.code).toBe('STATE_MACHINE_TOO_LARGE');
  });

  it('gives a definition published as JSON a generated BPMN file, which uploads again as the same journey', async () => {
    const name = fresh();
    const json = await post(exampleNamed(name));
    expect(json.status).toBe(201);
    const file = await call('GET', `${BASE}/${json.json.id}/bpmnFile`, { token });
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/xml');
    expect(file.text).toContain('bpmn:definitions');
    // The read carries the same generated file, as the family's migration tools read it.
    const read = await call('GET', `${BASE}/${json.json.id}`, { token });
    expect(read.json.resources.bpmn.type).toBe('BPMN');
    expect(Buffer.from(read.json.resources.bpmn.data, 'base64').equals(file.raw)).toBe(true);
    expect(read.json.themeId).toBeNull();
    const again = await post(upload(name, Buffer.from(read.json.resources.bpmn.data, 'base64')));
    expect(again.status, again.text.slice(0, 500)).toBe(201);
    expect(again.json.version).toBe(2);
    // The same steps; the decider's rules come back as a gateway of JUEL conditions leading to
    // Outcome deciders (BPMN has no rules), one per outcome.
    expect(again.json).toMatchObject({ startActivityId: 'personalDetails', activities: { personalDetails: { type: 'DATA_FORM' }, captureFace: { type: 'CAPTURE_FACE_IMAGE', next: 'decide' } } });
    expect(again.json.gateways.decide.branches.map((b: { when: string }) => b.when)).toEqual([
      '${execution.hasVariable("_lastError")}',
      '${_checks.face.result == "PASS"}',
    ]);
    expect(again.json.activities[again.json.gateways.decide.default]).toMatchObject({ type: 'SIMPLE_DECIDER', inputs: { Outcome: 'REVIEW' } });
  });

  it('takes a themeId naming a theme of the tenant and reads it back, null when none was given; refuses one that names none', async () => {
    const theme = await newThemeId();
    const themed = await post({ ...exampleNamed(fresh()), themeId: theme });
    expect(themed.status, themed.text).toBe(201);
    expect(themed.json.themeId).toBe(theme);
    expect((await call('GET', `${BASE}/${themed.json.id}`, { token })).json).toMatchObject({ themeId: theme, status: 'DEPLOYED_ACTIVE' });
    const dark = await post({ ...exampleNamed(fresh()), themeId: 'dark' });
    expect(dark.status).toBe(400);
    expect(dark.json).toMatchObject({ code: 'UNKNOWN_THEME', details: [{ location: 'body.themeId' }] });
    const unknownUpload = await post(upload(fresh(), JOURNEY, { themeId: '3b241101-e2bb-4255-8caf-4136c566a962' }));
    expect(unknownUpload.status).toBe(400);
    expect(unknownUpload.json.code).toBe('UNKNOWN_THEME');
    const plain = await post({ ...exampleNamed(fresh()), themeId: null });
    expect(plain.status, plain.text).toBe(201);
    expect((await call('GET', `${BASE}/${plain.json.id}`, { token })).json.themeId).toBeNull();
    // Still strict about the format's own members.
    const unknown = await post({ ...exampleNamed(fresh()), colour: 'blue' });
    expect(unknown.status).toBe(400);
  });

  it('is 404 for the file of an unknown definition', async () => {
    const res = await call('GET', `${BASE}/00000000-0000-4000-8000-000000000000/bpmnFile`, { token });
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('PROCESS_DEFINITION_NOT_FOUND');
  });
});
