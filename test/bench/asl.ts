/**
 * What each definition compiles to: states, ASL bytes against Step Functions' 1 MB definition
 * limit, and the transitions per path (happy: next and default flows; shortest; longest without
 * entering a state twice), for every example and a generated definition of the family's size.
 */
import { aslPathTransitions, compileDefinition } from '../../statemachines/compile.js';
import type { ProcessDefinition } from '../../statemachines/definition.js';
import { readFileSync } from 'node:fs';
import { BPMN_EXAMPLES, exampleDefinitions } from '../../statemachines/examples/index.js';
import { parseBpmn } from '../../statemachines/bpmn/parse.js';
import { bpmnToDefinition } from '../../statemachines/bpmn/to-definition.js';
import { validateDefinition } from '../../statemachines/validate.js';
import { largeDefinition } from '../support/large-definition.js';

/** Step Functions' limit on a state machine definition. */
export const ASL_LIMIT_BYTES = 1024 * 1024;
const ARN = 'arn:aws:lambda:us-east-1:123456789012:function:activity';
const END_ARN = 'arn:aws:lambda:us-east-1:123456789012:function:execution-end';

export interface AslFigures {
  definition: string;
  activities: number;
  gateways: number;
  timers: number;
  errorRoutes: number;
  states: number;
  choiceStates: number;
  aslBytes: number;
  compileMs: number;
  happy: number;
  shortest: number;
  longest: number;
  verdict: 'OK' | 'OVER';
}

function figures(label: string, def: ProcessDefinition): AslFigures {
  const t0 = performance.now();
  const asl = compileDefinition(def, { activityFunctionArn: ARN, executionEndFunctionArn: END_ARN });
  const compileMs = Math.round((performance.now() - t0) * 10) / 10;
  const bytes = Buffer.byteLength(JSON.stringify(asl));
  const activities = Object.values(def.activities);
  return {
    definition: label,
    activities: activities.length,
    gateways: Object.keys(def.gateways ?? {}).length,
    timers: activities.filter((a) => a.timer).length,
    errorRoutes: activities.reduce((n, a) => n + Object.keys(a.errorEvents ?? {}).length, 0),
    states: Object.keys(asl.States).length,
    choiceStates: Object.values(asl.States).filter((s) => s.Type === 'Choice').length,
    aslBytes: bytes,
    compileMs,
    ...aslPathTransitions(asl, label),
    verdict: bytes <= ASL_LIMIT_BYTES ? 'OK' : 'OVER',
  };
}

export async function measureAsl(): Promise<AslFigures[]> {
  const out = exampleDefinitions().map((def) => figures(`${def.name} v${def.version}`, def));
  for (const example of BPMN_EXAMPLES) {
    const converted = bpmnToDefinition(await parseBpmn(readFileSync(example.file, 'utf8')), { name: example.name, version: 1 });
    if (!('definition' in converted)) throw new Error(`${example.name}.bpmn does not convert: ${JSON.stringify(converted.problems)}`);
    out.push(figures(`${example.name} (BPMN)`, validateDefinition(converted.definition)));
  }
  out.push(figures('generated: 130 tasks, 160 gateways', validateDefinition(largeDefinition(130, 160))));
  return out;
}
