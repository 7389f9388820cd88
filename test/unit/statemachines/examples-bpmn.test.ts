import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exampleBpmnFiles } from '../../../statemachines/examples/bpmn.js';
import { BPMN_EXAMPLES } from '../../../statemachines/examples/index.js';
import { parseBpmn } from '../../../statemachines/bpmn/parse.js';
import { bpmnToDefinition } from '../../../statemachines/bpmn/to-definition.js';
import { validateDefinition } from '../../../statemachines/validate.js';
import { aslPathTransitions, compileDefinition } from '../../../statemachines/compile.js';
import { exampleDefinitions } from '../../../statemachines/examples/index.js';
import { ARN, END_ARN } from './fixtures.js';

describe('the examples as BPMN files', () => {
  for (const { name, file, xml } of exampleBpmnFiles()) {
    it(`${name}.bpmn is what definitionToBpmn writes for the JSON example (npm run build:examples)`, () => {
      expect(readFileSync(file, 'utf8')).toBe(xml);
    });

    it(`${name}.bpmn reads back to a journey with the JSON example's paths`, async () => {
      const graph = await parseBpmn(readFileSync(file, 'utf8'));
      expect(graph.problems).toEqual([]);
      const converted = bpmnToDefinition(graph, { name, version: 1 });
      if (!('definition' in converted)) throw new Error(JSON.stringify(converted.problems));
      const fromBpmn = compileDefinition(validateDefinition(converted.definition), { activityFunctionArn: ARN, executionEndFunctionArn: END_ARN });
      const fromJson = compileDefinition(exampleDefinitions().find((d) => d.name === name)!, { activityFunctionArn: ARN, executionEndFunctionArn: END_ARN });
      expect(aslPathTransitions(fromBpmn).shortest).toBeGreaterThan(0);
      // The JSON example's activities are all there, as the same tasks.
      for (const [id, state] of Object.entries(fromJson.States)) {
        if (state.Type === 'Task') expect(fromBpmn.States[id]).toEqual(state);
      }
    });
  }

  for (const example of BPMN_EXAMPLES) {
    it(`${example.name}.bpmn, made in the family's dialect, converts and validates`, async () => {
      const graph = await parseBpmn(readFileSync(example.file, 'utf8'));
      expect(graph.problems).toEqual([]);
      const converted = bpmnToDefinition(graph, { name: example.name, version: 1 });
      if (!('definition' in converted)) throw new Error(JSON.stringify(converted.problems));
      const def = validateDefinition(converted.definition);
      if (example.name === 'onboarding') {
        expect(Object.keys(def.gateways ?? {})).toEqual(['Gateway_document']);
        expect(def.activities.Activity_confirm!.timer).toMatchObject({ duration: 'PT4M30S', next: 'EndEvent_timedOut' });
        expect(def.activities.Activity_confirm!.errorEvents).toEqual({ Retake: 'Activity_details' });
        expect(def.activities.Activity_addUser!.errorEvents).toEqual({ 'ExtId Not Unique': 'Activity_decline' });
        expect(def.ends?.EndEvent_timedOut).toMatchObject({ error: 'timedOut' });
      } else {
        // welcome: the custom page with its family inputs and timer, a gateway on what it sent, a form each way.
        expect(example.name).toBe('welcome');
        expect(def.activities.Activity_welcome).toMatchObject({
          type: 'CUSTOM_PAGE',
          inputs: { 'Custom Page Name': 'welcome', 'Custom Page Version': 1, 'Custom Page Key': 'welcome', 'Session Data': { firstName: '${firstName}' } },
          timer: { duration: 'PT4M30S', next: 'Event_timedOut' },
        });
        expect(Object.keys(def.gateways ?? {})).toEqual(['Gateway_contact']);
        expect([def.activities.Activity_email!.type, def.activities.Activity_phone!.type]).toEqual(['DATA_FORM', 'DATA_FORM']);
      }
    });
  }
});
