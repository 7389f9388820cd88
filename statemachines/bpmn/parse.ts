/**
 * `parseBpmn(xml)`: the family's Camunda 7 BPMN (as Camunda Modeler 5 exports it) read with
 * bpmn-moddle into the intermediate graph of its one executable process (graph.ts).
 *
 * It never throws on what the XML says: everything the service cannot run comes back in
 * `problems` with the element's id, all of them at once, so the definition can be refused whole
 * with every reason (not accepted and then failed at run time).
 */
import type { FromXmlResult } from 'bpmn-moddle';
import { activitySpec } from '../catalogue.js';
import { beanNameOf, END_SCREEN_BEAN, resolveActivity, resolveEndBean } from './activities.js';
import { isoDurationSeconds } from './duration.js';
import type {
  BpmnBoundaryEvent,
  BpmnEndEvent,
  BpmnErrorDefinition,
  BpmnExclusiveGateway,
  BpmnGraph,
  BpmnInput,
  BpmnProblem,
  BpmnSequenceFlow,
  BpmnStartEvent,
  BpmnTask,
} from './graph.js';
import { convertInputValue, isBpmnInputType, type RawInputValue } from './inputs.js';
import {
  readBpmnXml,
  type MCollaboration,
  type MDefinitions,
  type MElement,
  type MError,
  type MExtension,
  type MFlowElement,
  type MParameter,
  type MProcess,
} from './moddle.js';

/** Why each flow element the service does not run is refused: said in the problem. */
const UNSUPPORTED: Readonly<Record<string, string>> = {
  'bpmn:ParallelGateway': 'a parallel gateway: a journey follows one path at a time',
  'bpmn:InclusiveGateway': 'an inclusive gateway: a journey follows one path at a time',
  'bpmn:EventBasedGateway': 'an event-based gateway: journeys wait on user steps, not on events',
  'bpmn:ComplexGateway': 'a complex gateway: only exclusive gateways are supported',
  'bpmn:SubProcess': 'a subprocess: a definition is one flat process',
  'bpmn:AdHocSubProcess': 'an ad hoc subprocess: a definition is one flat process',
  'bpmn:Transaction': 'a transaction subprocess: a definition is one flat process',
  'bpmn:CallActivity': 'a call activity: a definition is one flat process',
  'bpmn:IntermediateCatchEvent': 'an intermediate event: journeys wait on user steps, not on messages, signals or timers',
  'bpmn:IntermediateThrowEvent': 'an intermediate event: journeys wait on user steps, not on messages, signals or timers',
  'bpmn:UserTask': 'a user task: user steps are external service tasks whose start listener names the activity',
  'bpmn:ScriptTask': 'a script task: scripts are not run',
  'bpmn:BusinessRuleTask': 'a business rule task: decisions are made by the decider activity or by gateways',
  'bpmn:SendTask': 'a send task: messages are not supported',
  'bpmn:ReceiveTask': 'a receive task: messages are not supported',
  'bpmn:ManualTask': 'a manual task: every task must name an activity',
  'bpmn:Task': 'a task without a type: every task must be a service task naming an activity',
};

/** Flow elements with no execution meaning here (data only), skipped like annotations and lanes. */
const IGNORED = new Set(['bpmn:DataObject', 'bpmn:DataObjectReference', 'bpmn:DataStoreReference']);

type Unresolved = Map<MElement, Map<string, string>>;

function emptyGraph(problems: BpmnProblem[]): BpmnGraph {
  return { process: null, startEvents: [], endEvents: [], tasks: [], gateways: [], flows: [], boundaryEvents: [], errors: [], problems };
}

const named = (el: MElement) => ({ id: el.id ?? '', ...(el.name !== undefined ? { name: el.name } : {}) });

export async function parseBpmn(xml: string): Promise<BpmnGraph> {
  let read: FromXmlResult;
  try {
    read = await readBpmnXml(xml);
  } catch (err) {
    return emptyGraph([{ code: 'INVALID_XML', message: `not BPMN 2.0 XML: ${firstLine(err)}` }]);
  }
  const root = read.rootElement as MDefinitions | undefined;
  if (!root || root.$type !== 'bpmn:Definitions') return emptyGraph([{ code: 'INVALID_XML', message: 'the document is not bpmn:definitions' }]);

  const problems: BpmnProblem[] = [];
  // References to ids that do not exist: reported where the graph reads them (a diagram's
  // dangling reference does not matter to execution).
  const unresolved: Unresolved = new Map();
  for (const w of read.warnings) {
    if (w.message.startsWith('unresolved reference') && w.element && w.property) {
      const props = unresolved.get(w.element) ?? new Map<string, string>();
      props.set(w.property.replace(/^bpmn:/, ''), String(w.value));
      unresolved.set(w.element, props);
    } else if (w.message.startsWith('unparsable content')) {
      // moddle has no element to name here, only where in the text it stopped (its lines count from 0).
      const line = /line: (\d+)/.exec(w.message)?.[1];
      problems.push({ code: 'INVALID_XML', message: `${firstLine(w.message)}${line ? ` at line ${Number(line) + 1}` : ''}` });
    }
    // Unknown attributes are expected (the family's labelName and type, other tools' vendor attributes).
  }

  const roots = root.rootElements ?? [];
  const processes = roots.filter((r): r is MProcess => r.$type === 'bpmn:Process');
  const process = processes.find((p) => p.isExecutable === true) ?? processes[0];
  if (!process) return emptyGraph([...problems, { code: 'PROCESS', id: root.id ?? '', element: root.$type, message: 'the definitions hold no process' }]);
  if (process.isExecutable !== true)
    problems.push({ code: 'PROCESS', id: process.id ?? '', element: process.$type, message: 'the process is not executable (isExecutable="true")' });
  for (const other of processes)
    if (other !== process)
      problems.push({ code: 'PROCESS', id: other.id ?? '', element: other.$type, message: 'a second process: a definition holds one process' });
  for (const collaboration of roots.filter((r): r is MCollaboration => r.$type === 'bpmn:Collaboration'))
    for (const flow of collaboration.messageFlows ?? [])
      problems.push({ code: 'UNSUPPORTED_ELEMENT', id: flow.id ?? '', element: flow.$type, message: 'a message flow: messages are not supported' });

  const errors: BpmnErrorDefinition[] = roots
    .filter((r): r is MError => r.$type === 'bpmn:Error')
    .map((e) => ({
      ...named(e),
      ...(e.errorCode !== undefined ? { errorCode: e.errorCode } : {}),
      ...(e.errorMessage !== undefined ? { errorMessage: e.errorMessage } : {}),
    }));

  const startEvents: BpmnStartEvent[] = [];
  const endEvents: BpmnEndEvent[] = [];
  const tasks: BpmnTask[] = [];
  const gateways: BpmnExclusiveGateway[] = [];
  const flows: BpmnSequenceFlow[] = [];
  const boundaryEvents: BpmnBoundaryEvent[] = [];
  const problem = (el: MElement, code: BpmnProblem['code'], message: string, extra: Partial<BpmnProblem> = {}) =>
    problems.push({ code, id: el.id ?? '', element: el.$type, ...extra, message });
  const missingRef = (el: MElement, property: string) => {
    const target = unresolved.get(el)?.get(property);
    return target === undefined ? `has no ${property}` : `names ${target} in ${property}, which does not exist`;
  };

  for (const el of process.flowElements ?? []) {
    switch (el.$type) {
      case 'bpmn:StartEvent':
        if (el.eventDefinitions?.length) problem(el, 'UNSUPPORTED_ELEMENT', `a start event triggered by ${triggerNames(el)}: a journey starts from its process token`);
        else if (startEvents.length > 0) problem(el, 'UNSUPPORTED_ELEMENT', 'a second start event: a journey has one start');
        else startEvents.push({ ...named(el), kind: 'startEvent' });
        break;
      case 'bpmn:EndEvent': {
        const end = readEnd(el, problem, missingRef);
        if (end) endEvents.push(end);
        break;
      }
      case 'bpmn:ServiceTask':
        tasks.push(readTask(el, problem));
        break;
      case 'bpmn:ExclusiveGateway':
        if (el.default === undefined && unresolved.get(el)?.has('default')) problem(el, 'UNRESOLVED_REFERENCE', `the gateway ${missingRef(el, 'default')}`);
        gateways.push({ ...named(el), kind: 'exclusiveGateway', ...(el.default?.id !== undefined ? { default: el.default.id } : {}) });
        break;
      case 'bpmn:SequenceFlow': {
        const flow = readFlow(el, problem, missingRef);
        if (flow) flows.push(flow);
        break;
      }
      case 'bpmn:BoundaryEvent': {
        const boundary = readBoundary(el, problem, missingRef);
        if (boundary) boundaryEvents.push(boundary);
        break;
      }
      default:
        if (IGNORED.has(el.$type)) break;
        problem(el, 'UNSUPPORTED_ELEMENT', `${UNSUPPORTED[el.$type] ?? `${el.$type} is not supported`}`);
    }
  }
  if (startEvents.length === 0) problems.push({ code: 'PROCESS', id: process.id ?? '', element: process.$type, message: 'the process has no start event' });

  return {
    process: { ...named(process), isExecutable: process.isExecutable === true },
    startEvents,
    endEvents,
    tasks,
    gateways,
    flows,
    boundaryEvents,
    errors,
    problems,
  };
}

type Report = (el: MElement, code: BpmnProblem['code'], message: string, extra?: Partial<BpmnProblem>) => void;

function readTask(el: MFlowElement, problem: Report): BpmnTask {
  const extensions = el.extensionElements?.values ?? [];
  const external = el.type === 'external';
  let expression: string | undefined;
  if (external) {
    const starts = extensions.filter((x) => x.$type === 'camunda:ExecutionListener' && x.event === 'start' && x.delegateExpression);
    if (starts.length > 1) problem(el, 'MISSING_ACTIVITY', 'two start listeners name an activity: a user step names one');
    expression = starts[0]?.delegateExpression;
    if (!expression) problem(el, 'MISSING_ACTIVITY', 'an external task whose start execution listener names no activity (delegateExpression="${beanName}")');
  } else if (el.type !== undefined || el.class !== undefined || el.expression !== undefined || extensions.some((x) => x.$type === 'camunda:Connector')) {
    problem(el, 'UNSUPPORTED_ELEMENT', 'a service task implemented by a Java class, an expression or a connector: it must name an activity (delegateExpression="${beanName}")');
  } else {
    expression = el.delegateExpression;
    if (!expression) problem(el, 'MISSING_ACTIVITY', 'a service task that names no activity (camunda:delegateExpression="${beanName}")');
  }
  if (el.loopCharacteristics) problem(el, 'UNSUPPORTED_ELEMENT', 'a multi-instance task: each task runs once per pass');

  const beanName = beanNameOf(expression);
  if (expression && beanName === undefined) problem(el, 'MISSING_ACTIVITY', `${JSON.stringify(expression)} does not name a bean (\${beanName})`);
  const activityType = beanName === undefined ? undefined : resolveActivity(beanName);
  if (beanName !== undefined && activityType === undefined) problem(el, 'UNKNOWN_ACTIVITY', `${beanName} names no activity this service runs`, { beanName });
  const activityKind = activityType === undefined ? undefined : activitySpec(activityType)?.kind;
  const endBeanName = external ? readEndListener(el, extensions, activityType, problem) : undefined;

  const io = extensions.find((x): x is MExtension => x.$type === 'camunda:InputOutput');
  return {
    ...named(el),
    kind: external ? 'userStep' : 'serviceTask',
    ...(beanName !== undefined ? { beanName } : {}),
    ...(endBeanName !== undefined ? { endBeanName } : {}),
    ...(activityType !== undefined ? { activityType } : {}),
    ...(activityKind !== undefined ? { activityKind } : {}),
    inputs: readInputs(el, io?.inputParameters ?? [], problem),
    outputs: readOutputs(el, io?.outputParameters ?? [], problem),
  };
}

/**
 * A user step's end execution listener. The family pairs some start beans with one
 * (`customDataFormV1` + `customDataFormWriterV1`): this service does what the pair does in the
 * start bean's activity, so the listener is accepted. One that belongs to another activity is a
 * mistake in the file and is refused; one no spec names is accepted as it stands (its bean is
 * recorded), because what it writes is the step's own result, which the activity already keeps.
 */
function readEndListener(el: MFlowElement, extensions: readonly MExtension[], activityType: string | undefined, problem: Report): string | undefined {
  const ends = extensions.filter((x) => x.$type === 'camunda:ExecutionListener' && x.event === 'end' && x.delegateExpression);
  if (ends.length > 1) problem(el, 'MISSING_ACTIVITY', 'two end listeners on a user step: it has at most one');
  const expression = ends[0]?.delegateExpression;
  if (expression === undefined) return undefined;
  const bean = beanNameOf(expression);
  if (bean === undefined) {
    problem(el, 'MISSING_ACTIVITY', `the end listener ${JSON.stringify(expression)} does not name a bean (\${beanName})`);
    return undefined;
  }
  const owner = resolveEndBean(bean) ?? resolveActivity(bean);
  if (owner !== undefined && activityType !== undefined && owner !== activityType)
    problem(el, 'UNKNOWN_ACTIVITY', `the end listener ${bean} belongs to ${owner}, not to this step's ${activityType}`, { beanName: bean });
  return bean;
}

function readInputs(task: MElement, parameters: readonly MParameter[], problem: Report): Record<string, BpmnInput> {
  const inputs: Record<string, BpmnInput> = {};
  for (const p of parameters) {
    const label = p.$attrs?.labelName ?? p.name;
    if (!label) {
      problem(task, 'INVALID_INPUT', 'an input parameter with neither labelName nor name');
      continue;
    }
    const bad = (message: string) => problem(task, 'INVALID_INPUT', `input ${label}: ${message}`, { input: label });
    const raw = rawValue(p, bad);
    if (!raw) continue;
    const declared = p.$attrs?.type;
    if (declared !== undefined && !isBpmnInputType(declared)) {
      bad(`type ${declared} is not one of STRING, INTEGER, BOOLEAN, ENUM, LIST_STRING, MAP_STRING`);
      continue;
    }
    // Without a type (a plain Camunda parameter), the value's shape says it.
    const type = declared ?? (raw.list ? 'LIST_STRING' : raw.map ? 'MAP_STRING' : 'STRING');
    if (Object.hasOwn(inputs, label)) {
      bad('given twice');
      continue;
    }
    const converted = convertInputValue(type, raw);
    if ('problem' in converted) {
      bad(converted.problem);
      continue;
    }
    inputs[label] = { label, ...(p.name !== undefined ? { variable: p.name } : {}), type, value: converted.value };
  }
  return inputs;
}

/**
 * The text, list or map a parameter holds; undefined (after reporting) when it holds something
 * else. Texts are trimmed, as Camunda reads them: the Modeler writes `face1` followed by a line
 * break and the indentation of the next element.
 */
function rawValue(p: MParameter, bad: (message: string) => void): RawInputValue | undefined {
  const d = p.definition;
  if (!d) return p.value === undefined ? {} : { text: p.value.trim() };
  if (d.$type === 'camunda:List') {
    const items = d.items ?? [];
    if (items.some((i) => i.$type !== 'camunda:Value')) return void bad('a list may hold only camunda:value items');
    return { list: items.map((i) => (i.value ?? '').trim()) };
  }
  if (d.$type === 'camunda:Map') {
    const map: Record<string, string> = {};
    for (const e of d.entries ?? []) {
      if (e.key === undefined) return void bad('a map entry without a key');
      if (e.definition) return void bad(`map entry ${e.key} holds a nested ${e.definition.$type}: entries are strings`);
      if (Object.hasOwn(map, e.key)) return void bad(`map key ${e.key} given twice`);
      map[e.key] = (e.value ?? '').trim();
    }
    return { map };
  }
  return void bad(`${d.$type} values are not supported (scripts are not run)`);
}

function readOutputs(task: MElement, parameters: readonly MParameter[], problem: Report): Record<string, string | null> {
  const outputs: Record<string, string | null> = {};
  for (const p of parameters) {
    if (!p.name) problem(task, 'INVALID_INPUT', 'an output parameter without a name');
    else if (p.definition) problem(task, 'INVALID_INPUT', `output ${p.name}: only an expression may set a process variable`, { input: p.name });
    else outputs[p.name] = p.value?.trim() ?? null;
  }
  return outputs;
}

function readFlow(el: MFlowElement, problem: Report, missingRef: (el: MElement, property: string) => string): BpmnSequenceFlow | undefined {
  const source = el.sourceRef?.id;
  const target = el.targetRef?.id;
  if (source === undefined) problem(el, 'UNRESOLVED_REFERENCE', `the flow ${missingRef(el, 'sourceRef')}`);
  if (target === undefined) problem(el, 'UNRESOLVED_REFERENCE', `the flow ${missingRef(el, 'targetRef')}`);
  let condition: string | undefined;
  const c = el.conditionExpression;
  if (c) {
    condition = c.body?.trim();
    if (c.language !== undefined && c.language.toLowerCase() !== 'juel') problem(el, 'INVALID_CONDITION', `a ${c.language} condition: conditions are \${...} expressions`);
    else if (!condition) problem(el, 'INVALID_CONDITION', 'an empty condition');
  }
  if (source === undefined || target === undefined) return undefined;
  return { ...named(el), source, target, ...(condition ? { condition } : {}) };
}

/**
 * A plain end event, or an error end event (one `errorEventDefinition` naming a `bpmn:error`
 * with a code): the journey ends declined, with that code. Other triggers are refused.
 */
function readEnd(el: MFlowElement, problem: Report, missingRef: (el: MElement, property: string) => string): BpmnEndEvent | undefined {
  const screen = readEndScreen(el, problem);
  const definitions = el.eventDefinitions ?? [];
  const [definition] = definitions;
  if (!definition) return { ...named(el), kind: 'endEvent', ...(screen !== undefined ? { screen } : {}) };
  if (definitions.length > 1 || definition.$type !== 'bpmn:ErrorEventDefinition') {
    problem(el, 'UNSUPPORTED_ELEMENT', `an end event that throws ${triggerNames(el)}: a journey ends plainly or with an error`);
    return undefined;
  }
  const error = definition.errorRef;
  if (!error) {
    problem(el, 'MISSING_ERROR_REF', `the error end event ${missingRef(definition, 'errorRef')}: it must name a bpmn:error`);
    return undefined;
  }
  if (!error.errorCode) {
    problem(el, 'MISSING_ERROR_CODE', `the error ${error.id ?? ''} it names has no errorCode to end with`);
    return undefined;
  }
  return { ...named(el), kind: 'endEvent', error: { errorRef: error.id ?? '', errorCode: error.errorCode }, ...(screen !== undefined ? { screen } : {}) };
}

/**
 * An end event's start execution listener: `${redirectMapperV1}` with the family's screen inputs
 * (`screens`, `stepId`, `screenId`), which names the final screen. Any other bean on an end event
 * names something this service does not run.
 */
function readEndScreen(el: MFlowElement, problem: Report): string | undefined {
  const extensions = el.extensionElements?.values ?? [];
  const listeners = extensions.filter((x) => x.$type === 'camunda:ExecutionListener' && x.delegateExpression);
  if (listeners.length === 0) return undefined;
  const beans = listeners.map((x) => beanNameOf(x.delegateExpression));
  const other = beans.find((b) => b !== END_SCREEN_BEAN);
  if (other !== undefined || listeners.length > 1) {
    problem(el, 'UNKNOWN_ACTIVITY', `the end event's listener ${other ?? END_SCREEN_BEAN}${listeners.length > 1 ? ' (one of several)' : ''} is not one this service runs: an end event takes ${END_SCREEN_BEAN} once`, {
      ...(other ? { beanName: other } : {}),
    });
    return undefined;
  }
  const io = extensions.find((x): x is MExtension => x.$type === 'camunda:InputOutput');
  const inputs = readInputs(el, io?.inputParameters ?? [], problem);
  const byName = (name: string) => Object.values(inputs).find((i) => i.variable === name)?.value;
  const text = (v: unknown) => (typeof v === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(v) ? v : undefined);
  const screens = byName('screens');
  return text(byName('screenId')) ?? text(byName('stepId')) ?? (Array.isArray(screens) ? text(screens[0]) : undefined) ?? 'thank-you';
}

function readBoundary(el: MFlowElement, problem: Report, missingRef: (el: MElement, property: string) => string): BpmnBoundaryEvent | undefined {
  const attachedTo = el.attachedToRef?.id;
  if (attachedTo === undefined) problem(el, 'UNRESOLVED_REFERENCE', `the boundary event ${missingRef(el, 'attachedToRef')}`);
  // BPMN's default is interrupting; moddle reads the attribute as a boolean.
  const cancelActivity = el.cancelActivity !== false;
  const definitions = el.eventDefinitions ?? [];
  const [definition] = definitions;
  if (!definition || definitions.length > 1) {
    problem(el, 'UNSUPPORTED_ELEMENT', `a boundary event with ${definitions.length} triggers: it takes one timer or one error`);
    return undefined;
  }
  if (!cancelActivity) {
    problem(el, 'UNSUPPORTED_ELEMENT', 'a non-interrupting boundary event: a journey follows one path at a time');
    return undefined;
  }
  let trigger: BpmnBoundaryEvent['trigger'];
  if (definition.$type === 'bpmn:TimerEventDefinition') {
    const duration = definition.timeDuration?.body?.trim();
    if (duration === undefined) {
      problem(el, 'INVALID_TIMER', 'a timer without timeDuration: only a duration (not a date or a cycle) can time a user step out');
      return undefined;
    }
    const seconds = isoDurationSeconds(duration);
    if ('problem' in seconds) {
      problem(el, 'INVALID_TIMER', seconds.problem);
      return undefined;
    }
    trigger = { kind: 'timer', duration, seconds: seconds.seconds };
  } else if (definition.$type === 'bpmn:ErrorEventDefinition') {
    const error = definition.errorRef;
    if (!error) {
      // Camunda reads an error boundary without errorRef as "catch every error"; the family always names one.
      problem(el, 'MISSING_ERROR_REF', `the error boundary event ${missingRef(definition, 'errorRef')}: it must name a bpmn:error`);
      return undefined;
    }
    if (!error.errorCode) {
      problem(el, 'MISSING_ERROR_CODE', `the error ${error.id ?? ''} it names has no errorCode to match`);
      return undefined;
    }
    trigger = {
      kind: 'error',
      errorRef: error.id ?? '',
      errorCode: error.errorCode,
      ...(definition.errorCodeVariable !== undefined ? { errorCodeVariable: definition.errorCodeVariable } : {}),
      ...(definition.errorMessageVariable !== undefined ? { errorMessageVariable: definition.errorMessageVariable } : {}),
    };
  } else {
    problem(el, 'UNSUPPORTED_ELEMENT', `a boundary event triggered by ${triggerNames(el)}: only timers and errors are supported`);
    return undefined;
  }
  if (attachedTo === undefined) return undefined;
  return { ...named(el), kind: 'boundaryEvent', attachedTo, cancelActivity, trigger };
}

/** `bpmn:MessageEventDefinition` → `message`. */
function triggerNames(el: MFlowElement): string {
  return (el.eventDefinitions ?? []).map((d) => d.$type.replace(/^bpmn:(\w+)EventDefinition$/, '$1').toLowerCase()).join(' and ');
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0]!.slice(0, 200);
}
