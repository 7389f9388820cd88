/**
 * The family's BPMN upload, before it is a definition: the base64 `resources.bpmn.data` decoded
 * strictly, and every reason the service cannot run the file turned into a 400 detail located at
 * the BPMN element (`bpmn.<element id>`), whichever stage found it (parse, conversion, the
 * catalogue and graph rules, an activity this deployment cannot run).
 */
import { apiError, detailsWithin, PayloadTooLargeError, type ErrorDetail } from '../../errors.js';
import { NOT_RUNNABLE } from '../../activities/specs/index.generated.js';
import type { BpmnGraph, BpmnProblem } from '../../../statemachines/bpmn/graph.js';
import type { ProcessDefinitionInput } from '../../../statemachines/definition.js';
import { problemsMessage } from '../../../statemachines/validate.js';
import { MAX_BPMN_BYTES } from './definition-schemas.js';

const DATA_LOCATION = 'body.resources.bpmn.data';

export class InvalidBpmnDataError extends apiError('INVALID_BPMN_DATA') {
  constructor(why: string) {
    super(`resources.bpmn.data ${why}.`, [{ location: DATA_LOCATION, message: why }]);
  }
}

/**
 * Every problem of the file, each a detail (none left out at a count: a file is fixed in one
 * round; within errors.ts detailsWithin's 4 MiB). The message names the first and counts the others.
 */
export class InvalidBpmnError extends apiError('INVALID_BPMN') {
  constructor(details: ErrorDetail[]) {
    super(problemsMessage('The BPMN cannot be deployed.', details), detailsWithin(details));
  }
}

/** RFC 4648 base64 with padding, nothing else: no line breaks, no URL alphabet, no stray characters. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The uploaded file's bytes. Strict: Node's own decoder skips characters it does not know and
 * stops at the first `=`, so a damaged upload would be read as a different file rather than refused.
 * Over MAX_BPMN_BYTES is 413, like a body over its limit.
 */
export function decodeBpmnData(data: string): Buffer {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  const size = (data.length / 4) * 3 - padding;
  if (size > MAX_BPMN_BYTES) {
    throw new PayloadTooLargeError(`The BPMN file is ${Math.floor(size)} bytes; an upload takes at most ${MAX_BPMN_BYTES}.`);
  }
  if (data.length === 0) throw new InvalidBpmnDataError('is empty');
  if (!BASE64.test(data)) {
    throw new InvalidBpmnDataError('is not base64 (RFC 4648 alphabet, padded to a multiple of 4 characters, without line breaks: `base64 -w0`)');
  }
  const bytes = Buffer.from(data, 'base64');
  // Non-zero bits in the last character's padding: another encoder's output would differ.
  if (bytes.toString('base64') !== data) throw new InvalidBpmnDataError('is not canonical base64 (the padding bits are not zero)');
  return bytes;
}

/** The file as text for the parser: UTF-8 (a byte-order mark is allowed and skipped); the stored file keeps its bytes. */
export function bpmnText(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InvalidBpmnDataError('does not decode to UTF-8 text (save the BPMN file as UTF-8)');
  }
}

/** A problem of the parse or the conversion, at its element. */
export function problemDetail(p: BpmnProblem): ErrorDetail {
  const where = p.id ? `bpmn.${p.id}${p.input ? `.inputs.${p.input}` : ''}` : DATA_LOCATION;
  const who = p.id ? `${p.element ?? 'element'} "${p.id}"${p.beanName ? ` (bean ${p.beanName})` : ''}: ` : '';
  return { location: where, message: `${who}${p.message}` };
}

/**
 * Activities this deployment has no runtime for (functions/activities, `notRunnable`): refused
 * at publish, each element named, never accepted and then failed at run time.
 */
export function notRunnableTasks(graph: BpmnGraph): ErrorDetail[] {
  return graph.tasks.flatMap((task) => {
    const reason = task.activityType === undefined ? undefined : (NOT_RUNNABLE as Record<string, string>)[task.activityType];
    if (reason === undefined) return [];
    return [
      {
        location: `bpmn.${task.id}`,
        message: `bpmn:ServiceTask "${task.id}" (bean ${task.beanName}, ${task.activityType}): this deployment cannot run it: ${reason}`,
      },
    ];
  });
}

/** The same rule for a definition in the JSON format: each activity of a type that cannot run. */
export function notRunnableActivities(input: unknown): ErrorDetail[] {
  const activities = (input as { activities?: unknown } | null)?.activities;
  if (activities === null || typeof activities !== 'object') return [];
  return Object.entries(activities).flatMap(([id, activity]) => {
    const type = (activity as { type?: unknown } | null)?.type;
    const reason = typeof type === 'string' && Object.hasOwn(NOT_RUNNABLE, type) ? (NOT_RUNNABLE as Record<string, string>)[type] : undefined;
    if (reason === undefined) return [];
    return [{ location: `activities.${id}.type`, message: `activity "${id}" (${String(type)}): this deployment cannot run it: ${reason}` }];
  });
}

/**
 * Validation details of a converted definition (`activities.<id>...`, `gateways.<id>...`,
 * `ends.<id>`, `startActivityId`) moved onto the BPMN elements: node ids are the BPMN ids, a
 * gateway's branch is its sequence flow and a timer its boundary event. Members that came from
 * the body (`name`, `description`) stay there.
 */
export function locateOnBpmn(detail: ErrorDetail, definition: ProcessDefinitionInput, graph: BpmnGraph): ErrorDetail {
  const at = (location: string) => ({ location, message: detail.message });
  const loc = detail.location;
  if (loc === 'startActivityId') return at(graph.startEvents[0] ? `bpmn.${graph.startEvents[0].id}` : DATA_LOCATION);
  for (const collection of ['activities', 'gateways', 'ends'] as const) {
    if (!loc.startsWith(`${collection}.`)) continue;
    const rest = loc.slice(collection.length + 1);
    // Node ids may hold dots: the longest id the location starts with is the node.
    const id = Object.keys(definition[collection] ?? {})
      .filter((k) => rest === k || rest.startsWith(`${k}.`))
      .sort((a, b) => b.length - a.length)[0];
    if (id === undefined) return at(`bpmn.${rest}`);
    const tail = rest.slice(id.length);
    if (collection === 'gateways') {
      const branch = /^\.branches\.(\d+)(.*)$/.exec(tail);
      const flowId = branch ? definition.gateways?.[id]?.branches[Number(branch[1])]?.id : undefined;
      if (flowId) return at(`bpmn.${flowId}${branch![2]}`);
      const defaultFlow = definition.gateways?.[id]?.defaultFlowId;
      if (tail === '.default' && defaultFlow) return at(`bpmn.${defaultFlow}`);
    }
    if (collection === 'activities') {
      const timer = /^\.timer(.*)$/.exec(tail);
      const timerId = definition.activities[id]?.timer?.id;
      if (timer && timerId) return at(`bpmn.${timerId}${timer[1]}`);
    }
    return at(`bpmn.${id}${tail}`);
  }
  return at(`body.${loc}`);
}
