/**
 * `bpmnToDefinition(graph, meta)`: the graph of a parsed BPMN (parse.ts) as a process definition
 * in our JSON format, which `validateDefinition` then checks against the catalogue and the graph
 * rules. Ids are the BPMN ids, so every detail validation gives names the designer's element.
 *
 * What the BPMN says that the definition cannot hold is a problem here, by element id, all at
 * once; what the definition can hold but the catalogue or the graph rules refuse (an unknown
 * input, a timer on a service step, a gateway without a default, an unreachable task) is left to
 * validation, which says it with the same ids.
 *
 * - A task is an activity keyed by its id: its type from the bean name, its inputs by label
 *   (empty ones left out; a data form given as text is read as JSON), its output parameters as
 *   `outputs`, its one outgoing flow as `next`.
 * - An exclusive gateway with conditions is a gateway: its conditional flows in document order
 *   are the branches, its default flow the default. A merging gateway (one outgoing flow, no
 *   condition) is no node: the flows into it go where it leads.
 * - An error boundary event is an `errorEvents` route, found by its error code among the
 *   activity's error events, with its `camunda:errorCodeVariable` / `errorMessageVariable` as
 *   `errorVariables`; a timer boundary event is the activity's `timer`.
 * - End events are `ends`; an error end event keeps its error code.
 */
import { activitySpec, type ActivitySpec, type InputSpec } from '../catalogue.js';
import type { ProcessDefinitionInput } from '../definition.js';
import type { BpmnBoundaryEvent, BpmnGraph, BpmnInput, BpmnInputType, BpmnInputValue, BpmnProblem, BpmnSequenceFlow, BpmnTask } from './graph.js';
import { convertInputValue, isExpression } from './inputs.js';
import { readJson } from '../../functions/shared/json.js';

export interface BpmnDefinitionMeta {
  readonly name: string;
  readonly version: number;
  readonly description?: string;
}

export type BpmnConversion = { readonly definition: ProcessDefinitionInput } | { readonly problems: BpmnProblem[] };

type ActivityInput = ProcessDefinitionInput['activities'][string];
type GatewayInput = NonNullable<ProcessDefinitionInput['gateways']>[string];
type EndInput = NonNullable<ProcessDefinitionInput['ends']>[string];
type InputValue = NonNullable<ActivityInput['inputs']>[string];

/** The BPMN element type a problem names, by the graph's kind. */
const ELEMENT: Readonly<Record<string, string>> = {
  startEvent: 'bpmn:StartEvent',
  endEvent: 'bpmn:EndEvent',
  serviceTask: 'bpmn:ServiceTask',
  userStep: 'bpmn:ServiceTask',
  exclusiveGateway: 'bpmn:ExclusiveGateway',
  boundaryEvent: 'bpmn:BoundaryEvent',
  flow: 'bpmn:SequenceFlow',
};

export function bpmnToDefinition(graph: BpmnGraph, meta: BpmnDefinitionMeta): BpmnConversion {
  const problems: BpmnProblem[] = [...graph.problems];
  // Elements the parser already reported may be missing from the graph: a flow that touches one
  // is not reported again.
  const reported = new Set(graph.problems.map((p) => p.id).filter((id): id is string => id !== undefined));
  const problem = (id: string, kind: keyof typeof ELEMENT, code: BpmnProblem['code'], message: string) =>
    problems.push({ code, id, element: ELEMENT[kind]!, message });

  const kindOf = new Map<string, keyof typeof ELEMENT>();
  for (const e of graph.startEvents) kindOf.set(e.id, 'startEvent');
  for (const e of graph.endEvents) kindOf.set(e.id, 'endEvent');
  for (const t of graph.tasks) kindOf.set(t.id, t.kind);
  for (const g of graph.gateways) kindOf.set(g.id, 'exclusiveGateway');
  for (const b of graph.boundaryEvents) kindOf.set(b.id, 'boundaryEvent');

  // Outgoing flows of each element, in document order; flows that touch an unknown element are reported once.
  const outgoing = new Map<string, BpmnSequenceFlow[]>();
  /** Elements with a flow to an element already reported: not reported again for a missing flow. */
  const cut = new Set<string>();
  for (const flow of graph.flows) {
    const source = kindOf.get(flow.source);
    const target = kindOf.get(flow.target);
    if (source === undefined || target === undefined) {
      const missing = source === undefined ? flow.source : flow.target;
      cut.add(flow.source);
      if (!reported.has(missing) && !reported.has(flow.id)) {
        problem(flow.id, 'flow', 'INVALID_FLOW', `the flow ${source === undefined ? 'leaves' : 'goes to'} ${missing}, which is not an event, task or exclusive gateway of the process`);
      }
      continue;
    }
    if (source === 'endEvent') problem(flow.id, 'flow', 'INVALID_FLOW', `the flow leaves end event ${flow.source}: nothing follows an end`);
    if (target === 'startEvent') problem(flow.id, 'flow', 'INVALID_FLOW', `the flow goes to start event ${flow.target}: a journey starts only from its process token`);
    if (target === 'boundaryEvent') problem(flow.id, 'flow', 'INVALID_FLOW', `the flow goes to boundary event ${flow.target}: a boundary event is reached only through its task`);
    if (source === 'endEvent' || target === 'startEvent' || target === 'boundaryEvent') continue;
    if (flow.condition !== undefined && source !== 'exclusiveGateway') {
      problem(flow.id, 'flow', 'CONDITIONAL_FLOW', `the flow out of ${flow.source} has a condition: only the flows out of an exclusive gateway have conditions`);
    }
    const list = outgoing.get(flow.source) ?? [];
    list.push(flow);
    outgoing.set(flow.source, list);
  }
  const out = (id: string) => outgoing.get(id) ?? [];

  // Merging gateways: one outgoing flow without a condition. The flows into one go on to its target.
  const merges = new Map<string, string>();
  for (const g of graph.gateways) {
    const flows = out(g.id);
    if (flows.length === 1 && flows[0]!.condition === undefined) merges.set(g.id, flows[0]!.target);
  }
  const looped = new Set<string>();
  /** Where a flow into `id` leads, past merging gateways; undefined on a loop of merges (reported once). */
  const resolve = (id: string): string | undefined => {
    const seen: string[] = [];
    let at = id;
    while (merges.has(at)) {
      if (seen.includes(at)) {
        const first = seen.slice(seen.indexOf(at)).sort()[0]!;
        if (!looped.has(first)) {
          looped.add(first);
          problem(first, 'exclusiveGateway', 'INVALID_FLOW', `merging gateways ${seen.slice(seen.indexOf(at)).join(' → ')} lead only to each other: the journey would never leave them`);
        }
        return undefined;
      }
      seen.push(at);
      at = merges.get(at)!;
    }
    return at;
  };

  /** The one flow out of a start event, task or boundary event; undefined when there is none. */
  const single = (id: string, kind: keyof typeof ELEMENT, what: string): string | undefined => {
    const flows = out(id);
    if (flows.length > 1) {
      problem(id, kind, 'PARALLEL_SPLIT', `${what} has ${flows.length} outgoing flows (${flows.map((f) => f.id).join(', ')}): a journey follows one path at a time; branch with an exclusive gateway`);
      return undefined;
    }
    return flows[0] === undefined ? undefined : resolve(flows[0].target);
  };

  // The start.
  let startActivityId = '';
  const [start] = graph.startEvents;
  if (start) {
    if (out(start.id).length === 0 && !cut.has(start.id)) problem(start.id, 'startEvent', 'MISSING_FLOW', 'the start event has no outgoing flow');
    startActivityId = single(start.id, 'startEvent', 'the start event') ?? '';
  }

  // Activities.
  const activities: Record<string, ActivityInput> = {};
  for (const task of graph.tasks) {
    const next = single(task.id, task.kind, `task ${task.id}`);
    activities[task.id] = {
      type: task.activityType ?? '',
      ...nameOf(task),
      ...inputsOf(task, (message, input) => problems.push({ code: 'INVALID_INPUT', id: task.id, element: ELEMENT[task.kind]!, input, message })),
      ...(next !== undefined ? { next } : {}),
      ...outputsOf(task),
    };
  }

  // Boundary events: error routes and timers.
  for (const b of graph.boundaryEvents) {
    const task = graph.tasks.find((t) => t.id === b.attachedTo);
    const activity = activities[b.attachedTo];
    if (!task || !activity) {
      if (!reported.has(b.attachedTo)) problem(b.id, 'boundaryEvent', 'INVALID_FLOW', `the boundary event is attached to ${b.attachedTo}, which is not a task`);
      continue;
    }
    if (out(b.id).length === 0) {
      if (!cut.has(b.id)) problem(b.id, 'boundaryEvent', 'MISSING_FLOW', `the boundary event on ${task.id} has no outgoing flow: say where the journey goes when it fires`);
      continue;
    }
    const next = single(b.id, 'boundaryEvent', `boundary event ${b.id}`);
    if (next === undefined) continue;
    attachBoundary(b, task, activity, next, (code, message) => problem(b.id, 'boundaryEvent', code, message));
  }

  // Gateways (the merging ones are gone).
  const gateways: Record<string, GatewayInput> = {};
  for (const g of graph.gateways) {
    if (merges.has(g.id)) continue;
    const flows = out(g.id);
    if (flows.length === 0) {
      if (!cut.has(g.id)) problem(g.id, 'exclusiveGateway', 'MISSING_FLOW', 'the gateway has no outgoing flow');
      continue;
    }
    const branches: GatewayInput['branches'] = [];
    let fallback: { next: string; flow: string } | undefined;
    if (g.default !== undefined && !flows.some((f) => f.id === g.default)) {
      problem(g.id, 'exclusiveGateway', 'INVALID_FLOW', `the gateway's default ${g.default} is not one of its outgoing flows (${flows.map((f) => f.id).join(', ')})`);
    }
    for (const f of flows) {
      const next = resolve(f.target);
      if (next === undefined) continue;
      // As Camunda does, a default flow's condition (the Modeler removes it) is not evaluated.
      if (f.id === g.default) fallback = { next, flow: f.id };
      else if (f.condition === undefined) {
        problem(f.id, 'flow', 'MISSING_CONDITION', `the flow out of gateway ${g.id} has no condition and is not the gateway's default flow: give it a condition, or make it the default`);
      } else branches.push({ id: f.id, ...nameOf(f), when: f.condition, next });
    }
    // A gateway whose only flow is its conditional one: validation asks for a default.
    gateways[g.id] = {
      ...nameOf(g),
      branches,
      ...(fallback ? { default: fallback.next, defaultFlowId: fallback.flow } : {}),
    };
  }

  // Ends.
  const ends: Record<string, EndInput> = {};
  for (const e of graph.endEvents) ends[e.id] = { ...nameOf(e), ...(e.error ? { error: e.error.errorCode } : {}), ...(e.screen !== undefined ? { screen: e.screen } : {}) };

  if (problems.length > 0) return { problems };
  return {
    definition: {
      name: meta.name,
      version: meta.version,
      ...(meta.description !== undefined ? { description: meta.description } : {}),
      startActivityId,
      activities,
      ...(Object.keys(gateways).length > 0 ? { gateways } : {}),
      ...(Object.keys(ends).length > 0 ? { ends } : {}),
    },
  };
}

/** A name the designer gave (an empty one is no name). */
function nameOf(e: { readonly name?: string }): { name?: string } {
  return e.name !== undefined && e.name.trim() !== '' ? { name: e.name } : {};
}

/**
 * Inputs by label. An empty parameter is left out (as Camunda reads it: null), so the catalogue's
 * default applies. A data form input (type F) given as text is its JSON. A literal written as text
 * where the catalogue wants an integer or a boolean (`"60"`, `"true"`) is that value, as the
 * family's engine converts it.
 */
function inputsOf(task: BpmnTask, bad: (message: string, input: string) => void): { inputs?: Record<string, InputValue> } {
  const spec = task.activityType === undefined ? undefined : activitySpec(task.activityType);
  const inputs: Record<string, InputValue> = {};
  for (const input of Object.values(task.inputs)) {
    if (input.value === null) continue;
    const wanted = spec === undefined ? undefined : specInput(spec, input);
    const name = wanted?.name ?? input.label;
    const value = catalogueValue(wanted, input.value);
    if (value === undefined) {
      bad(`input ${input.label}: the data form is not JSON: ${jsonProblem(input.value as string)}`, input.label);
      continue;
    }
    if (Object.hasOwn(inputs, name)) {
      bad(`input ${input.label}: given twice (as ${name})`, input.label);
      continue;
    }
    inputs[name] = value;
  }
  return Object.keys(inputs).length > 0 ? { inputs } : {};
}

/**
 * The spec's input a parameter gives: by the family's stable `name` first (the designer's labels
 * change between its versions; `maxAttempts` stays), then by label, the spec's own or the
 * family's (`Readonly`), then by a label differing only in case or spacing (`Read only`).
 */
function specInput(spec: ActivitySpec, input: BpmnInput): InputSpec | undefined {
  const loose = (name: string) => name.toLowerCase().replace(/\s+/g, ' ').trim();
  const labels = (i: InputSpec) => [i.name, ...(i.family?.label !== undefined ? [i.family.label] : [])];
  return (
    (input.variable !== undefined ? spec.inputs.find((i) => i.family?.name === input.variable) : undefined) ??
    spec.inputs.find((i) => labels(i).includes(input.label)) ??
    spec.inputs.find((i) => labels(i).some((l) => loose(l) === loose(input.label)))
  );
}

const SCALAR_TYPE: Partial<Record<InputSpec['type'], BpmnInputType>> = { I: 'INTEGER', B: 'BOOLEAN' };

/** The input's value as the definition takes it; undefined when a data form's text is not JSON. */
function catalogueValue(input: InputSpec | undefined, value: Exclude<BpmnInputValue, null>): InputValue | undefined {
  if (typeof value === 'string' && input?.type === 'F' && !isExpression(value)) {
    const read = readJson(value);
    return read.ok ? (read.value as InputValue) : undefined;
  }
  const scalar = input ? SCALAR_TYPE[input.type] : undefined;
  if (typeof value === 'string' && scalar) {
    const converted = convertInputValue(scalar, { text: value });
    if ('value' in converted && converted.value !== null) return converted.value as InputValue;
  }
  if (Array.isArray(value)) return [...(value as readonly string[])];
  if (typeof value === 'object') return { ...(value as Readonly<Record<string, string>>) };
  return value as InputValue;
}

function jsonProblem(text: string): string {
  const read = readJson(text);
  return read.ok ? '' : read.problem.message;
}

/** Output parameters; an empty one sets the variable to null, as in Camunda. */
function outputsOf(task: BpmnTask): { outputs?: Record<string, string> } {
  const entries = Object.entries(task.outputs);
  if (entries.length === 0) return {};
  return { outputs: Object.fromEntries(entries.map(([name, expression]) => [name, expression ?? '${null}'])) };
}

/**
 * Whether a boundary event's error code names an event: the family's PascalCase code, or the
 * event's code, also with a capital first letter (`failedFaceMatch` or `FailedFaceMatch`).
 */
export function errorCodeMatches(event: { readonly code: string; readonly familyCode?: string }, code: string): boolean {
  const capital = (c: string) => c.charAt(0).toUpperCase() + c.slice(1);
  return code === event.familyCode || code === event.code || code === capital(event.code);
}

function attachBoundary(
  b: BpmnBoundaryEvent,
  task: BpmnTask,
  activity: ActivityInput,
  next: string,
  problem: (code: BpmnProblem['code'], message: string) => void,
): void {
  const spec = task.activityType === undefined ? undefined : activitySpec(task.activityType);
  if (b.trigger.kind === 'timer') {
    if (activity.timer) {
      problem('DUPLICATE_BOUNDARY', `a second timer on ${task.id} (the first is ${activity.timer.id ?? 'another'}): a step has one timeout`);
      return;
    }
    activity.timer = { id: b.id, duration: b.trigger.duration, next };
    return;
  }
  // An activity the service cannot run is reported by itself (UNKNOWN_ACTIVITY): its error codes are not judged.
  if (spec === undefined) return;
  const code = b.trigger.errorCode;
  const event = spec.errorEvents.find((e) => errorCodeMatches(e, code));
  if (!event) {
    const known = spec.errorEvents.map((e) => e.familyCode ?? e.code);
    problem(
      'UNKNOWN_ERROR_CODE',
      `error code ${code} (${b.trigger.errorRef}) is not an error of ${task.id}${task.beanName ? ` (${task.beanName})` : ''}; ${
        known.length > 0 ? `its error codes are ${known.join(', ')}` : 'it raises no errors'
      }`,
    );
    return;
  }
  const routes = (activity.errorEvents ??= {});
  if (routes[event.name] !== undefined) {
    problem('DUPLICATE_BOUNDARY', `a second boundary event on ${task.id} for error code ${code}: one route per error`);
    return;
  }
  routes[event.name] = next;
  const { errorCodeVariable, errorMessageVariable } = b.trigger;
  if (errorCodeVariable !== undefined || errorMessageVariable !== undefined) {
    (activity.errorVariables ??= {})[event.name] = {
      ...(errorCodeVariable !== undefined ? { code: errorCodeVariable } : {}),
      ...(errorMessageVariable !== undefined ? { message: errorMessageVariable } : {}),
    };
  }
}
