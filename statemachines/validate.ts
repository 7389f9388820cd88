/**
 * `validateDefinition`: the JSON shape (zod) first, then every rule of the activity catalogue,
 * then the flow graph. Every problem found is reported at once, as `ValidationError` details
 * whose location names the field (`activities.<activityId>.inputs.<Input Name>`) and whose
 * message names the activity and the input, so a 400 tells the author exactly what to fix.
 */
import type * as z4 from 'zod/v4/core';
import { ValidationError, type ErrorDetail } from '../functions/errors.js';
import {
  DataFormSchema,
  ProcessDefinitionSchema,
  type Activity,
  type Condition,
  type InputValue,
  type ProcessDefinition,
} from './definition.js';
import { ACTIVITY_TYPES, activitySpec, type ActivitySpec, type InputSpec, type InputRule } from './catalogue.js';
import { isExpression, literalValue, referencePath } from './references.js';

const MAX_DETAILS = 100;
const MAX_STRING = 2000;
const MAX_LIST_ITEMS = 100;
const MAX_MAP_ENTRIES = 100;
const MAX_CONDITION_DEPTH = 5;

type RawDefinition = z4.output<typeof ProcessDefinitionSchema>;
type RawActivity = RawDefinition['activities'][string];

/** Validates a process definition and returns it with the catalogue's defaults filled in. */
export function validateDefinition(input: unknown): ProcessDefinition {
  const parsed = ProcessDefinitionSchema.safeParse(input);
  if (!parsed.success) throw invalid(zodDetails(parsed.error.issues, []));
  const raw = parsed.data;

  const problems: ErrorDetail[] = [];
  const activities: Record<string, Activity> = {};
  for (const [id, activity] of Object.entries(raw.activities)) {
    activities[id] = checkActivity(id, activity, raw.activities, problems);
  }
  checkGraph(raw.startActivityId, activities, problems);
  if (problems.length > 0) throw invalid(problems);

  return {
    name: raw.name,
    version: raw.version,
    description: raw.description,
    retentionDays: raw.retentionDays,
    startActivityId: raw.startActivityId,
    activities,
  };
}

function invalid(details: ErrorDetail[]): ValidationError {
  const first = details[0];
  const more = details.length > 1 ? ` (${details.length - 1} more problem${details.length > 2 ? 's' : ''} in details)` : '';
  const summary = first ? ` ${first.location}: ${first.message}${more}` : '';
  return new ValidationError(`The process definition is not valid.${summary}`, details.slice(0, MAX_DETAILS));
}

function joinPath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

function zodDetails(issues: readonly z4.$ZodIssue[], prefix: readonly PropertyKey[]): ErrorDetail[] {
  return issues.map((issue) => {
    let message = issue.message;
    if (issue.code === 'invalid_key' && issue.issues[0]) message = `key ${issue.issues[0].message}`;
    if (issue.code === 'unrecognized_keys') message = `unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`;
    const location = joinPath([...prefix, ...issue.path]) || 'definition';
    return { location, message };
  });
}

// ---------------------------------------------------------------------------------------------
// One activity

function label(id: string, spec: ActivitySpec | undefined): string {
  return spec ? `activity "${id}" (${spec.displayName})` : `activity "${id}"`;
}

function checkActivity(
  id: string,
  activity: RawActivity,
  all: Record<string, RawActivity>,
  problems: ErrorDetail[],
): Activity {
  const at = `activities.${id}`;
  const spec = activitySpec(activity.type);
  const who = label(id, spec);
  const given = activity.inputs ?? {};
  const base: Activity = { type: activity.type, ...(activity.name === undefined ? {} : { name: activity.name }), inputs: {} };

  if (!spec) {
    problems.push({
      location: `${at}.type`,
      message: `${who}: unknown activity type "${activity.type}"; known types: ${ACTIVITY_TYPES.join(', ')}`,
    });
    return { ...base, inputs: given as Record<string, InputValue>, ...edges(activity) };
  }

  if (spec.kind === 'decider') {
    for (const name of Object.keys(given)) {
      problems.push({ location: `${at}.inputs.${name}`, message: `${who}: has no inputs; unknown input "${name}"` });
    }
    if (activity.next !== undefined) {
      problems.push({
        location: `${at}.next`,
        message: `${who}: a Simple Decider ends the journey with its decision, so it has no next activity`,
      });
    }
    if (activity.errorEvents && Object.keys(activity.errorEvents).length > 0) {
      problems.push({ location: `${at}.errorEvents`, message: `${who}: has no error events` });
    }
    if (!activity.rules) problems.push({ location: `${at}.rules`, message: `${who}: needs rules (at least one)` });
    if (!activity.default) {
      problems.push({ location: `${at}.default`, message: `${who}: needs a default outcome (PASS, FAIL or REVIEW)` });
    }
    activity.rules?.forEach((rule, i) => checkCondition(rule.when, `${at}.rules.${i}.when`, who, all, problems, 1));
    return {
      ...base,
      ...(activity.rules ? { rules: activity.rules } : {}),
      ...(activity.default ? { default: activity.default } : {}),
    };
  }

  for (const field of ['rules', 'default'] as const) {
    if (activity[field] !== undefined) {
      problems.push({ location: `${at}.${field}`, message: `${who}: only a Simple Decider has ${field}` });
    }
  }

  // Inputs: known names, right types, bounds; then defaults; then required.
  const values = new Map<string, InputValue>();
  for (const [name, value] of Object.entries(given)) {
    const input = spec.inputs.find((i) => i.name === name);
    const location = `${at}.inputs.${name}`;
    if (!input) {
      problems.push({
        location,
        message: `${who}: unknown input "${name}"; its inputs are: ${spec.inputs.map((i) => `"${i.name}"`).join(', ') || 'none'}`,
      });
      continue;
    }
    const checked = checkInput(input, value, location, `${who}: input "${name}"`, problems);
    if (checked !== undefined) values.set(name, checked);
  }
  const inputs: Record<string, InputValue> = {};
  for (const input of spec.inputs) {
    const value = values.get(input.name) ?? (given[input.name] === undefined ? (input.default as InputValue | undefined) : undefined);
    if (value !== undefined) inputs[input.name] = value;
    else if (input.required && given[input.name] === undefined) {
      problems.push({
        location: `${at}.inputs.${input.name}`,
        message: `${who}: required input "${input.name}" is missing`,
      });
    }
  }
  for (const rule of spec.rules) checkRule(rule, inputs, at, who, problems);

  // Error events: only those of this activity type.
  for (const event of Object.keys(activity.errorEvents ?? {})) {
    if (!spec.errorEvents.some((e) => e.name === event)) {
      const known = spec.errorEvents.map((e) => `"${e.name}"`).join(', ');
      problems.push({
        location: `${at}.errorEvents.${event}`,
        message: `${who}: unknown error event "${event}"; ${known ? `its error events are: ${known}` : 'it has no error events'}`,
      });
    }
  }

  return { ...base, inputs, ...edges(activity) };
}

function edges(activity: RawActivity): Pick<Activity, 'next' | 'errorEvents'> {
  return {
    ...(activity.next === undefined ? {} : { next: activity.next }),
    ...(activity.errorEvents && Object.keys(activity.errorEvents).length > 0 ? { errorEvents: activity.errorEvents } : {}),
  };
}

const TYPE_NAMES: Record<InputSpec['type'], string> = {
  S: 'a string',
  I: 'an integer',
  B: 'a boolean',
  L: 'a list of strings',
  M: 'a map of string to string',
  F: 'a data form object',
};

/** The value to keep, or undefined after recording a problem. */
function checkInput(
  input: InputSpec,
  value: unknown,
  location: string,
  who: string,
  problems: ErrorDetail[],
): InputValue | undefined {
  const fail = (message: string): undefined => {
    problems.push({ location, message: `${who} ${message}` });
    return undefined;
  };
  const wrongType = () => fail(`must be ${TYPE_NAMES[input.type]} (type ${input.type})`);

  // `${...}`: a literal (`${60}`) becomes its value; a reference stays, to be resolved at run time.
  if (typeof value === 'string' && isExpression(value) && input.type !== 'F') {
    const literal = literalValue(value);
    if (literal !== undefined) {
      value = input.type === 'S' ? String(literal) : literal;
    } else if (referencePath(value) === undefined) {
      return fail(`is not a valid reference: write \${name} or \${a.b.c} with letters, digits, _ or -`);
    } else if (input.references === false) {
      return fail('must be a literal value, not a reference (it is needed when the definition is compiled)');
    } else if (input.type !== 'S') {
      return value as string; // the type is checked when the reference is resolved
    }
  }

  switch (input.type) {
    case 'S': {
      if (typeof value !== 'string') return wrongType();
      if ([...value].length > MAX_STRING) return fail(`must be at most ${MAX_STRING} characters`);
      if (input.pattern && !new RegExp(input.pattern).test(value)) return fail(input.patternMessage ?? `must match ${input.pattern}`);
      if (input.enum && !input.enum.includes(value)) return fail(`must be one of ${input.enum.join(', ')}`);
      return value;
    }
    case 'I': {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return wrongType();
      if (input.min !== undefined && value < input.min) return fail(`must be at least ${input.min}`);
      if (input.max !== undefined && value > input.max) return fail(`must be at most ${input.max}`);
      return value;
    }
    case 'B':
      return typeof value === 'boolean' ? value : wrongType();
    case 'L': {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return wrongType();
      if (value.length > MAX_LIST_ITEMS) return fail(`must have at most ${MAX_LIST_ITEMS} items`);
      if (value.some((v) => [...v].length > MAX_STRING)) return fail(`items must be at most ${MAX_STRING} characters`);
      return value as string[];
    }
    case 'M': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return wrongType();
      const entries = Object.entries(value);
      if (!entries.every(([, v]) => typeof v === 'string')) return wrongType();
      if (entries.length > MAX_MAP_ENTRIES) return fail(`must have at most ${MAX_MAP_ENTRIES} entries`);
      for (const [k, v] of entries) {
        if (k.length === 0 || k.length > 100) return fail('keys must be 1 to 100 characters');
        // Step Functions reads a Parameters key ending in ".$" as a path into the state.
        if (k.endsWith('.$')) return fail(`key "${k}" must not end with ".$"`);
        if ([...(v as string)].length > MAX_STRING) return fail(`values must be at most ${MAX_STRING} characters`);
      }
      return value as Record<string, string>;
    }
    case 'F': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return wrongType();
      const form = DataFormSchema.safeParse(value);
      if (form.success) return form.data;
      for (const detail of zodDetails(form.error.issues, [])) {
        problems.push({
          location: detail.location === 'definition' ? location : `${location}.${detail.location}`,
          message: `${who}: ${detail.location === 'definition' ? '' : `${detail.location} `}${detail.message}`,
        });
      }
      return undefined;
    }
  }
}

function quoteGroup(group: readonly string[]): string {
  return group.map((n) => `"${n}"`).join(' and ');
}

function checkRule(
  rule: InputRule,
  inputs: Record<string, InputValue>,
  at: string,
  who: string,
  problems: ErrorDetail[],
): void {
  const has = (name: string) => inputs[name] !== undefined;
  if (rule.kind === 'requires') {
    if (has(rule.input) && !has(rule.requires)) {
      problems.push({
        location: `${at}.inputs.${rule.requires}`,
        message: `${who}: input "${rule.requires}" is required when "${rule.input}" is given`,
      });
    }
    return;
  }
  const alternatives = rule.groups.map(quoteGroup).join(', or ');
  const given = rule.groups.filter((g) => g.some(has));
  const first = rule.groups[0]?.[0] ?? '';
  if (given.length < rule.min) {
    problems.push({
      location: `${at}.inputs.${first}`,
      message: `${who}: give ${rule.groups.length > 2 ? 'one of' : 'either'} ${alternatives}; none is given`,
    });
    return;
  }
  if (given.length > rule.max) {
    const second = given[1]?.find(has) ?? first;
    problems.push({
      location: `${at}.inputs.${second}`,
      message: `${who}: give ${rule.min === 0 ? 'at most one of' : rule.groups.length > 2 ? 'only one of' : 'either'} ${alternatives}, not ${rule.groups.length > 2 ? 'more than one' : 'both'}`,
    });
    return;
  }
  for (const group of given) {
    for (const name of group.filter((n) => !has(n))) {
      const present = group.filter(has).map((n) => `"${n}"`).join(' and ');
      problems.push({
        location: `${at}.inputs.${name}`,
        message: `${who}: input "${name}" is required with ${present}`,
      });
    }
  }
}

function checkCondition(
  condition: Condition,
  location: string,
  who: string,
  all: Record<string, RawActivity>,
  problems: ErrorDetail[],
  depth: number,
): void {
  if (depth > MAX_CONDITION_DEPTH) {
    problems.push({ location, message: `${who}: conditions nest at most ${MAX_CONDITION_DEPTH} deep` });
    return;
  }
  if ('all' in condition) {
    condition.all.forEach((c, i) => checkCondition(c, `${location}.all.${i}`, who, all, problems, depth + 1));
  } else if ('any' in condition) {
    condition.any.forEach((c, i) => checkCondition(c, `${location}.any.${i}`, who, all, problems, depth + 1));
  } else if ('not' in condition) {
    checkCondition(condition.not, `${location}.not`, who, all, problems, depth + 1);
  } else if ('errorEvent' in condition && condition.errorEvent !== true) {
    const { activity, name } = condition.errorEvent;
    const target = all[activity];
    const spec = target ? activitySpec(target.type) : undefined;
    if (!target) {
      problems.push({
        location: `${location}.errorEvent.activity`,
        message: `${who}: error event condition names activity "${activity}", which does not exist`,
      });
    } else if (spec && !spec.errorEvents.some((e) => e.name === name)) {
      const known = spec.errorEvents.map((e) => `"${e.name}"`).join(', ');
      problems.push({
        location: `${location}.errorEvent.name`,
        message: `${who}: ${label(activity, spec)} has no error event "${name}"${known ? `; its error events are: ${known}` : ''}`,
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The flow graph

interface Edge {
  to: string;
  /** Where the edge is written: `next` or `errorEvents.<name>`. */
  field: string;
}

function outEdges(activity: Activity): Edge[] {
  const out: Edge[] = [];
  if (activity.next !== undefined) out.push({ to: activity.next, field: 'next' });
  for (const [event, to] of Object.entries(activity.errorEvents ?? {})) out.push({ to, field: `errorEvents.${event}` });
  return out;
}

function isEnd(activity: Activity): boolean {
  return activity.next === undefined;
}

function checkGraph(start: string, activities: Record<string, Activity>, problems: ErrorDetail[]): void {
  const ids = Object.keys(activities);
  let dangling = false;
  if (!activities[start]) {
    dangling = true;
    problems.push({ location: 'startActivityId', message: `start activity "${start}" does not exist` });
  }
  for (const id of ids) {
    for (const edge of outEdges(activities[id]!)) {
      if (!activities[edge.to]) {
        dangling = true;
        const what = edge.field === 'next' ? 'next activity' : `target of error event "${edge.field.slice('errorEvents.'.length)}"`;
        problems.push({
          location: `activities.${id}.${edge.field}`,
          message: `${label(id, activitySpec(activities[id]!.type))}: ${what} "${edge.to}" does not exist`,
        });
      }
    }
  }
  // The checks below read the graph whole; with a missing target they would only add noise.
  if (dangling) return;

  const successors = (id: string) => outEdges(activities[id]!).map((e) => e.to);

  // Reachable from the start.
  const reached = new Set<string>([start]);
  const queue = [start];
  while (queue.length > 0) {
    for (const to of successors(queue.shift()!)) {
      if (!reached.has(to)) {
        reached.add(to);
        queue.push(to);
      }
    }
  }
  for (const id of ids) {
    if (!reached.has(id)) {
      problems.push({
        location: `activities.${id}`,
        message: `${label(id, activitySpec(activities[id]!.type))}: not reachable from the start activity "${start}"`,
      });
    }
  }

  // Every reachable activity can still reach an end (no trap the journey cannot leave).
  const predecessors = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const id of ids) for (const to of successors(id)) predecessors.get(to)!.push(id);
  const canEnd = new Set(ids.filter((id) => isEnd(activities[id]!)));
  const back = [...canEnd];
  while (back.length > 0) {
    for (const from of predecessors.get(back.shift()!) ?? []) {
      if (!canEnd.has(from)) {
        canEnd.add(from);
        back.push(from);
      }
    }
  }
  for (const id of ids) {
    if (reached.has(id) && !canEnd.has(id)) {
      problems.push({
        location: `activities.${id}`,
        message: `${label(id, activitySpec(activities[id]!.type))}: no path from here reaches an end (an activity without next, or a Simple Decider)`,
      });
    }
  }

  // A loop of service steps only would run without end (and bill every transition); a user
  // step in the loop waits for a person, which bounds it.
  const isService = (id: string) => activitySpec(activities[id]!.type)?.kind === 'service';
  const serviceIds = ids.filter(isService);
  for (const component of stronglyConnected(serviceIds, (id) => successors(id).filter(isService))) {
    const members = new Set(component);
    const first = ids.find((id) => members.has(id))!;
    const selfLoop = successors(first).includes(first);
    if (component.length < 2 && !selfLoop) continue;
    const cycle = findCycle(first, (id) => successors(id).filter((to) => members.has(to)));
    const edge = outEdges(activities[first]!).find((e) => e.to === cycle[1])!;
    problems.push({
      location: `activities.${first}.${edge.field}`,
      message: `${label(first, activitySpec(activities[first]!.type))}: activities ${cycle.map((c) => `"${c}"`).join(' → ')} form a loop with no user step, which would run without end`,
    });
  }
}

/** Tarjan's algorithm: the strongly connected components of the graph on `nodes`. */
function stronglyConnected(nodes: string[], next: (id: string) => string[]): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      out.push(component);
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return out;
}

/** A shortest cycle through `start` (start, ..., start), by breadth-first search. */
function findCycle(start: string, next: (id: string) => string[]): string[] {
  const parent = new Map<string, string>();
  const queue = [start];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of next(v)) {
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(parent.get(path[0]!)!);
        return [...path, start];
      }
      if (!seen.has(w)) {
        seen.add(w);
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}
