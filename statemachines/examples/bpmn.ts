/** The JSON examples as BPMN files in the family's dialect (generated; see bin/build-examples.ts). */
import { definitionToBpmn } from '../bpmn/to-bpmn.js';
import { exampleDefinitions } from './index.js';

export function exampleBpmnFiles(): { name: string; file: URL; xml: string }[] {
  return exampleDefinitions().map((def) => ({
    name: def.name,
    file: new URL(`./${def.name}.bpmn`, import.meta.url),
    xml: definitionToBpmn(def),
  }));
}
