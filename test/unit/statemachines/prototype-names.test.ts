import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../../lib/local/engine-polyfill.js';
import { LocalStepFunctions } from '../../../lib/local/engine.js';
import { ValidationError } from '../../../functions/errors.js';
import { compileDefinition } from '../../../statemachines/compile.js';
import { validateDefinition } from '../../../statemachines/validate.js';
import { PROTOTYPE_NAMES, userName } from '../../fuzz/names.js';
import { ARN, END_ARN } from './fixtures.js';

/**
 * Every name a definition's author chooses, drawn from the names Object.prototype answers to:
 * node ids (activities, gateways, ends), a form's component ids and language keys, a map
 * input's keys, output variables, the variables conditions and rules read. A definition either
 * publishes (and its ASL is one the local engine takes, as Step Functions would) or is refused
 * with a ValidationError naming the place; nothing else.
 */
interface Names {
  form: string;
  service: string;
  gateway: string;
  decider: string;
  end: string;
  field: string;
  lang: string;
  output: string;
  read: string;
}

const names: fc.Arbitrary<Names> = fc
  .tuple(fc.uniqueArray(userName(), { minLength: 5, maxLength: 5 }), userName(), userName(), userName(), userName())
  .map(([[form, service, gateway, decider, end], field, lang, output, read]) => ({ form: form!, service: service!, gateway: gateway!, decider: decider!, end: end!, field, lang, output, read }));

function journey(n: Names): Record<string, unknown> {
  return {
    name: 'prototype-names',
    version: 1,
    startActivityId: n.form,
    activities: {
      [n.form]: {
        type: 'DATA_FORM',
        inputs: {
          'Form data Key': 'details',
          Form: {
            title: { values: { en: 'Details', [n.lang]: 'Name' } },
            version: 1,
            components: [{ type: 'textfield', id: n.field, label: { values: { en: 'Field', [n.lang]: 'Label' } } }],
          },
        },
        outputs: { [n.output]: `\${${n.read}}` },
        next: n.service,
      },
      [n.service]: {
        type: 'SEND_WEBHOOK',
        inputs: { 'Webhook ID': 'wh_0123456789', 'Event Name': 'x', Body: { [n.lang]: `\${${n.read}}`, [`${n.lang}.$`]: '$.vars' } },
        errorEvents: { 'Webhook Not Found': n.end },
        outputs: { [n.output]: 'sent' },
        next: n.gateway,
      },
      [n.decider]: { type: 'SIMPLE_DECIDER', rules: [{ when: { variable: n.read, equals: 'x' }, outcome: 'PASS' }], default: 'REVIEW' },
    },
    gateways: { [n.gateway]: { branches: [{ when: `\${${n.read} == null}`, next: n.decider }], default: n.end } },
    ends: { [n.end]: { error: 'declined' } },
  };
}

const compile = (def: unknown) => compileDefinition(validateDefinition(def), { activityFunctionArn: ARN, executionEndFunctionArn: END_ARN });

describe('definitions whose names are Object.prototype members', () => {
  it('publish to ASL the local engine takes, or are refused with a ValidationError, never anything else', () => {
    fc.assert(
      fc.property(names, (n) => {
        let asl: ReturnType<typeof compile>;
        try {
          asl = compile(journey(n));
        } catch (err) {
          expect(err, String(err)).toBeInstanceOf(ValidationError);
          return;
        }
        new LocalStepFunctions({ invoke: async () => ({}) }).createStateMachine('proto', asl);
        // The inputs reach the activity as the author wrote them.
        const task = asl.States[n.service] as { Parameters: { Payload: { inputs: string } } };
        expect(Object.keys(JSON.parse(task.Parameters.Payload.inputs).Body)).toEqual([n.lang, `${n.lang}.$`]);
      }),
      { numRuns: 40 },
    );
    // 40 compilations and engine loads: about 0.4 s each on a shared two-core machine under load.
  }, 90_000);

  it.each(PROTOTYPE_NAMES)('publishes a journey with every name "%s"', (name) => {
    const n: Names = { form: 'form', service: name, gateway: 'gateway', decider: 'decider', end: 'end', field: name, lang: name, output: name, read: name };
    expect(() => new LocalStepFunctions({ invoke: async () => ({}) }).createStateMachine('proto', compile(journey(n)))).not.toThrow();
  });

  it.each(['constructor', 'toString'])('routes a condition on an unset variable "%s" as unset when the journey runs', async (name) => {
    const def = {
      name: 'read-prototype-name',
      version: 1,
      startActivityId: 'start',
      activities: {
        start: { type: 'SEND_WEBHOOK', inputs: { 'Webhook ID': 'wh_0123456789', 'Event Name': 'x' }, next: 'gw' },
        unset: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
        set: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'FAIL' } },
      },
      gateways: { gw: { branches: [{ when: `\${${name} == null}`, next: 'unset' }], default: 'set' } },
    };
    const ends: unknown[] = [];
    const engine = new LocalStepFunctions({
      invoke: async (arn, payload) => {
        if (arn === END_ARN) return void ends.push(payload);
        return (payload as { state: unknown }).state;
      },
    });
    const { stateMachineArn } = engine.createStateMachine('read', compile(def));
    const result = await engine.startExecution(stateMachineArn, { vars: {}, parameters: {} }).done;
    expect(result.status).toBe('SUCCEEDED');
    expect(ends).toEqual([{ session: expect.objectContaining({ _decision: 'PASS' }) }]);
  });
});
