import { describe, expect, it } from 'vitest';
import { executionArnOf } from '../../functions/process-manager/model.js';
import { processInstanceStore } from '../../functions/store/process-instances.js';
import { call, finalStatus, pageUntil } from './client.js';
import { inProcessRuntime } from './in-process.js';

/**
 * What Step Functions keeps of a journey (its execution history, 90 days whatever the instance's
 * retention) holds what an end user typed only where the definition routes on it: journeys run
 * over HTTP on the local runtime, in this process so that the engine's history can be read as
 * GetExecutionHistory would list it.
 */
const context = inProcessRuntime('history');
const fresh = () => Math.random().toString(36).slice(2, 10);

// Recognisable values, none of which the journeys below or the service would write by themselves.
const FULL_NAME = 'Zebediah Quonsettley';
const DOCUMENT = 'K7Q4Z220918';
const PARAMETER = 'Parameterina';

const text = (id: string, label: string) => ({ type: 'text', id, label: { values: { en: label } } });

/** A data form for the applicant's name, document number and channel, then `after`. */
function journey(name: string, after: Record<string, unknown>) {
  return {
    name,
    version: 1,
    retentionDays: 1,
    startActivityId: 'details',
    activities: {
      details: {
        type: 'DATA_FORM',
        name: 'Applicant details',
        inputs: {
          'Form data Key': 'details',
          Form: {
            title: { values: { en: 'Your details' } },
            components: [text('fullName', 'Full name'), text('documentNumber', 'Document number'), text('channel', 'Channel')],
            submitButton: { label: { values: { en: 'Next' } } },
          },
        },
        next: 'route',
      },
      ...after,
    },
  };
}

async function run(definition: Record<string, unknown>, values: Record<string, string>) {
  const published = await call('POST', '/api/process-manager/processDefinitions', { port: context.runtime().port, token: context.token(), body: definition });
  expect(published.status, published.text).toBe(201);
  const pt = await call('POST', '/api/process-manager/processTokens', {
    port: context.runtime().port,
    token: context.token(),
    body: { name: `h-${fresh()}`, processDefnName: definition.name, processDefnVersion: 1, parameters: { lastName: PARAMETER } },
  });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { port: context.runtime().port, token: context.token() });
  expect(created.status, created.text).toBe(201);
  const id = created.json.processInstanceId as string;
  const url = new URL(created.json.redirectUrl);
  const page = `${url.pathname}${url.search}`;
  await pageUntil(page, 'Your details', { port: context.runtime().port });
  const posted = await call('POST', `/journey/${id}/steps/details?c=${url.searchParams.get('c')}`, {
    port: context.runtime().port,
    rawBody: new URLSearchParams(values).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(posted.status, posted.text).toBe(303);
  const status = await finalStatus(id, context.token(), { port: context.runtime().port });
  const record = (await processInstanceStore.get('demo', id))!;
  const history = JSON.stringify(context.runtime().engine.getExecutionHistory(executionArnOf(record)));
  const userdata = await call('GET', `/api/userdata-server/processDefinitions/${record.processDefnId}/processInstances/${id}/userdata`, {
    port: context.runtime().port,
    token: context.token(),
  });
  return { status, history, userdata: userdata.json };
}

describe("a journey's execution history", () => {
  it('holds none of what the end user typed, nor the parameters, when the decider routes on a value that is no personal data', async () => {
    const def = journey(`history-${fresh()}`, {
      route: {
        type: 'SIMPLE_DECIDER',
        rules: [{ when: { variable: 'vars.details.channel', equals: 'kiosk' }, outcome: 'PASS' }],
        default: 'REVIEW',
      },
    });
    const passed = await run(def, { fullName: FULL_NAME, documentNumber: DOCUMENT, channel: 'kiosk' });
    // The decider still decides on what was entered.
    expect(passed.status).toBe('COMPLETED_ENDED_SUCCESS');
    expect(passed.history).toContain('"channel":"kiosk"');
    for (const value of [FULL_NAME, DOCUMENT, PARAMETER]) expect(passed.history).not.toContain(value);
    // The history is the one a journey leaves: it has the states, the task calls and the reference.
    expect(passed.history).toContain('"type":"TaskScheduled"');
    expect(passed.history).toContain('"_ref"');
    // ... while the user data API still has every value.
    expect(passed.userdata.forms.details).toEqual({ fullName: FULL_NAME, documentNumber: DOCUMENT, channel: 'kiosk' });

    const other = await run({ ...def, name: `history-${fresh()}` }, { fullName: FULL_NAME, documentNumber: DOCUMENT, channel: 'web' });
    expect(other.status).toBe('REVIEW');
  });

  it('holds only the entered value a gateway routes on', async () => {
    const def = journey(`history-${fresh()}`, {
      pass: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
      review: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'REVIEW' } },
    });
    const withGateway = {
      ...def,
      gateways: { route: { name: 'Known document?', branches: [{ when: `\${details.documentNumber == "${DOCUMENT}"}`, next: 'pass' }], default: 'review' } },
    };
    const done = await run(withGateway, { fullName: FULL_NAME, documentNumber: DOCUMENT, channel: 'web' });
    expect(done.status).toBe('COMPLETED_ENDED_SUCCESS');
    expect(done.history).toContain(`"documentNumber":"${DOCUMENT}"`);
    for (const value of [FULL_NAME, PARAMETER, '"channel":"web"']) expect(done.history).not.toContain(value);
    expect(done.userdata.forms.details).toEqual({ fullName: FULL_NAME, documentNumber: DOCUMENT, channel: 'web' });
  });
});
