/**
 * definitionToBpmn → parseBpmn → bpmnToDefinition → validateDefinition gives back a definition
 * that compiles to the same state machine, for the examples, the BPMN fixtures and fast-check
 * generated graphs (activities of many types and input kinds, gateways with and without a
 * default, gateways into gateways, loops back to user steps, timers, error routes with their
 * variables, error ends, outputs, odd names and ids). A Simple Decider with rules comes back as a
 * gateway of JUEL branches to Outcome deciders: there the behaviour is compared, in the local
 * engine (aws-local-stepfunctions) on generated session states: the same decision, in the same
 * number of transitions.
 */
import '../../../lib/local/engine-polyfill.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StateMachine } from 'aws-local-stepfunctions';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseBpmn } from '../../../statemachines/bpmn/parse.js';
import { definitionToBpmn, juel } from '../../../statemachines/bpmn/to-bpmn.js';
import { bpmnToDefinition } from '../../../statemachines/bpmn/to-definition.js';
import { activitySpec } from '../../../statemachines/catalogue.js';
import { parseCondition } from '../../../statemachines/conditions/index.js';
import {
  aslPathTransitions,
  compileDefinition,
  OUTCOME_NOT_RECORDED_STATE,
  RECORD_OUTCOME_STATE,
  type AslState,
  type AslStateMachine,
  type AslTaskState,
} from '../../../statemachines/compile.js';
import type { Condition, ProcessDefinition } from '../../../statemachines/definition.js';
import { exampleDefinitions } from '../../../statemachines/examples/index.js';
import { validateDefinition } from '../../../statemachines/validate.js';
import { largeDefinition } from '../../support/large-definition.js';
import { ARN, END_ARN, PUSH_INPUTS } from './fixtures.js';

const compile = (def: ProcessDefinition) => compileDefinition(def, { activityFunctionArn: ARN, executionEndFunctionArn: END_ARN });

async function roundTrip(def: ProcessDefinition): Promise<{ xml: string; back: ProcessDefinition }> {
  const xml = definitionToBpmn(def);
  const graph = await parseBpmn(xml);
  expect(graph.problems).toEqual([]);
  const converted = bpmnToDefinition(graph, { name: def.name, version: def.version, description: def.description });
  if ('problems' in converted) throw new Error(`conversion problems: ${JSON.stringify(converted.problems)}`);
  return { xml, back: validateDefinition({ ...converted.definition, retentionDays: def.retentionDays }) };
}

/** The states reachable from `id` (itself included). */
function reachable(asl: AslStateMachine, id: string): Set<string> {
  const seen = new Set<string>([id]);
  const queue = [id];
  while (queue.length > 0) {
    const state: AslState = asl.States[queue.shift()!]!;
    const next = [
      ...('Next' in state && state.Next ? [state.Next] : []),
      ...(state.Type === 'Choice' ? [...state.Choices.map((c) => c.Next!), ...(state.Default !== undefined ? [state.Default] : [])] : []),
      ...(state.Type === 'Task' ? (state.Catch ?? []).map((c) => c.Next) : []),
    ];
    for (const n of next) if (!seen.has(n)) (seen.add(n), queue.push(n));
  }
  return seen;
}

function without(asl: AslStateMachine, drop: Set<string>): Record<string, AslState> {
  return Object.fromEntries(Object.entries(asl.States).filter(([id]) => !drop.has(id)));
}

/**
 * The decider's part of a state machine (its Choice and the Pass states after it), as a machine
 * of its own: the decisions end it rather than go on to record the outcome (a Lambda call).
 */
function deciderMachine(asl: AslStateMachine, id: string) {
  const states = [...reachable(asl, id)].filter((s) => s !== RECORD_OUTCOME_STATE && s !== OUTCOME_NOT_RECORDED_STATE);
  const ended = (state: AslState): AslState => {
    if (!('Next' in state) || state.Next !== RECORD_OUTCOME_STATE) return state;
    const { Next: _next, ...rest } = state;
    return { ...rest, End: true } as AslState;
  };
  return { StartAt: id, States: Object.fromEntries(states.map((s) => [s, ended(asl.States[s]!)])) } as AslStateMachine;
}

async function decide(machine: AslStateMachine, input: unknown): Promise<unknown> {
  const sm = new StateMachine(machine as never, { validationOptions: { noValidate: true } });
  return ((await sm.run(input as never).result) as { _decision?: unknown })._decision;
}

// ---- walking a state machine -----------------------------------------------------------------

const STEP = /^(?:\.([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\['([^'\\]*)'\])/;

/** A reference path as JSONPath reads it: own properties only. */
function query(path: string, input: unknown): unknown {
  let rest = path.slice(1);
  let cur: unknown = input;
  while (rest !== '') {
    const m = STEP.exec(rest);
    if (!m) throw new Error(`unsupported path ${path}`);
    rest = rest.slice(m[0].length);
    const k = m[1] ?? (m[2] !== undefined ? Number(m[2]) : m[3]!);
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, k)) return undefined;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}

const TYPE: Record<string, string> = { String: 'string', Numeric: 'number', Boolean: 'boolean' };

/** A Choice rule, as Step Functions decides it; an unguarded read fails, as there. */
function holds(rule: Record<string, unknown>, input: unknown): boolean {
  if ('And' in rule) return (rule.And as Record<string, unknown>[]).every((r) => holds(r, input));
  if ('Or' in rule) return (rule.Or as Record<string, unknown>[]).some((r) => holds(r, input));
  if ('Not' in rule) return !holds(rule.Not as Record<string, unknown>, input);
  const path = rule.Variable as string;
  const [[name, expected]] = Object.entries(rule).filter(([k]) => k !== 'Variable' && k !== 'Next') as [[string, unknown]];
  const v = query(path, input);
  // `IsX: false` is the negation, as on AWS.
  if (name === 'IsPresent') return (v !== undefined) === expected;
  if (v === undefined) throw new Error(`States.Runtime: ${path} is missing (${name})`);
  if (name === 'IsNull') return (v === null) === expected;
  if (name.startsWith('Is')) return (typeof v === TYPE[name.slice(2)]) === expected;
  const m = /^(String|Numeric|Boolean)(Equals|LessThan|GreaterThan|LessThanEquals|GreaterThanEquals)(Path)?$/.exec(name)!;
  const other = m[3] ? query(expected as string, input) : expected;
  if (typeof v !== TYPE[m[1]!] || typeof other !== TYPE[m[1]!]) return false;
  const [a, b] = [v as string | number | boolean, other as string | number | boolean];
  return { Equals: a === b, LessThan: a < b, GreaterThan: a > b, LessThanEquals: a <= b, GreaterThanEquals: a >= b }[m[2] as 'Equals'];
}

function setAt(state: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(state);
  setPath(copy, path.slice(2), value);
  return copy;
}

/**
 * The states a run from `from` enters on `input`, every task succeeding without changing the
 * data: each non-Choice state by name (a decision that only one machine has as `decision:X`),
 * at most 30 of them (a loop back to a user step repeats), and the Choice states entered.
 */
function walk(asl: AslStateMachine, other: AslStateMachine, from: string, input: Record<string, unknown>) {
  const trace: string[] = [];
  let choices = 0;
  let state = input;
  for (let id: string | undefined = from; id !== undefined && trace.length < 30; ) {
    const s: AslState = asl.States[id]!;
    if (s.Type === 'Choice') {
      choices++;
      id = s.Choices.find((c) => holds(c, state))?.Next ?? s.Default;
      continue;
    }
    const shared = other.States[id]?.Type === s.Type;
    trace.push(shared || s.Type !== 'Pass' || s.ResultPath !== '$._decision' ? id : `decision:${String(s.Result)}`);
    if (s.Type === 'Pass') state = setAt(state, s.ResultPath, 'InputPath' in s && s.InputPath ? query(s.InputPath, state) : s.Result);
    id = 'Next' in s ? s.Next : undefined;
  }
  return { trace, choices };
}

/**
 * Asserts `back` compiles as `def` does. Without a rules decider: the same state machine. With
 * one: the same tasks, passes and ends, state for state; the same states reached from the start
 * and from every error route, on each input; each decider's part deciding the same in the local
 * engine, in the same transitions. A rules decider is a gateway after the round trip, which the
 * gateways before it may fuse (fewer transitions, or, where the fused state would grow past the
 * compiler's size limit, a gateway left unfused): the transitions per path are compared only
 * where that cannot happen.
 */
async function expectSameMachine(def: ProcessDefinition, back: ProcessDefinition, inputs: readonly Record<string, unknown>[]): Promise<void> {
  const before = compile(def);
  const after = compile(back);
  const deciders = Object.entries(def.activities).filter(([, a]) => a.rules !== undefined).map(([id]) => id);
  if (deciders.length === 0) {
    expect(after).toEqual(before);
    return;
  }
  expect({ ...after, States: {} }).toEqual({ ...before, States: {} });
  const decisions = new Set(deciders.flatMap((id) => [...reachable(before, id)]));
  // The state keeps what its Choice rules read: a decider the round trip folded (its outcome
  // settled by its rules) reads less, so the kept paths may shrink, never grow.
  const keepOf = (asl: AslStateMachine) => Object.values(asl.States).flatMap((s) => (s.Type === 'Task' && 'keep' in s.Parameters.Payload ? [s.Parameters.Payload.keep] : []))[0] ?? [];
  const withoutKeep = (s: unknown) => (s && typeof s === 'object' && 'Parameters' in s ? { ...s, Parameters: { ...(s as AslTaskState).Parameters, Payload: { ...(s as AslTaskState).Parameters.Payload, keep: [] } } } : s);
  const covered = (path: string) => keepOf(before).some((k) => path === k || path.startsWith(`${k}.`) || path.startsWith(`${k}[`));
  expect(keepOf(after).filter((p) => !covered(p))).toEqual([]);
  for (const [id, state] of Object.entries(before.States)) {
    if (state.Type === 'Choice' || decisions.has(id)) continue;
    expect(withoutKeep(after.States[id]), id).toEqual(withoutKeep(state));
  }
  const afterGateway = new Set(Object.values(def.gateways ?? {}).flatMap((g) => [...g.branches.map((b) => b.next), g.default]));
  const unchanged = deciders.every((id) => after.States[id]?.Type === 'Choice' && !afterGateway.has(id));
  const starts = new Set([before.StartAt, ...Object.values(before.States).flatMap((s) => (s.Type === 'Task' ? (s.Catch ?? []).map((c) => c.Next) : []))]);
  for (const from of starts) {
    for (const input of inputs) {
      const [a, b] = [walk(before, after, from, input), walk(after, before, from, input)];
      expect(b.trace, `from ${from} on ${JSON.stringify(input)}`).toEqual(a.trace);
      if (unchanged) expect(b.choices).toBe(a.choices);
    }
  }
  for (const id of deciders) {
    if (after.States[id]?.Type !== 'Choice') continue;
    const [ma, mb] = [deciderMachine(before, id), deciderMachine(after, id)];
    expect(aslPathTransitions(mb)).toEqual(aslPathTransitions(ma));
    for (const input of inputs) expect(await decide(mb, input), `${id} on ${JSON.stringify(input)}`).toBe(await decide(ma, input));
  }
  if (unchanged) expect(aslPathTransitions(after)).toEqual(aslPathTransitions(before));
}

/** Every flow node has a shape and every flow an edge: what Camunda Modeler needs to draw it. */
function expectDiagram(xml: string): void {
  const ids = [...xml.matchAll(/<bpmn:(?:serviceTask|exclusiveGateway|startEvent|endEvent|boundaryEvent|sequenceFlow) id="([^"]+)"/g)].map((m) => m[1]);
  const drawn = new Set([...xml.matchAll(/<bpmndi:BPMN(?:Shape|Edge) id="[^"]+" bpmnElement="([^"]+)"/g)].map((m) => m[1]));
  expect(ids.length).toBeGreaterThan(0);
  for (const id of ids) expect(drawn.has(id), `no diagram element for ${id}`).toBe(true);
}

// ---- session states for the deciders ---------------------------------------------------------

/**
 * Variables the generated rules read, each with values of one type (the rules compare a string
 * variable with strings, and so on): where JUEL's coercions would let a rule and its JUEL differ
 * (README: to-bpmn.ts), the states do not go.
 */
const STRING_VARS = ['_checks.face1.result', '_checks.doc.result', '_checks.empty.result', 'parameters.channel', 'vars.country'] as const;
const NUMBER_VARS = ['vars.score'] as const;
const BOOLEAN_VARS = ['vars.flag', '_checks.face1.live'] as const;
const STRINGS = ['PASS', 'FAIL', 'REVIEW', 'x y "q" \\'];
const NUMBERS = [1, 5, -2, 2.5];
const ASL_ERRORS = ['ExtIdNotUnique', 'AddUserFailed', 'FaceMatchFailed', 'PushNotificationOtherError', 'Other'];

function setPath(state: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let at = state;
  for (const p of parts.slice(0, -1)) at = (at[p] ??= {}) as Record<string, unknown>;
  at[parts.at(-1)!] = value;
}

const sessionState: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    strings: fc.array(fc.option(fc.constantFrom(...STRINGS), { nil: undefined }), { minLength: STRING_VARS.length, maxLength: STRING_VARS.length }),
    numbers: fc.array(fc.option(fc.constantFrom(...NUMBERS), { nil: undefined }), { minLength: NUMBER_VARS.length, maxLength: NUMBER_VARS.length }),
    booleans: fc.array(fc.option(fc.boolean(), { nil: undefined }), { minLength: BOOLEAN_VARS.length, maxLength: BOOLEAN_VARS.length }),
    lastError: fc.option(fc.constantFrom(...ASL_ERRORS), { nil: undefined }),
    firstName: fc.option(fc.constantFrom(...STRINGS), { nil: undefined }),
    // What the gateways' conditions read (the same JUEL in both machines: any values will do).
    gatewayVars: fc.record(
      {
        isMobile: fc.constantFrom(true, false, 'true', 'TRUE', 'no'),
        riskScore: fc.constantFrom(10, 50, 51, '60'),
        channel: fc.constantFrom('web', 'app'),
        _photoConfirmed: fc.constantFrom(true, false, null),
        _documentType: fc.constantFrom('PASSPORT', 'ID_CARD', null),
        lastName: fc.constantFrom('', 'Doe', 'Roe'),
        a: fc.constantFrom({ b: ['x & <y>'] }, { b: 'x & <y>' }, {}),
      },
      { requiredKeys: [] },
    ),
  })
  .map(({ strings, numbers, booleans, lastError, firstName, gatewayVars }) => {
    const state: Record<string, unknown> = { instance: { processInstanceId: 'i' }, parameters: {}, vars: {}, _checks: {}, _faces: {} };
    STRING_VARS.forEach((p, i) => strings[i] !== undefined && setPath(state, p, strings[i]));
    NUMBER_VARS.forEach((p, i) => numbers[i] !== undefined && setPath(state, p, numbers[i]));
    BOOLEAN_VARS.forEach((p, i) => booleans[i] !== undefined && setPath(state, p, booleans[i]));
    if (lastError !== undefined) state._lastError = { Error: lastError, Cause: 'because' };
    // Not a session key: the decider reads it at the root, where the session has nothing, and JUEL in vars.
    if (firstName !== undefined) setPath(state, 'vars.firstName', firstName);
    Object.assign(state.vars as object, gatewayVars);
    return state;
  });

// ---- decider rules ---------------------------------------------------------------------------

/** A rule's condition; `errorEvent: {pick}` names an activity with error events once the graph is known. */
type RawCondition = Condition | { errorEventPick: number } | { all: RawCondition[] } | { any: RawCondition[] } | { not: RawCondition };

const leaf: fc.Arbitrary<RawCondition> = fc.oneof(
  fc.record({ variable: fc.constantFrom(...STRING_VARS), equals: fc.constantFrom(...STRINGS) }),
  fc.record({ variable: fc.constantFrom(...STRING_VARS), notEquals: fc.constantFrom(...STRINGS) }),
  fc.record({ variable: fc.constantFrom(...NUMBER_VARS), equals: fc.constantFrom(...NUMBERS) }),
  fc.record({ variable: fc.constantFrom(...BOOLEAN_VARS), equals: fc.boolean() }),
  fc.record({ variable: fc.constantFrom(...BOOLEAN_VARS), notEquals: fc.boolean() }),
  // Paths whose objects are always present (or absent), never null. Not `isPresent: false`: the
  // decider compiles it to `IsPresent: false`, which the local engine never takes as true (on AWS
  // it is the negation), so the engine would disagree with itself; `not` of `isPresent: true` is covered.
  fc.record({ variable: fc.constantFrom('_checks.face1', '_checks', '_lastError', 'vars.flag'), isPresent: fc.constant(true) }),
  // The root is not a session key: absent for the decider, whatever vars holds.
  fc.record({ variable: fc.constant('firstName'), equals: fc.constantFrom(...STRINGS) }),
  fc.record({ variable: fc.constant('firstName'), isPresent: fc.constant(true) }),
  fc.constant({ errorEvent: true as const }),
  fc.nat().map((pick) => ({ errorEventPick: pick })),
);
const { condition } = fc.letrec<{ condition: RawCondition }>((tie) => ({
  condition: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    leaf,
    fc.record({ all: fc.array(tie('condition'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ any: fc.array(tie('condition'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ not: tie('condition') }),
  ),
}));
const OUTCOME = fc.constantFrom('PASS' as const, 'FAIL' as const, 'REVIEW' as const);
const rules = fc.array(fc.record({ when: condition, outcome: OUTCOME }), { minLength: 1, maxLength: 4 });

function depth(c: RawCondition): number {
  if ('all' in c) return 1 + Math.max(...c.all.map(depth));
  if ('any' in c) return 1 + Math.max(...c.any.map(depth));
  if ('not' in c) return 1 + depth(c.not);
  return 1;
}

function resolveCondition(c: RawCondition, withErrors: readonly [string, string][]): Condition {
  if ('errorEventPick' in c) {
    const picked = withErrors[c.errorEventPick % Math.max(1, withErrors.length)];
    return picked ? { errorEvent: { activity: picked[0], name: picked[1] } } : { errorEvent: true };
  }
  if ('all' in c) return { all: c.all.map((x) => resolveCondition(x, withErrors)) };
  if ('any' in c) return { any: c.any.map((x) => resolveCondition(x, withErrors)) };
  if ('not' in c) return { not: resolveCondition(c.not, withErrors) };
  return c;
}

// ---- graphs ----------------------------------------------------------------------------------

const FORM = {
  title: { values: { en: 'Your details', de: 'Ihre Angaben' } },
  version: 1,
  components: [{ type: 'textfield', id: 'firstName', label: { values: { en: 'First name' } }, validate: { required: true, maxLength: 100 } }],
};

interface Template {
  type: string;
  inputs: Record<string, unknown>;
  user?: boolean;
  /** A timer is allowed (a user step without a route that takes the timeout). */
  timer?: boolean;
  errors?: string[];
}

const TEMPLATES: Template[] = [
  { type: 'ADD_USER', inputs: { 'External ID': '${externalId}', 'Store Name': 'customers', 'User Key': 'user1' }, errors: ['ExtId Not Unique', 'Failed to add the user'] },
  { type: 'GET_USER', inputs: { 'Store Name': 'customers', 'User External ID': '${externalId}' } },
  { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': 'face1' }, user: true, timer: true },
  { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': 'face2', 'Step Timeout (Seconds)': 600 }, user: true },
  { type: 'DATA_FORM', inputs: { Form: FORM, 'Form data Key': 'details' }, user: true, timer: true },
  {
    type: 'DATA_FORM',
    inputs: { 'Data form name': 'applicant-details', 'Data form version': '${formVersion}', 'Max Attempts': 3, 'Read Only': true, 'Show Retake Button': true },
    user: true,
    timer: true,
    errors: ['Retake', 'Max Attempts Exceeded'],
  },
  {
    type: 'SVC_PUSH_NOTIFICATION',
    inputs: {
      ...PUSH_INPUTS,
      // Inner white space and line breaks come back; at either end a text is trimmed, as Camunda reads it.
      Title: 'Sign-in <request> & "more"\n  second line',
      'Push Notification Parameters': { screen: 'face-capture', lang: '${lang}', empty: '' },
      'Push Notification Process Parameters': {},
      'Monitor Push Notification Process': false,
      'Push Notification Process Definition Version': '${pushVersion}',
    },
    errors: ['Other Error', 'No Destinations Available'],
  },
  { type: 'EXECUTE_CLOUD_FUNCTION_V2', inputs: { 'Function Name': 'score', 'Function Version': 2, 'Process Variables': ['${firstName}', '', 'a,b'] } },
  { type: 'WAIT_ON_PUSH_NOTIFICATION', inputs: { 'List of Screens': ['wait-init', 'wait-more'] }, user: true, errors: ['Push Notification Process Failed', 'Timeout'] },
  { type: 'EXTERNAL_SOURCE_FACE_MATCH_V1', inputs: { 'External Image Key': 'passportPhoto', 'Live Face Key': 'face1', 'Max Attempts': 3 }, errors: ['Failed face to face match', 'Exceed face match count'] },
  { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'REVIEW' } },
];

const CONDITIONS = [
  '${_photoConfirmed!=true}',
  '${execution.hasVariable("isMobile") ? isMobile : false}',
  '${(_documentType != null ? _documentType == "PASSPORT" : false) || _customUis.documentSelection.currentCapture.customPageParameters.selectedDocumentType.value == "passport"}',
  '${riskScore > 50}',
  '${_checks.face1.result == "PASS"}',
  '${a.b[0] == "x & <y>"}',
  '${not empty lastName and lastName ne "Doe"}',
];
const DURATIONS = ['PT4M30S', 'PT30M', 'P5D', 'PT10S', 'P1W', 'PT1H0M0.5S'];
const NAMES = [undefined, 'Step', 'Name with "quotes" & <angle> brackets', 'Zwei\nZeilen', 'Ünïcødé ✓'];

/** Node ids as BPMN ids are: XML names of our characters, up to 80. */
const nodeId = fc.oneof(
  { arbitrary: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,12}$/), weight: 8 },
  { arbitrary: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{75,79}$/), weight: 1 },
  { arbitrary: fc.constantFrom('StartEvent_1', 'Flow_0001', 'Event_0001', 'Timer_0002', 'Error_extIdNotUnique', 'Definitions_1'), weight: 1 },
);

interface Seed {
  ids: string[];
  size: number;
  ends: number;
  rand: number[];
  rules: { when: RawCondition; outcome: 'PASS' | 'FAIL' | 'REVIEW' }[][];
}

const graphSeed: fc.Arbitrary<Seed> = fc.record({
  ids: fc.uniqueArray(nodeId, { minLength: 40, maxLength: 40 }),
  size: fc.integer({ min: 2, max: 20 }),
  ends: fc.integer({ min: 1, max: 3 }),
  rand: fc.array(fc.nat(10_000), { minLength: 400, maxLength: 400 }),
  rules: fc.array(rules, { minLength: 2, maxLength: 2 }),
});

/** A valid graph from the seed: forward edges, back edges only to earlier user steps, the unreachable pruned. */
function buildGraph(seed: Seed): unknown {
  let r = 0;
  const rand = (n: number) => seed.rand[r++ % seed.rand.length]! % n;
  const chance = (percent: number) => rand(100) < percent;
  const n = seed.size + seed.ends;
  const ids = seed.ids.slice(0, n);
  type Kind = { t: 'activity'; template: Template } | { t: 'rules'; rules: number } | { t: 'gateway' } | { t: 'end' };
  const kinds: Kind[] = ids.map((_, i) => {
    if (i >= seed.size) return { t: 'end' };
    const k = rand(TEMPLATES.length + 10);
    if (k < TEMPLATES.length) return { t: 'activity', template: TEMPLATES[k]! };
    if (k < TEMPLATES.length + 3 && i > 0) return { t: 'rules', rules: rand(2) };
    return i > 0 ? { t: 'gateway' } : { t: 'activity', template: TEMPLATES[0]! };
  });
  // Mostly the next node, so that long graphs survive the pruning; sometimes any later one.
  const forward = (i: number) => ids[chance(60) ? i + 1 : i + 1 + rand(n - i - 1)]!;
  const userBefore = (i: number) => ids.filter((_, j) => j < i && kinds[j]!.t === 'activity' && (kinds[j] as { template: Template }).template.user);
  const target = (i: number) => {
    const back = userBefore(i);
    return back.length > 0 && chance(20) ? back[rand(back.length)]! : forward(i);
  };
  const activities: Record<string, Record<string, unknown>> = {};
  const gateways: Record<string, Record<string, unknown>> = {};
  const ends: Record<string, Record<string, unknown>> = {};
  ids.forEach((id, i) => {
    const kind = kinds[i]!;
    const name = NAMES[rand(NAMES.length)];
    if (kind.t === 'end') {
      ends[id] = { ...(name ? { name } : {}), ...(chance(40) ? { error: ['identityDeclined', 'captureTimedOut', 'x.y-z_1'][rand(3)] } : {}) };
      return;
    }
    if (kind.t === 'gateway') {
      const branches = Array.from({ length: 1 + rand(3) }, () => ({
        ...(chance(30) ? { id: chance(50) ? ids[rand(n)] : `Flow_${rand(99)}` } : {}),
        ...(chance(50) ? { name: NAMES[1 + rand(NAMES.length - 1)] } : {}),
        when: CONDITIONS[rand(CONDITIONS.length)]!,
        next: target(i),
      }));
      if (chance(20)) {
        // No default: two conditions that negate each other, both forward.
        gateways[id] = { branches: [{ when: '${channel == "web"}', next: forward(i) }, ...branches, { when: '${channel != "web"}', next: forward(i) }] };
      } else {
        gateways[id] = { ...(name ? { name } : {}), branches, default: forward(i), ...(chance(30) ? { defaultFlowId: `Flow_default${rand(9)}` } : {}) };
      }
      return;
    }
    if (kind.t === 'rules') {
      activities[id] = { type: 'SIMPLE_DECIDER', ...(name ? { name } : {}), rules: seed.rules[kind.rules], default: ['PASS', 'FAIL', 'REVIEW'][rand(3)] };
      return;
    }
    const t = kind.template;
    const activity: Record<string, unknown> = { type: t.type, ...(name ? { name } : {}), inputs: structuredClone(t.inputs) };
    if (!chance(10) || t.type === 'SIMPLE_DECIDER') activity.next = forward(i);
    if (t.type !== 'SIMPLE_DECIDER' && chance(30)) activity.outputs = { riskScore: '${_checks.face1.result}', note: 'plain text', cleared: '${null}' };
    const routes: Record<string, string> = {};
    const errorVariables: Record<string, Record<string, string>> = {};
    for (const event of t.errors ?? []) {
      if (!chance(50)) continue;
      routes[event] = target(i);
      if (chance(30)) errorVariables[event] = chance(50) ? { code: 'errorCode' } : { code: 'errorCode', message: 'errorMessage' };
    }
    if (Object.keys(routes).length > 0) activity.errorEvents = routes;
    if (Object.keys(errorVariables).length > 0) activity.errorVariables = errorVariables;
    if (t.timer && chance(40)) activity.timer = { ...(chance(50) ? { id: `Event_${rand(999)}` } : {}), duration: DURATIONS[rand(DURATIONS.length)], next: target(i) };
    activities[id] = activity;
  });

  // Keep what the start reaches.
  const start = ids[0]!;
  const out = (id: string): string[] => {
    const a = activities[id];
    if (a) return [a.next as string | undefined, ...Object.values((a.errorEvents as Record<string, string>) ?? {}), (a.timer as { next?: string } | undefined)?.next].filter((x): x is string => x !== undefined);
    const g = gateways[id];
    if (g) return [...(g.branches as { next: string }[]).map((b) => b.next), g.default as string | undefined].filter((x): x is string => x !== undefined);
    return [];
  };
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length > 0) for (const to of out(queue.shift()!)) if (!seen.has(to)) (seen.add(to), queue.push(to));
  for (const table of [activities, gateways, ends]) for (const id of Object.keys(table)) if (!seen.has(id)) delete table[id];

  // Rules name activities that remain.
  const withErrors: [string, string][] = Object.entries(activities).flatMap(([id, a]) => (activitySpec(a.type as string)?.errorEvents ?? []).map((e): [string, string] => [id, e.name]));
  for (const a of Object.values(activities)) {
    if (a.rules) a.rules = (a.rules as { when: RawCondition; outcome: string }[]).map((rule) => ({ when: resolveCondition(rule.when, withErrors), outcome: rule.outcome }));
  }
  return {
    name: 'generated journey',
    version: 7,
    description: 'Generated: <all> & "sorts"',
    retentionDays: 30,
    startActivityId: start,
    activities,
    ...(Object.keys(gateways).length > 0 ? { gateways } : {}),
    ...(Object.keys(ends).length > 0 ? { ends } : {}),
  };
}

const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../../fixtures/bpmn', name), 'utf8');

describe('definitionToBpmn', () => {
  it('writes every example so that it reads back to a definition compiling to the same state machine (its rules decider deciding the same)', async () => {
    const states = fc.sample(sessionState, { numRuns: 60, seed: 1 });
    for (const def of exampleDefinitions()) {
      const { xml, back } = await roundTrip(def);
      expectDiagram(xml);
      await expectSameMachine(def, back, states);
    }
  });

  it('writes the family dialect: bean names, typed labelled inputs, lists and maps, forms as JSON, conditions, boundary events, errors by code', async () => {
    const [identityCheck] = exampleDefinitions();
    const xml = definitionToBpmn(identityCheck!);
    expect(xml).toContain('<camunda:executionListener delegateExpression="${customDataFormV1}" event="start" />');
    expect(xml).toContain('<camunda:inputParameter name="faceKey" labelName="Face Key" type="STRING">face</camunda:inputParameter>');
    expect(xml).toContain('<camunda:inputParameter name="stepTimeoutSeconds" labelName="Step Timeout (Seconds)" type="INTEGER">${1800}</camunda:inputParameter>');
    expect(xml).toMatch(/<camunda:inputParameter name="form" labelName="Form" type="STRING">\{"title":\{"values":\{"en":"Your details"/);
    // The decider's rules: {errorEvent: true}, then _checks.face.result == "PASS", default REVIEW.
    expect(xml).toMatch(/<bpmn:exclusiveGateway id="decide" name="Decision" default="Flow_\w+">/);
    expect(xml).toContain('<bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">${execution.hasVariable("_lastError")}</bpmn:conditionExpression>');
    expect(xml).toContain('<bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">${_checks.face.result == "PASS"}</bpmn:conditionExpression>');
    expect(xml).toContain('<camunda:inputParameter name="outcome" labelName="Outcome" type="ENUM">REVIEW</camunda:inputParameter>');
    expect(xml).toContain('modeler:executionPlatform="Camunda Platform"');

    const def = validateDefinition({
      name: 'dialect',
      version: 1,
      startActivityId: 'push',
      activities: {
        push: {
          type: 'SVC_PUSH_NOTIFICATION',
          inputs: { ...PUSH_INPUTS, 'Push Notification Parameters': { screen: 'face' } },
          next: 'wait',
          errorEvents: { 'Other Error': 'declined' },
          errorVariables: { 'Other Error': { code: 'pushErrorCode', message: 'pushErrorMessage' } },
        },
        wait: { type: 'WAIT_ON_PUSH_NOTIFICATION', inputs: { 'List of Screens': ['${firstName}', 'b'] }, timer: { id: 'Event_wait', duration: 'PT4M30S', next: 'declined' }, next: 'done' },
      },
      ends: { done: { name: 'Done' }, declined: { name: 'Declined', error: 'pushDeclined' } },
    });
    const dialect = definitionToBpmn(def);
    expect(dialect).toContain('<bpmn:serviceTask id="push" camunda:delegateExpression="${svcPushNotificationV1}">');
    expect(dialect).toContain('<bpmn:serviceTask id="wait" camunda:type="external" camunda:topic="userTask">');
    expect(dialect).toMatch(/<camunda:inputParameter name="listOfScreens" labelName="List of Screens" type="LIST_STRING">\s*<camunda:list>\s*<camunda:value>\$\{firstName\}<\/camunda:value>\s*<camunda:value>b<\/camunda:value>/);
    expect(dialect).toMatch(/<camunda:inputParameter name="pushNotificationParameters" labelName="Push Notification Parameters" type="MAP_STRING">\s*<camunda:map>\s*<camunda:entry key="screen">face<\/camunda:entry>/);
    expect(dialect).toContain('type="BOOLEAN">${true}</camunda:inputParameter>');
    expect(dialect).toMatch(/<bpmn:boundaryEvent id="Event_wait" name="PT4M30S" attachedToRef="wait">/);
    expect(dialect).toContain('<bpmn:timeDuration xsi:type="bpmn:tFormalExpression">PT4M30S</bpmn:timeDuration>');
    expect(dialect).toMatch(/<bpmn:errorEventDefinition id="\w+" errorRef="Error_otherError" camunda:errorCodeVariable="pushErrorCode" camunda:errorMessageVariable="pushErrorMessage" \/>/);
    expect(dialect).toContain('<bpmn:error id="Error_otherError" name="Other Error" errorCode="otherError" />');
    expect(dialect).toContain('<bpmn:error id="Error_pushDeclined" name="pushDeclined" errorCode="pushDeclined" />');
    // The wait step's timeout is the timer's: no Step Timeout input beside it.
    expect(dialect.match(/Step Timeout/g)).toBeNull();
    const { back } = await roundTrip(def);
    expect(compile(back)).toEqual(compile(def));
  });

  it('writes the BPMN fixtures read as definitions back so that they compile the same', async () => {
    for (const name of ['onboarding.bpmn']) {
      const converted = bpmnToDefinition(await parseBpmn(fixture(name)), { name: 'fixture', version: 1 });
      if ('problems' in converted) throw new Error(JSON.stringify(converted.problems));
      const def = validateDefinition(converted.definition);
      const { xml, back } = await roundTrip(def);
      expectDiagram(xml);
      expect(compile(back)).toEqual(compile(def));
      // Ids of flows and timers the designer gave are kept.
      expect(back.gateways).toEqual(def.gateways);
      expect(back.activities.Activity_captureFace?.timer).toEqual(def.activities.Activity_captureFace?.timer);
    }
  });

  it('writes custom page steps back as the family has them: both listeners, Session Data as a map of expressions, their timers', async () => {
    const files = [
      readFileSync(join(import.meta.dirname, '../../fixtures/e2e/custom-pages.bpmn'), 'utf8').replace('${NAME_VERSION}', '${4}'),
      readFileSync(join(import.meta.dirname, '../../../statemachines/examples/welcome.bpmn'), 'utf8'),
    ];
    for (const file of files) {
      const converted = bpmnToDefinition(await parseBpmn(file), { name: 'fixture', version: 1 });
      if ('problems' in converted) throw new Error(JSON.stringify(converted.problems));
      const def = validateDefinition(converted.definition);
      const { xml, back } = await roundTrip(def);
      expect(xml).toContain('delegateExpression="${customPageV1}" event="start"');
      expect(xml).toContain('delegateExpression="${customPageEndV1}" event="end"');
      expect(compile(back)).toEqual(compile(def));
      const states = (compile(def) as { States: Record<string, { Parameters?: { Payload?: Record<string, unknown> } }> }).States;
      for (const [id, activity] of Object.entries(def.activities).filter(([, a]) => a.type === 'CUSTOM_PAGE')) {
        expect(back.activities[id]?.inputs, id).toEqual(activity.inputs);
        expect(back.activities[id]?.timer, id).toEqual(activity.timer);
        // The page is told its time: the timer's seconds go to the activity function with the step.
        expect(states[id]?.Parameters?.Payload?.timeoutSeconds, id).toBe(270);
      }
      // A user step without a timer sends none (its Step Timeout is among its inputs).
      for (const [id, activity] of Object.entries(def.activities).filter(([, a]) => a.type === 'DATA_FORM')) {
        expect(states[id]?.Parameters?.Payload, id).not.toHaveProperty('timeoutSeconds');
        expect(activity.timer, id).toBeUndefined();
      }
    }
  });

  it('writes a definition whose rules are all constant as a decider of the outcome (one transition less)', async () => {
    const def = validateDefinition({
      name: 'constant',
      version: 1,
      startActivityId: 'decide',
      activities: { decide: { type: 'SIMPLE_DECIDER', rules: [{ when: { variable: 'firstName', equals: 'Ann' }, outcome: 'FAIL' }], default: 'PASS' } },
    });
    const { back } = await roundTrip(def);
    expect(back.activities.decide).toMatchObject({ type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } });
    await expectSameMachine(def, back, [{ vars: { firstName: 'Ann' } }, {}]);
  });

  it('gives an id that is no XML name a leading _ (BPMN ids are XML ids), the one change to the state names', async () => {
    const def = validateDefinition({
      name: 'ids',
      version: 1,
      startActivityId: '1st',
      activities: { '1st': { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': 'face1' }, next: '-second' }, '-second': { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } } },
    });
    const { back } = await roundTrip(def);
    expect(Object.keys(back.activities)).toEqual(['_1st', '_-second']);
    expect(back.startActivityId).toBe('_1st');
  });

  it('writes a definition the size of the largest real ones (130 tasks, 160 gateways) and reads it back, each in well under two seconds (on a shared machine; about 0.2 s once warm)', async () => {
    const def = validateDefinition(largeDefinition(130, 160));
    let t = performance.now();
    const xml = definitionToBpmn(def);
    const written = performance.now() - t;
    t = performance.now();
    const graph = await parseBpmn(xml);
    const converted = bpmnToDefinition(graph, { name: def.name, version: def.version });
    const read = performance.now() - t;
    console.log(`large definition as BPMN: ${xml.length} characters, written in ${written.toFixed(0)} ms, read back in ${read.toFixed(0)} ms`);
    expect(graph.problems).toEqual([]);
    if ('problems' in converted) throw new Error(JSON.stringify(converted.problems));
    expect(compile(validateDefinition(converted.definition))).toEqual(compile(def));
    expectDiagram(xml);
    // The service's own limit for an uploaded BPMN is 1 MB.
    expect(xml.length).toBeLessThan(1024 * 1024);
    expect(written).toBeLessThan(2000);
    expect(read).toBeLessThan(2000);
  });

  it('reads back generated graphs to definitions that compile to the same state machine (property)', async () => {
    const states = fc.sample(sessionState, { numRuns: 12, seed: 2 });
    let withRules = 0;
    let withGateways = 0;
    const sizes: number[] = [];
    let withTimers = 0;
    let withErrorVariables = 0;
    await fc.assert(
      fc.asyncProperty(graphSeed, async (seed) => {
        fc.pre(seed.rules.every((rs) => rs.every((rule) => depth(rule.when) <= 5)));
        const def = validateDefinition(buildGraph(seed));
        if (Object.values(def.activities).some((a) => a.rules)) withRules++;
        if (def.gateways) withGateways++;
        if (Object.values(def.activities).some((a) => a.timer)) withTimers++;
        if (Object.values(def.activities).some((a) => a.errorVariables)) withErrorVariables++;
        sizes.push(Object.keys(def.activities).length + Object.keys(def.gateways ?? {}).length);
        const { xml, back } = await roundTrip(def);
        expectDiagram(xml);
        await expectSameMachine(def, back, states);
      }),
      { numRuns: 200 },
    );
    // The property is about graphs with gateways and rules deciders, not only lines.
    console.log(`round trip: ${sizes.length} graphs, ${withGateways} with gateways, ${withRules} with rules deciders, ${withTimers} with timers, ${withErrorVariables} with error variables, nodes ${Math.min(...sizes)}..${Math.max(...sizes)}`);
    expect(withGateways).toBeGreaterThan(60);
    expect(withRules).toBeGreaterThan(50);
    expect(withTimers).toBeGreaterThan(30);
    expect(withErrorVariables).toBeGreaterThan(10);
  }, 120_000);
});

describe('juel', () => {
  const def = validateDefinition({
    name: 'j',
    version: 1,
    startActivityId: 'add',
    activities: {
      add: { type: 'ADD_USER', inputs: { 'External ID': '${externalId}', 'Store Name': 'customers' }, next: 'decide', errorEvents: { 'ExtId Not Unique': 'decide' } },
      decide: { type: 'SIMPLE_DECIDER', rules: [{ when: { errorEvent: true }, outcome: 'FAIL' }], default: 'PASS' },
    },
  });

  it('writes each decider condition as the designer would', () => {
    expect(juel({ variable: '_checks.face.result', equals: 'PASS' }, def)).toBe('_checks.face.result == "PASS"');
    expect(juel({ variable: 'vars.score', notEquals: 5 }, def)).toBe('vars.score != 5');
    expect(juel({ variable: 'vars.flag', equals: true }, def)).toBe('vars.flag == true');
    expect(juel({ variable: '_checks', isPresent: true }, def)).toBe('execution.hasVariable("_checks")');
    expect(juel({ variable: '_checks.face', isPresent: false }, def)).toBe('!(_checks.face != null)');
    expect(juel({ errorEvent: true }, def)).toBe('execution.hasVariable("_lastError")');
    expect(juel({ errorEvent: { activity: 'add', name: 'ExtId Not Unique' } }, def)).toBe('_lastError.Error == "ExtIdNotUnique"');
    expect(
      juel({ all: [{ variable: '_checks.a.result', equals: 'PASS' }, { not: { any: [{ errorEvent: true }, { variable: 'vars.x', equals: 1 }] } }] }, def),
    ).toBe('(_checks.a.result == "PASS") && (!((execution.hasVariable("_lastError")) || (vars.x == 1)))');
  });

  it('quotes strings and JUEL words so that the text parses back to the same condition', () => {
    const text = juel({ variable: '_checks.empty.not', equals: 'say "hi" \\ bye' }, def);
    expect(text).toBe('_checks["empty"]["not"] == "say \\"hi\\" \\\\ bye"');
    expect(parseCondition(`\${${text as string}}`)).toEqual({
      kind: 'compare',
      op: '==',
      left: { kind: 'variable', segments: ['_checks', 'empty', 'not'] },
      right: { kind: 'literal', value: 'say "hi" \\ bye' },
    });
  });

  it('folds conditions on names that are not session keys, which the decider reads at the root, where nothing is', () => {
    expect(juel({ variable: 'firstName', equals: 'Ann' }, def)).toBe(false);
    expect(juel({ variable: 'firstName', notEquals: 'Ann' }, def)).toBe(true);
    expect(juel({ variable: 'firstName.x', isPresent: false }, def)).toBe(true);
    expect(juel({ all: [{ variable: 'firstName', notEquals: 'Ann' }, { variable: 'vars.a', equals: 'b' }] }, def)).toBe('vars.a == "b"');
    expect(juel({ any: [{ variable: 'firstName', notEquals: 'Ann' }, { variable: 'vars.a', equals: 'b' }] }, def)).toBe(true);
    expect(juel({ not: { variable: 'firstName', equals: 'Ann' } }, def)).toBe(true);
  });
});

