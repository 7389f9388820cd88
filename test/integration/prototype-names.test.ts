import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, finalStatus, pageUntil } from './client.js';
import { definitionToBpmn } from '../../statemachines/bpmn/to-bpmn.js';
import { validateDefinition } from '../../statemachines/validate.js';

/**
 * A journey whose every author-chosen name is one Object.prototype answers to, over HTTP as a
 * relying party publishes and runs it (JSON and BPMN): node ids, the form's data key, component
 * id and language key, an output variable, gateway conditions reading such names set and unset.
 * The second attack run found these publishing and then failing at instance creation (500, the
 * token's use spent) or leaving the journey ACTIVE after the submission.
 */
let token: string;
const fresh = () => Math.random().toString(36).slice(2, 10);

const journey = (name: string) => ({
  name,
  version: 1,
  retentionDays: 1,
  startActivityId: 'constructor',
  activities: {
    constructor: {
      type: 'DATA_FORM',
      inputs: {
        'Form data Key': 'toString',
        Form: {
          title: { values: { en: 'Details', constructor: 'Constructor title' } },
          version: 1,
          components: [{ type: 'textfield', id: 'valueOf', label: { values: { en: 'Value', toString: 'Wert' } }, validate: { required: true } }],
        },
      },
      outputs: { hasOwnProperty: '${toString.valueOf}' },
      next: 'toString',
    },
    valueOf: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
    isPrototypeOf: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'FAIL' } },
  },
  gateways: {
    toString: {
      branches: [{ when: '${constructor == null && hasOwnProperty == "typed" && !empty toString.valueOf}', next: 'valueOf' }],
      default: 'isPrototypeOf',
    },
  },
});

async function run(definitionName: string, typed: string): Promise<string> {
  const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `proto-${fresh()}`, processDefnName: definitionName, processDefnVersion: '1' } });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status, created.text).toBe(201);
  const url = new URL(created.json.redirectUrl);
  const id = created.json.processInstanceId as string;
  const page = await pageUntil(`${url.pathname}${url.search}&lang=constructor`, 'name="valueOf"');
  expect(page).not.toContain('[native code]');
  const submitted = await call('POST', `/journey/${id}/steps/constructor?c=${url.searchParams.get('c')}`, {
    rawBody: new URLSearchParams({ valueOf: typed }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(submitted.status, submitted.text).toBe(303);
  return finalStatus(id, token);
}

beforeAll(async () => {
  token = await adminToken();
});

describe('a journey whose names are Object.prototype members', () => {
  it('publishes as JSON, starts, and routes on the names as on any others', async () => {
    const name = `proto-json-${fresh()}`;
    const published = await call('POST', '/api/process-manager/processDefinitions', { token, body: journey(name) });
    expect(published.status, published.text).toBe(201);
    expect(await run(name, 'typed')).toBe('COMPLETED_ENDED_SUCCESS');
    expect(await run(name, 'other')).toBe('COMPLETED_ENDED_ERROR');
  });

  it('publishes as BPMN, starts, and routes the same', async () => {
    const name = `proto-bpmn-${fresh()}`;
    const bpmn = definitionToBpmn(validateDefinition(journey(name)));
    const uploaded = await call('POST', '/api/process-manager/processDefinitions', {
      token,
      body: { name, resources: { bpmn: { data: Buffer.from(bpmn).toString('base64'), type: 'BPMN' } } },
    });
    expect(uploaded.status, uploaded.text).toBe(201);
    expect((await call('POST', `/api/process-manager/processDefinitions/${uploaded.json.id}/status/DEPLOYED_ACTIVE`, { token })).status).toBe(200);
    expect(await run(name, 'typed')).toBe('COMPLETED_ENDED_SUCCESS');
  });
});
