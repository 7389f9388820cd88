/**
 * `definitionToBpmn(def)`: a validated process definition as BPMN 2.0 XML in the family's Camunda 7
 * dialect, the one `parseBpmn` reads, for a definition published as JSON (the `bpmnFile` read) and
 * for the designer: service steps as `camunda:delegateExpression="${bean}"` service tasks, user
 * steps as external tasks whose start listener names the bean, and whose end listener names the
 * spec's end bean if it has one (bean names: each spec's `family`), inputs as
 * `camunda:inputParameter` with `labelName` and `type` (the family's own name, label and type
 * where the spec knows them), output parameters,
 * exclusive gateways with `tFormalExpression` conditions and a default flow, error and timer
 * boundary events, `bpmn:error` elements by error code, end events, and a diagram (a grid by
 * distance from the start) so Camunda Modeler opens it.
 *
 * `parseBpmn` and `bpmnToDefinition` read it back to a definition that compiles to the same
 * state machine, with two exceptions:
 * - A Simple Decider with rules (our JSON format only) becomes what the designer would draw: a
 *   gateway (the decider's id) whose branches are the rules as JUEL, each leading to a decider
 *   that records its Outcome, then an end event. The rules' JUEL decides as the rules do, except
 *   where JUEL coerces: `equals: "x"` also holds for a number or boolean JUEL equates with "x",
 *   `equals: 5` for the string "5", `equals: true` for the string "true", and `isPresent` on a
 *   nested path is false for an explicit null.
 * - Node ids that are not XML names (starting with a digit, `-` or `.`) get a `_` in front: BPMN
 *   ids are XML ids.
 * An input whose value is the empty string is written empty, which Camunda (and parseBpmn) read as
 * no value, so the catalogue's default applies.
 *
 * Written with bpmn-moddle's model and the moddle-xml `Writer` its `toXML` wraps in a promise,
 * called directly so that this function stays synchronous.
 */
import type { ModdleElement } from 'bpmn-moddle';
import { Writer } from 'moddle-xml';
import { activitySpec, aslErrorName, type ActivitySpec, type InputSpec } from '../catalogue.js';
import type { Activity, Condition, InputValue, Outcome, ProcessDefinition } from '../definition.js';
import { SESSION_KEYS } from '../variables.js';
import { beanNameFor, END_SCREEN_BEAN, endBeanFor } from './activities.js';
import type { BpmnInputType } from './graph.js';
import { bpmnModdle } from './moddle.js';

const DECIDER_BEAN = 'activityOutcomeDeciderV1';
const MODELER_NS = 'http://camunda.org/schema/modeler/1.0';

/** Our ids are `[A-Za-z0-9_.-]`; an XML id must not start with a digit, `-` or `.`. */
const XML_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const MAX_ID = 80;

const INPUT_TYPE: Readonly<Record<InputSpec['type'], BpmnInputType>> = {
  S: 'STRING',
  I: 'INTEGER',
  N: 'STRING',
  B: 'BOOLEAN',
  L: 'LIST_STRING',
  M: 'MAP_STRING',
  F: 'STRING',
};

type Kind = 'task' | 'gateway' | 'start' | 'end' | 'boundary';

interface Node {
  readonly el: ModdleElement;
  readonly kind: Kind;
  readonly incoming: ModdleElement[];
  readonly outgoing: ModdleElement[];
  /** For a boundary event: the task it sits on. */
  readonly host?: string;
}

export function definitionToBpmn(def: ProcessDefinition): string {
  const moddle = bpmnModdle();
  const create = (type: string, props: Record<string, unknown> = {}) => moddle.create(type, props);

  // ---- ids: node ids kept (made XML names), everything else generated and unique.
  const used = new Set<string>();
  const fresh = (base: string): string => {
    let id = base.slice(0, MAX_ID);
    for (let n = 2; used.has(id); n++) id = `${base.slice(0, MAX_ID - String(n).length - 1)}_${n}`;
    used.add(id);
    return id;
  };
  const gateways = def.gateways ?? {};
  const ends = def.ends ?? {};
  const nodeIds = [...Object.keys(def.activities), ...Object.keys(gateways), ...Object.keys(ends)];
  for (const id of nodeIds) if (XML_NAME.test(id)) used.add(id);
  const bpmnId = new Map<string, string>();
  for (const id of nodeIds) bpmnId.set(id, XML_NAME.test(id) ? id : fresh(`_${id}`));
  // Ids the definition keeps (timers, flows) are kept where they are free.
  let counter = 0;
  const next = (prefix: string) => fresh(`${prefix}_${(++counter).toString(36).padStart(4, '0')}`);
  const keep = (id: string | undefined, prefix: string) => (id !== undefined && XML_NAME.test(id) && !used.has(id) ? fresh(id) : next(prefix));

  // ---- nodes
  const nodes = new Map<string, Node>();
  const keys = new Map<ModdleElement, string>();
  const flowElements: ModdleElement[] = [];
  const add = (key: string, el: ModdleElement, kind: Kind, host?: string): Node => {
    const node: Node = { el, kind, incoming: [], outgoing: [], ...(host !== undefined ? { host } : {}) };
    nodes.set(key, node);
    keys.set(el, key);
    flowElements.push(el);
    return node;
  };
  const errors = new Map<string, ModdleElement>();
  const errorFor = (code: string, name: string) => {
    let error = errors.get(code);
    if (!error) {
      error = create('bpmn:Error', { id: fresh(`Error_${code.replace(/[^A-Za-z0-9_.-]/g, '_')}`), name, errorCode: code });
      errors.set(code, error);
    }
    return error;
  };

  const start = add('#start', create('bpmn:StartEvent', { id: fresh('StartEvent_1'), name: 'Start' }), 'start');

  /** Edges to make once every node exists: from a node key to a definition node id. */
  const edges: { from: string; to: string; id?: string; name?: string; when?: string; isDefault?: boolean }[] = [];
  edges.push({ from: '#start', to: def.startActivityId });

  for (const [id, activity] of Object.entries(def.activities)) {
    const spec = activitySpec(activity.type);
    if (!spec) throw new Error(`activity ${id}: unknown type ${activity.type}; definitionToBpmn takes a validated definition`);
    if (spec.kind === 'decider' && activity.rules) {
      expandRules(id, activity);
      continue;
    }
    add(id, task(bpmnId.get(id)!, activity, spec), 'task');
    if (activity.next !== undefined) edges.push({ from: id, to: activity.next });
    for (const [event, target] of Object.entries(activity.errorEvents ?? {})) {
      const found = spec.errorEvents.find((e) => e.name === event)!;
      const { name } = found;
      // The family's own code where its exports show one (what its designer would write).
      const code: string = found.familyCode ?? found.code;
      const vars = activity.errorVariables?.[event];
      const boundary = create('bpmn:BoundaryEvent', {
        id: next('Event'),
        name: event,
        attachedToRef: nodes.get(id)!.el,
        eventDefinitions: [
          create('bpmn:ErrorEventDefinition', {
            id: next('ErrorEventDefinition'),
            errorRef: errorFor(code, name),
            ...(vars?.code !== undefined ? { errorCodeVariable: vars.code } : {}),
            ...(vars?.message !== undefined ? { errorMessageVariable: vars.message } : {}),
          }),
        ],
      });
      const key = `#boundary:${boundary.id as string}`;
      add(key, boundary, 'boundary', id);
      edges.push({ from: key, to: target });
    }
    if (activity.timer) {
      const boundary = create('bpmn:BoundaryEvent', {
        id: keep(activity.timer.id, 'Timer'),
        name: activity.timer.duration,
        attachedToRef: nodes.get(id)!.el,
        eventDefinitions: [
          create('bpmn:TimerEventDefinition', {
            id: next('TimerEventDefinition'),
            timeDuration: create('bpmn:FormalExpression', { body: activity.timer.duration }),
          }),
        ],
      });
      const key = `#boundary:${boundary.id as string}`;
      add(key, boundary, 'boundary', id);
      edges.push({ from: key, to: activity.timer.next });
    }
  }

  for (const [id, gateway] of Object.entries(gateways)) {
    add(id, create('bpmn:ExclusiveGateway', { id: bpmnId.get(id)!, ...named(gateway.name) }), 'gateway');
    for (const b of gateway.branches) edges.push({ from: id, to: b.next, ...(b.id !== undefined ? { id: b.id } : {}), ...(b.name !== undefined ? { name: b.name } : {}), when: b.when });
    if (gateway.default !== undefined) edges.push({ from: id, to: gateway.default, ...(gateway.defaultFlowId !== undefined ? { id: gateway.defaultFlowId } : {}), isDefault: true });
  }

  for (const [id, end] of Object.entries(ends)) add(id, endEvent(bpmnId.get(id)!, end.name, end.error, end.screen), 'end');

  // ---- flows, in the order of the edges: a gateway's conditional flows in branch order, then its default.
  for (const edge of edges) {
    const source = nodes.get(edge.from)!;
    const target = nodes.get(edge.to);
    if (!target) throw new Error(`no node ${edge.to}; definitionToBpmn takes a validated definition`);
    const flow = create('bpmn:SequenceFlow', {
      id: keep(edge.id, 'Flow'),
      ...named(edge.name),
      sourceRef: source.el,
      targetRef: target.el,
      ...(edge.when !== undefined ? { conditionExpression: create('bpmn:FormalExpression', { body: edge.when }) } : {}),
    });
    if (edge.isDefault) source.el.default = flow;
    source.outgoing.push(flow);
    target.incoming.push(flow);
    flowElements.push(flow);
  }
  for (const node of nodes.values()) {
    if (node.incoming.length > 0) node.el.incoming = node.incoming;
    if (node.outgoing.length > 0) node.el.outgoing = node.outgoing;
  }

  const processElement = create('bpmn:Process', {
    id: fresh(`Process_${def.name.replace(/[^A-Za-z0-9_.-]/g, '_')}`),
    name: def.name,
    isExecutable: true,
    historyTimeToLive: String(def.retentionDays),
    ...(def.description !== '' ? { documentation: [create('bpmn:Documentation', { text: def.description })] } : {}),
    flowElements,
  });
  const definitions = create('bpmn:Definitions', {
    id: fresh('Definitions_1'),
    targetNamespace: 'http://bpmn.io/schema/bpmn',
    exporter: 'arthr-orchestration',
    exporterVersion: '1',
    rootElements: [processElement, ...errors.values()],
    diagrams: [diagram(processElement)],
  });
  // So Camunda Modeler opens it as a Camunda 7 diagram (its properties panel, its element templates).
  definitions.$attrs['xmlns:modeler'] = MODELER_NS;
  definitions.$attrs['modeler:executionPlatform'] = 'Camunda Platform';
  definitions.$attrs['modeler:executionPlatformVersion'] = '7.20.0';
  return new Writer({ format: true }).toXML(definitions);

  // ---- elements

  function task(id: string, activity: Activity, spec: ActivitySpec): ModdleElement {
    const bean = beanNameFor(activity.type);
    if (bean === undefined) throw new Error(`activity type ${activity.type} has no bean name (family.beans)`);
    const io = inputOutput(activity, spec);
    const user = spec.kind === 'user';
    const endBean = user ? endBeanFor(activity.type) : undefined;
    const values = [
      ...(user ? [create('camunda:ExecutionListener', { event: 'start', delegateExpression: `\${${bean}}` })] : []),
      ...(endBean !== undefined ? [create('camunda:ExecutionListener', { event: 'end', delegateExpression: `\${${endBean}}` })] : []),
      ...(io ? [io] : []),
    ];
    return create('bpmn:ServiceTask', {
      id,
      ...named(activity.name),
      ...(user ? { type: 'external', topic: 'userTask' } : { delegateExpression: `\${${bean}}` }),
      ...(values.length > 0 ? { extensionElements: create('bpmn:ExtensionElements', { values }) } : {}),
    });
  }

  function inputOutput(activity: Activity, spec: ActivitySpec): ModdleElement | undefined {
    // A name made from a label never takes a family name of another input, which the importer would match first.
    const names = new Set<string>(spec.inputs.flatMap((i) => (i.family?.name !== undefined ? [i.family.name] : [])));
    const inputParameters = Object.entries(activity.inputs).map(([label, value]) => {
      const input = spec.inputs.find((i) => i.name === label);
      const type: BpmnInputType = input?.family?.type ?? (input ? (input.type === 'S' && input.enum ? 'ENUM' : INPUT_TYPE[input.type]) : 'STRING');
      // The family's own parameter name and label where the spec knows them, so its designer reads the file as its own.
      const name = input?.family?.name ?? variableName(label, names);
      const parameter = create('camunda:InputParameter', { name, ...parameterValue(value, input?.type) });
      parameter.$attrs.labelName = input?.family?.label ?? label;
      parameter.$attrs.type = type;
      return parameter;
    });
    const outputParameters = Object.entries(activity.outputs ?? {}).map(([name, expression]) => create('camunda:OutputParameter', { name, value: expression }));
    if (inputParameters.length === 0 && outputParameters.length === 0) return undefined;
    return create('camunda:InputOutput', { inputParameters, outputParameters });
  }

  /** Text, a `camunda:list` or a `camunda:map`; numbers and booleans as the designer writes literals (`${60}`). */
  function parameterValue(value: InputValue, type: InputSpec['type'] | undefined): Record<string, unknown> {
    if (type === 'F' || (typeof value === 'object' && value !== null && !Array.isArray(value) && type !== 'M')) return { value: JSON.stringify(value) };
    if (typeof value === 'string') return { value };
    if (typeof value === 'number' || typeof value === 'boolean') return { value: `\${${String(value)}}` };
    if (Array.isArray(value)) return { definition: create('camunda:List', { items: value.map((v) => create('camunda:Value', { value: v })) }) };
    return { definition: create('camunda:Map', { entries: Object.entries(value).map(([key, v]) => create('camunda:Entry', { key, value: String(v) })) }) };
  }

  function endEvent(id: string, name: string | undefined, error: string | undefined, screen?: string): ModdleElement {
    // The family's end listener naming the final screen, with its screen inputs.
    const screenInputs = () =>
      (['screens', 'stepId', 'screenId'] as const).map((n) => {
        const p = create('camunda:InputParameter', n === 'screens' ? { name: n, definition: create('camunda:List', { items: [create('camunda:Value', { value: screen })] }) } : { name: n, value: screen });
        p.$attrs.labelName = n === 'screens' ? 'List of Screens' : n === 'stepId' ? 'Starting component ID' : 'UI Component Id';
        return p;
      });
    return create('bpmn:EndEvent', {
      id,
      ...named(name),
      ...(screen !== undefined
        ? {
            extensionElements: create('bpmn:ExtensionElements', {
              values: [
                create('camunda:InputOutput', { inputParameters: screenInputs(), outputParameters: [] }),
                create('camunda:ExecutionListener', { event: 'start', delegateExpression: `\${${END_SCREEN_BEAN}}` }),
              ],
            }),
          }
        : {}),
      ...(error !== undefined
        ? { eventDefinitions: [create('bpmn:ErrorEventDefinition', { id: next('ErrorEventDefinition'), errorRef: errorFor(error, error) })] }
        : {}),
    });
  }

  function outcomeTask(id: string, outcome: Outcome, name: string): ModdleElement {
    const parameter = create('camunda:InputParameter', { name: 'outcome', value: outcome });
    parameter.$attrs.labelName = 'Outcome';
    parameter.$attrs.type = 'ENUM';
    return create('bpmn:ServiceTask', {
      id,
      name,
      delegateExpression: `\${${DECIDER_BEAN}}`,
      extensionElements: create('bpmn:ExtensionElements', { values: [create('camunda:InputOutput', { inputParameters: [parameter], outputParameters: [] })] }),
    });
  }

  /**
   * A decider with rules: a gateway with the decider's id whose branches are the rules (first
   * that holds wins, as in the decider) and whose default is the default outcome; each leads to a
   * decider recording that outcome, then to one end. A rule that can never hold is left out; when
   * the first remaining one always holds (or none remains), the decider is just its outcome.
   */
  function expandRules(id: string, activity: Activity): void {
    const rules: { when: string; outcome: Outcome }[] = [];
    let fallback: Outcome = activity.default ?? 'REVIEW';
    for (const rule of activity.rules ?? []) {
      const when = juel(rule.when, def);
      if (when === false) continue;
      if (when === true) {
        fallback = rule.outcome;
        break;
      }
      rules.push({ when: `\${${when}}`, outcome: rule.outcome });
    }
    const endKey = `#end:${id}`;
    const addEnd = () => add(endKey, endEvent(fresh(`${id.slice(0, MAX_ID - 4)}_end`), activity.name ?? 'Decided', undefined), 'end');
    if (rules.length === 0) {
      add(id, outcomeTask(bpmnId.get(id)!, fallback, activity.name ?? `Decision ${fallback}`), 'task');
      edges.push({ from: id, to: endKey });
      addEnd();
      return;
    }
    add(id, create('bpmn:ExclusiveGateway', { id: bpmnId.get(id)!, ...named(activity.name) }), 'gateway');
    const outcomes = new Map<Outcome, string>();
    const outcomeNode = (outcome: Outcome) => {
      let key = outcomes.get(outcome);
      if (key === undefined) {
        key = `#outcome:${id}:${outcome}`;
        outcomes.set(outcome, key);
        add(key, outcomeTask(fresh(`${id.slice(0, MAX_ID - outcome.length - 1)}_${outcome}`), outcome, `Decision ${outcome}`), 'task');
        edges.push({ from: key, to: endKey });
      }
      return key;
    };
    for (const rule of rules) edges.push({ from: id, to: outcomeNode(rule.outcome), when: rule.when, name: rule.outcome });
    edges.push({ from: id, to: outcomeNode(fallback), isDefault: true });
    addEnd();
  }

  // ---- the diagram: columns by distance from the start, one row per node of a column.

  function diagram(processElement: ModdleElement): ModdleElement {
    const SIZE: Record<Kind, [number, number]> = { start: [36, 36], end: [36, 36], boundary: [36, 36], task: [100, 80], gateway: [50, 50] };
    const column = new Map<string, number>([['#start', 0]]);
    const boundariesOf = new Map<string, Node[]>();
    for (const node of nodes.values()) if (node.host !== undefined) boundariesOf.set(node.host, [...(boundariesOf.get(node.host) ?? []), node]);
    // A task's boundary events sit on it: what they lead to is one column further, as its next is.
    const successors = (key: string) =>
      [nodes.get(key)!, ...(boundariesOf.get(key) ?? [])].flatMap((n) => n.outgoing.map((f) => keyOf(f.targetRef as ModdleElement)));
    const queue = ['#start'];
    while (queue.length > 0) {
      const key = queue.shift()!;
      for (const to of successors(key)) {
        if (!column.has(to)) {
          column.set(to, column.get(key)! + 1);
          queue.push(to);
        }
      }
    }
    const last = Math.max(0, ...column.values());
    const rows = new Map<number, number>();
    const bounds = new Map<string, { x: number; y: number; width: number; height: number }>();
    const planeElements: ModdleElement[] = [];
    for (const [key, node] of nodes) {
      if (node.kind === 'boundary') continue;
      const col = column.get(key) ?? last + 1;
      const row = rows.get(col) ?? 0;
      rows.set(col, row + 1);
      const [width, height] = SIZE[node.kind];
      const b = { x: 150 + col * 180 + (100 - width) / 2, y: 80 + row * 160 + (80 - height) / 2, width, height };
      bounds.set(key, b);
      planeElements.push(shape(node.el, b, node.kind === 'gateway'));
    }
    const onTask = new Map<string, number>();
    for (const [key, node] of nodes) {
      if (node.kind !== 'boundary') continue;
      const host = bounds.get(node.host!)!;
      const k = onTask.get(node.host!) ?? 0;
      onTask.set(node.host!, k + 1);
      const b = { x: host.x + 2 + ((k * 34) % 68), y: host.y + host.height - 18 + Math.floor(k / 2) * 40, width: 36, height: 36 };
      bounds.set(key, b);
      planeElements.push(shape(node.el, b, false));
    }
    for (const el of flowElements) {
      if (el.$type !== 'bpmn:SequenceFlow') continue;
      const from = bounds.get(keyOf(el.sourceRef as ModdleElement))!;
      const to = bounds.get(keyOf(el.targetRef as ModdleElement))!;
      planeElements.push(create('bpmndi:BPMNEdge', { id: fresh(`${el.id as string}_di`), bpmnElement: el, waypoint: route(from, to).map(([x, y]) => create('dc:Point', { x, y })) }));
    }
    const plane = create('bpmndi:BPMNPlane', { id: fresh('BPMNPlane_1'), bpmnElement: processElement, planeElement: planeElements });
    return create('bpmndi:BPMNDiagram', { id: fresh('BPMNDiagram_1'), plane });
  }

  function keyOf(el: ModdleElement): string {
    return keys.get(el)!;
  }

  function shape(el: ModdleElement, b: { x: number; y: number; width: number; height: number }, marker: boolean): ModdleElement {
    return create('bpmndi:BPMNShape', {
      id: fresh(`${el.id as string}_di`),
      bpmnElement: el,
      ...(marker ? { isMarkerVisible: true } : {}),
      bounds: create('dc:Bounds', b),
    });
  }
}

/** Right side to left side with one vertical segment; a flow back (a loop) goes over the top. */
function route(from: { x: number; y: number; width: number; height: number }, to: { x: number; y: number; width: number; height: number }): [number, number][] {
  const sy = from.y + from.height / 2;
  const ty = to.y + to.height / 2;
  if (to.x > from.x + from.width) {
    const sx = from.x + from.width;
    const tx = to.x;
    if (sy === ty) return [[sx, sy], [tx, ty]];
    const mid = Math.round((sx + tx) / 2);
    return [[sx, sy], [mid, sy], [mid, ty], [tx, ty]];
  }
  const top = Math.min(from.y, to.y) - 30;
  const sx = from.x + from.width / 2;
  const tx = to.x + to.width / 2;
  return [[sx, from.y], [sx, top], [tx, top], [tx, to.y]];
}

function named(name: string | undefined): { name?: string } {
  return name === undefined ? {} : { name };
}

/** `Time To Live (Seconds)` → `timeToLiveSeconds`, unique within the task. */
function variableName(label: string, taken: Set<string>): string {
  const words = label.split(/[^A-Za-z0-9]+/).filter(Boolean);
  let base = words.map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1))).join('') || 'input';
  if (/^\d/.test(base)) base = `_${base}`;
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
  taken.add(name);
  return name;
}

// ---------------------------------------------------------------------------------------------
// Decider conditions as JUEL

const ROOT = new Set<string>(SESSION_KEYS);
/** JUEL's reserved words: a property so named is written `a["not"]`. */
const RESERVED = new Set(['and', 'or', 'not', 'eq', 'ne', 'lt', 'gt', 'le', 'ge', 'true', 'false', 'null', 'empty', 'div', 'mod', 'instanceof']);

function path(variable: string): string {
  const [root, ...rest] = variable.split('.');
  return root + rest.map((s) => (RESERVED.has(s) ? `["${s}"]` : `.${s}`)).join('');
}

function literal(value: string | number | boolean): string {
  return typeof value === 'string' ? `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : String(value);
}

/**
 * A decider condition as a JUEL expression (without `${}`), or a constant. The decider reads
 * paths from the session root, where only the session keys live (`_checks`, `vars`, ...); JUEL
 * reads any other name from `vars`, so a path under another root is always absent: constant.
 */
export function juel(c: Condition, def: ProcessDefinition): string | boolean {
  if ('all' in c || 'any' in c) {
    const isAll = 'all' in c;
    const parts: string[] = [];
    for (const sub of isAll ? c.all : c.any) {
      const j = juel(sub, def);
      if (j === !isAll) return !isAll; // false in an all, true in an any
      if (j !== isAll) parts.push(`(${j as string})`);
    }
    if (parts.length === 0) return isAll;
    return parts.length === 1 ? parts[0]!.slice(1, -1) : parts.join(isAll ? ' && ' : ' || ');
  }
  if ('not' in c) {
    const j = juel(c.not, def);
    return typeof j === 'boolean' ? !j : `!(${j})`;
  }
  if ('errorEvent' in c) {
    if (c.errorEvent === true) return 'execution.hasVariable("_lastError")';
    const target = def.activities[c.errorEvent.activity];
    const error = target ? aslErrorName(target.type, c.errorEvent.name) : undefined;
    if (error === undefined) return false;
    return `_lastError.Error == ${literal(error)}`;
  }
  const root = c.variable.split('.')[0]!;
  const present = ROOT.has(root);
  if ('isPresent' in c) {
    if (!present) return !c.isPresent;
    const test = c.variable.includes('.') ? `${path(c.variable)} != null` : `execution.hasVariable(${literal(c.variable)})`;
    return c.isPresent ? test : `!(${test})`;
  }
  if ('equals' in c) return present ? `${path(c.variable)} == ${literal(c.equals)}` : false;
  return present ? `${path(c.variable)} != ${literal(c.notEquals)}` : true;
}
