/**
 * `npm run build:examples`: writes the JSON examples in the family's BPMN dialect
 * (statemachines/examples/<name>.bpmn, by definitionToBpmn), so a team on the family's designer
 * can open them in Camunda Modeler. A unit test keeps the files in step with the JSON.
 */
import { writeFileSync } from 'node:fs';
import { exampleBpmnFiles } from '../statemachines/examples/bpmn.js';

for (const { file, xml } of exampleBpmnFiles()) {
  writeFileSync(file, xml);
  console.log(`wrote ${file.pathname}`);
}
