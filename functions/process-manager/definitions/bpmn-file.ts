import { definitionToBpmn } from '../../../statemachines/bpmn/to-bpmn.js';
import type { ProcessDefinitionContent } from '../model.js';

/**
 * A version as a BPMN file: an upload's own bytes (byte for byte: byte-order mark, line ends and
 * spacing as sent), or for the JSON format one generated in the family's dialect. Apart from
 * definitions.ts so that only this route bundles the BPMN writer.
 */
export function bpmnFileOf(content: ProcessDefinitionContent): Buffer {
  return content.bpmn ?? Buffer.from(definitionToBpmn(content.definition), 'utf8');
}
