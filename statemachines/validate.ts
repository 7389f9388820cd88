/**
 * `validateDefinition`: the JSON shape (zod) first, then every rule of the activity catalogue,
 * then the flow graph. Every problem found is reported at once, as `ValidationError` details
 * whose location names the field (`activities.<activityId>.inputs.<Input Name>`) and whose
 * message names the activity and the input, so a 400 tells the author exactly what to fix.
 */
import type * as z4 from 'zod/v4/core';
import { detailsWithin, ValidationError, type ErrorDetail } from '../functions/errors.js';
import {
  DataFormSchema,
  OUTCOMES,
  ProcessDefinitionSchema,
  type Activity,
  type Condition,
  type End,
  type Gateway,
  type InputValue,
  type ProcessDefinition,
  type Timer,
} from './definition.js';
import {
  ACTIVITY_TYPES,
  activitySpec,
  STEP_TIMEOUT_INPUT,
  STEP_TIMEOUT_MAX,
  type ActivitySpec,
  type InputSpec,
  type InputRule,
} from './catalogue.js';
import { isExpression, literalValue, referencePath } from './references.js';
import { ConditionError, parseCondition, print, toChoiceRule, type ChoiceRule, type Expr } from './conditions/index.js';
import { isoDurationSeconds } from './bpmn/duration.js';
import { SESSION_KEYS, variablePath } from './variables.js';
import { parseTemplate } from './templates.js';
import { own } from '../functions/shared/own.js';
import { INPUT_CHECKS } from '../functions/shared/input-checks.js';

/** How much of the first problem the message repeats (the details have every problem, whole). */
const SUMMARY_CHARS = 500;
const MAX_STRING = 2000;
const MAX_LIST_ITEMS = 100;
const MAX_MAP_ENTRIES = 100;
const MAX_CONDITION_DEPTH = 5;
/** The shortest timer: a boundary event that fires before a page can load helps nobody. */
const TIMER_MIN_SECONDS = 10;

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
  livenessChecked(raw.activities, activities, problems);
  const gateways = raw.gateways ?? {};
  const ends = raw.ends ?? {};
  for (const [id, gateway] of Object.entries(gateways)) checkGateway(id, gateway, problems);
  checkGraph(raw.startActivityId, { activities, gateways, ends }, problems);
  if (problems.length > 0) throw invalid(problems);

  return {
    name: raw.name,
    version: raw.version,
    description: raw.description,
    retentionDays: raw.retentionDays,
    ...(raw.presentation ? { presentation: raw.presentation } : {}),
    startActivityId: raw.startActivityId,
    activities,
    ...(Object.keys(gateways).length > 0 ? { gateways } : {}),
    ...(Object.keys(ends).length > 0 ? { ends } : {}),
  };
}

/**
 * A refusal's message: its title, the first problem (at most SUMMARY_CHARS of it) and how many
 * more the details list, so that a client can tell it has them all (`(224 more problems in
 * details)` comes with 225 details).
 */
export function problemsMessage(title: string, details: readonly ErrorDetail[]): string {
  const first = details[0];
  if (!first) return title;
  const more = details.length > 1 ? ` (${details.length - 1} more problem${details.length > 2 ? 's' : ''} in details)` : '';
  const text = `${first.location}: ${first.message}`;
  return `${title} ${text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS)}…` : text}${more}`;
}

function invalid(details: ErrorDetail[]): ValidationError {
  return new ValidationError(problemsMessage('The process definition is not valid.', details), detailsWithin(details));
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
// Liveness across steps

/**
 * A Face Liveness step judges an active challenge (docs/faces.md, "Face Liveness"), not the
 * passive single-image score: a Capture Face Image step whose Face Key a Face Liveness step
 * judges takes the challenge when it names no Liveness Check (the family's files never do), and
 * is refused when it says PASSIVE. Face Keys given as expressions cannot be told apart at publish
 * and are left as they are.
 */
function livenessChecked(raw: Record<string, RawActivity>, activities: Record<string, Activity>, problems: ErrorDetail[]): void {
  const plainKey = (a: Activity | undefined) => {
    const key = a?.inputs['Face Key'];
    return typeof key === 'string' && !isExpression(key) ? key : undefined;
  };
  const judged = new Map<string, string>();
  for (const [id, a] of Object.entries(activities)) {
    const key = a.type === 'CHECK_FACE_LIVENESS' ? plainKey(a) : undefined;
    if (key !== undefined && !judged.has(key)) judged.set(key, id);
  }
  for (const [id, a] of Object.entries(activities)) {
    const key = a.type === 'CAPTURE_FACE_IMAGE' ? plainKey(a) : undefined;
    const by = key === undefined ? undefined : judged.get(key);
    if (by === undefined) continue;
    const given = raw[id]?.inputs?.['Liveness Check'];
    if (given === undefined) a.inputs['Liveness Check'] = 'ACTIVE';
    else if (given === 'PASSIVE') {
      problems.push({
        location: `activities.${id}.inputs.Liveness Check`,
        message: `activity "${id}" (Capture Face Image): Liveness Check is PASSIVE, but activity "${by}" (Face Liveness) judges Face Key "${key}", and it judges an active challenge; say ACTIVE, or leave Liveness Check out to take it`,
      });
    }
  }
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

  if (spec.kind === 'decider') return checkDecider(id, activity, all, base, problems);

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
    // The input's own check of a literal (a reference is checked by its module when it runs).
    const refused = checked !== undefined && input.check && !(typeof checked === 'string' && isExpression(checked)) ? INPUT_CHECKS[input.check](checked) : undefined;
    if (refused) problems.push({ location, message: `${who}: input "${name}" ${refused}` });
    else if (checked !== undefined) values.set(name, checked);
  }
  const inputs: Record<string, InputValue> = {};
  for (const input of spec.inputs) {
    // A timer sets the step's timeout: the Step Timeout input gets no default beside it.
    if (activity.timer && input.name === STEP_TIMEOUT_INPUT && given[input.name] === undefined) continue;
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

  // A check no engine here can judge: refused unless the definition accepts it as not assessed
  // (or bypasses it with a threshold of -1): never a silent pass.
  if (spec.notAssessed && inputs[spec.notAssessed.accept] !== true && inputs[spec.notAssessed.threshold] !== -1) {
    problems.push({
      location: `${at}.inputs.${spec.notAssessed.accept}`,
      message: `${who}: no document engine of this service can judge this check; set "${spec.notAssessed.accept}" to true to run it as NOT_ASSESSED (the decider counts it as a failure), or "${spec.notAssessed.threshold}" to -1 to bypass it`,
    });
  }

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

  // Two routed events that catch one error (the family's Failed Sync Rule Execution and Function
  // Error): the first Catch would take it, so the second route could never be taken.
  const caught = new Map<string, string>();
  for (const event of spec.errorEvents) {
    if (own(activity.errorEvents, event.name) === undefined) continue;
    for (const error of [event.aslError, ...(event.alsoCatches ?? [])]) {
      const first = caught.get(error);
      if (first !== undefined && first !== event.name) {
        problems.push({ location: `${at}.errorEvents.${event.name}`, message: `${who}: the "${event.name}" and "${first}" routes both catch ${error}; route one of them` });
        break;
      }
      caught.set(error, event.name);
    }
  }

  for (const [event, vars] of Object.entries(activity.errorVariables ?? {})) {
    const location = `${at}.errorVariables.${event}`;
    if (own(activity.errorEvents, event) === undefined) {
      problems.push({ location, message: `${who}: error variables for "${event}", which is not one of its routed error events` });
    }
    for (const name of [vars.code, vars.message]) {
      if (name !== undefined && (SESSION_KEYS as readonly string[]).includes(name)) {
        problems.push({ location, message: `${who}: "${name}" is a session key, not a process variable` });
      }
    }
  }
  const timer = activity.timer ? checkTimer(activity, spec, at, who, problems) : undefined;
  if (activity.outputs) checkOutputs(activity.outputs, at, who, problems);

  return { ...base, inputs, ...edges(activity), ...(timer ? { timer } : {}) };
}

/**
 * A decider with rules ends the journey with the first outcome that holds (our JSON format). A
 * decider with the `Outcome` input records that outcome and the flow goes on (a graph, where
 * the gateways before it did the routing).
 */
function checkDecider(id: string, activity: RawActivity, all: Record<string, RawActivity>, base: Activity, problems: ErrorDetail[]): Activity {
  const at = `activities.${id}`;
  const who = label(id, activitySpec(activity.type));
  const given = activity.inputs ?? {};
  const outcome = given.Outcome;
  for (const name of Object.keys(given)) {
    if (!DECIDER_INPUTS.includes(name)) problems.push({ location: `${at}.inputs.${name}`, message: `${who}: unknown input "${name}"; its inputs are ${DECIDER_INPUTS.map((n) => `"${n}"`).join(', ')}` });
  }
  if (activity.errorEvents && Object.keys(activity.errorEvents).length > 0) {
    problems.push({ location: `${at}.errorEvents`, message: `${who}: has no error events` });
  }
  if (activity.timer !== undefined) problems.push({ location: `${at}.timer`, message: `${who}: a decider has no timer` });
  if (given[ON_FAILURE] !== undefined || given[DERIVE] !== undefined) return checkFamilyDecider(id, activity, base, problems);
  if (activity.outputs !== undefined) problems.push({ location: `${at}.outputs`, message: `${who}: a decider has no outputs` });
  if (outcome !== undefined) {
    if (typeof outcome !== 'string' || !(OUTCOMES as readonly string[]).includes(outcome)) {
      problems.push({ location: `${at}.inputs.Outcome`, message: `${who}: input "Outcome" must be one of ${OUTCOMES.join(', ')}` });
    }
    for (const field of ['rules', 'default'] as const) {
      if (activity[field] !== undefined) {
        problems.push({ location: `${at}.${field}`, message: `${who}: give either an Outcome or rules and a default, not both` });
      }
    }
    return { ...base, inputs: { Outcome: outcome as string }, ...edges(activity) };
  }
  if (activity.next !== undefined) {
    problems.push({
      location: `${at}.next`,
      message: `${who}: a Simple Decider with rules ends the journey with its decision, so it has no next node (a decider with an Outcome input has one)`,
    });
  }
  if (!activity.rules) problems.push({ location: `${at}.rules`, message: `${who}: needs rules (at least one), or an Outcome input` });
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

const ON_FAILURE = 'Decision on Any Failure';
const DERIVE = 'Derive Decision From';
const DECIDER_INPUTS = ['Outcome', ON_FAILURE, DERIVE];

/**
 * The family's decider (`activityOutcomeDeciderV1` with Decision on Any Failure and Derive
 * Decision From): decides when it runs, records `_decision` and goes on to its next node
 * (compile.ts). Its designer adds the output `_decision` = `${decision}`, which is what the
 * decider does itself: that output is taken and dropped; any other output is refused.
 */
function checkFamilyDecider(id: string, activity: RawActivity, base: Activity, problems: ErrorDetail[]): Activity {
  const at = `activities.${id}`;
  const who = label(id, activitySpec(activity.type));
  const given = activity.inputs ?? {};
  const inputs: Record<string, string> = {};
  const onFailure = given[ON_FAILURE];
  if (onFailure !== undefined) {
    const choice = typeof onFailure === 'string' ? OUTCOMES.find((o) => o === onFailure.toUpperCase()) : undefined;
    if (choice === undefined) problems.push({ location: `${at}.inputs.${ON_FAILURE}`, message: `${who}: input "${ON_FAILURE}" must be one of ${OUTCOMES.join(', ')}` });
    else inputs[ON_FAILURE] = choice;
  }
  const derive = given[DERIVE];
  if (derive !== undefined) {
    const literal = typeof derive === 'string' ? OUTCOMES.find((o) => o === derive.toUpperCase()) : undefined;
    if (typeof derive !== 'string' || (literal === undefined && referencePath(derive) === undefined)) {
      problems.push({ location: `${at}.inputs.${DERIVE}`, message: `${who}: input "${DERIVE}" must be a reference such as \${idv.overallDecision}, or PASS, FAIL or REVIEW` });
    } else {
      inputs[DERIVE] = literal ?? derive;
    }
  }
  if (given.Outcome !== undefined) problems.push({ location: `${at}.inputs.Outcome`, message: `${who}: give either an Outcome or the family's ${ON_FAILURE} / ${DERIVE}, not both` });
  for (const field of ['rules', 'default'] as const) {
    if (activity[field] !== undefined) problems.push({ location: `${at}.${field}`, message: `${who}: the family's decider has no ${field}` });
  }
  for (const [name, expression] of Object.entries(activity.outputs ?? {})) {
    if (name !== '_decision' || expression.replace(/\s+/g, '') !== '${decision}') {
      problems.push({ location: `${at}.outputs.${name}`, message: `${who}: a decider's only output is _decision = \${decision}, which it records itself` });
    }
  }
  if (activity.next === undefined) problems.push({ location: `${at}.next`, message: `${who}: the family's decider goes on to a next node (usually an end event)` });
  const { outputs: _dropped, ...edgesOf } = edges(activity);
  return { ...base, inputs, ...edgesOf };
}

/**
 * A timer boundary event, on a user step (its duration becomes the step's timeout) or on a
 * service step (the family's `PT10M30S` on a cloud function: its timeout, capped at the step's
 * own limit, compile.ts). The Step Timeout input and a route that also catches the timeout (the
 * wait step's Timeout event) would be a second answer to the same question: refused.
 */
function checkTimer(activity: RawActivity, spec: ActivitySpec, at: string, who: string, problems: ErrorDetail[]): Timer | undefined {
  const timer = activity.timer!;
  const where = `${at}.timer${timer.id ? ` (${timer.id})` : ''}`;
  const d = isoDurationSeconds(timer.duration);
  if ('problem' in d) {
    problems.push({ location: `${at}.timer.duration`, message: `${who}: timer ${d.problem}` });
    return undefined;
  }
  if (d.seconds < TIMER_MIN_SECONDS || d.seconds > STEP_TIMEOUT_MAX) {
    problems.push({
      location: `${at}.timer.duration`,
      message: `${who}: timer ${timer.duration} must be between ${TIMER_MIN_SECONDS} seconds and ${STEP_TIMEOUT_MAX / 86_400} days`,
    });
  }
  if (activity.inputs?.[STEP_TIMEOUT_INPUT] !== undefined) {
    problems.push({ location: `${at}.inputs.${STEP_TIMEOUT_INPUT}`, message: `${who}: has a timer (${where}), which sets the step's timeout; leave out "${STEP_TIMEOUT_INPUT}"` });
  }
  for (const event of spec.errorEvents) {
    if (event.alsoCatches?.includes('States.Timeout') && activity.errorEvents?.[event.name] !== undefined) {
      problems.push({ location: `${at}.errorEvents.${event.name}`, message: `${who}: the "${event.name}" route and the timer both take the step's timeout; keep one` });
    }
  }
  return timer;
}

/** Output parameters: each a JUEL expression the runtime can evaluate. */
function checkOutputs(outputs: Record<string, string>, at: string, who: string, problems: ErrorDetail[]): void {
  for (const [name, expression] of Object.entries(outputs)) {
    if ((SESSION_KEYS as readonly string[]).includes(name)) {
      problems.push({ location: `${at}.outputs.${name}`, message: `${who}: output "${name}" is a session key, not a process variable` });
      continue;
    }
    if (!isExpression(expression)) continue; // plain text: the value itself
    try {
      const ast = parseCondition(expression);
      if (containsArithmetic(ast)) throw new ConditionError('unsupported', `${expression} uses arithmetic, which outputs do not compute`);
    } catch (e) {
      if (!(e instanceof ConditionError)) throw e;
      problems.push({ location: `${at}.outputs.${name}`, message: `${who}: output "${name}": ${e.message}` });
    }
  }
}

function containsArithmetic(e: Expr): boolean {
  if (e.kind === 'arithmetic' || e.kind === 'negate') return true;
  return Object.values(e).some((v) => v !== null && typeof v === 'object' && 'kind' in v && containsArithmetic(v as Expr));
}

function edges(activity: RawActivity): Pick<Activity, 'next' | 'errorEvents' | 'errorVariables' | 'outputs'> {
  return {
    ...(activity.next === undefined ? {} : { next: activity.next }),
    ...(activity.errorEvents && Object.keys(activity.errorEvents).length > 0 ? { errorEvents: activity.errorEvents } : {}),
    ...(activity.errorVariables && Object.keys(activity.errorVariables).length > 0 ? { errorVariables: activity.errorVariables } : {}),
    ...(activity.outputs && Object.keys(activity.outputs).length > 0 ? { outputs: activity.outputs } : {}),
  };
}

/** A decimal as text: `0.5`, `-1`, `.75`, `1e-3`. */
const DECIMAL = /^-?(\d{1,15}(\.\d{0,15})?|\.\d{1,15})(e-?\d{1,3})?$/i;

const TYPE_NAMES: Record<InputSpec['type'], string> = {
  S: 'a string',
  I: 'an integer',
  N: 'a number',
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

  // A template (text with embedded `${...}`, evaluated by its module when it runs): every
  // expression in it must parse, whatever the text around it.
  if (input.template === true && typeof value === 'string') {
    try {
      parseTemplate(value);
    } catch (e) {
      if (!(e instanceof ConditionError)) throw e;
      return fail(`is not a valid template: ${e.message}`);
    }
    if ([...value].length > MAX_STRING) return fail(`must be at most ${MAX_STRING} characters`);
    return value;
  }
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
      if (input.enum) {
        // The family's designers write some choices in lower case (`jpeg` for JPEG): the spec's spelling is kept.
        const choice = input.enum.find((e) => e === value) ?? input.enum.find((e) => e.toLowerCase() === value.toLowerCase());
        if (choice === undefined) return fail(`must be one of ${input.enum.join(', ')}`);
        return choice;
      }
      return value;
    }
    case 'I': {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return wrongType();
      if (input.min !== undefined && value < input.min) return fail(`must be at least ${input.min}`);
      if (input.max !== undefined && value > input.max) return fail(`must be at most ${input.max}`);
      return value;
    }
    case 'N': {
      // The family's designer writes a decimal as text (`0.06`) or as a literal (`${0.06}`).
      const n = typeof value === 'string' && DECIMAL.test(value.trim()) ? Number(value.trim()) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) return wrongType();
      if (input.min !== undefined && n < input.min) return fail(`must be at least ${input.min}`);
      if (input.max !== undefined && n > input.max) return fail(`must be at most ${input.max}`);
      return n;
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
        if ([...(v as string)].length > MAX_STRING) return fail(`values must be at most ${MAX_STRING} characters`);
        // A map of templates (a custom page's Session Data): each value's expressions must parse.
        if (input.template === true) {
          try {
            parseTemplate(v as string);
          } catch (e) {
            if (!(e instanceof ConditionError)) throw e;
            return fail(`maps ${k} to what is not a valid template: ${e.message}`);
          }
        }
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
  const has = (name: string) => own(inputs, name) !== undefined;
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
    const target = own(all, activity);
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
// Gateways

/**
 * Each branch's condition must compile to a Choice rule (the refusal names the expression), and
 * must be satisfiable. Without a default flow, two branches must be each other's negation, so
 * one always holds: a Choice state with no match would fail the execution.
 */
function checkGateway(id: string, gateway: Gateway, problems: ErrorDetail[]): void {
  const who = `gateway "${id}"${gateway.name ? ` (${gateway.name})` : ''}`;
  const asts: (Expr | undefined)[] = gateway.branches.map((branch, i) => {
    const location = `gateways.${id}.branches.${i}.when`;
    const flow = branch.id ? ` (flow "${branch.id}")` : '';
    try {
      const ast = parseCondition(branch.when);
      // A condition that never holds (`${false}`, 29 times in one relying party's three files)
      // is how the family's designers switch a branch off: taken, and never taken at run time.
      toChoiceRule(ast, { path: variablePath });
      return ast;
    } catch (e) {
      if (!(e instanceof ConditionError)) throw e;
      problems.push({ location, message: `${who}: the condition${flow} cannot be used: ${e.message}` });
      return undefined;
    }
  });
  // Without a default flow, a pass where no condition holds fails the instance at run time
  // (COMPLETED_PROCESS_ERROR), as in the family's engine: the family draws such gateways.
}

/** Two conditions of which one is `!` the other (or `!=` the other's `==`): one always holds. */
export function exhaustive(asts: readonly Expr[]): boolean {
  const printed = new Set(asts.map((a) => print(normalize(a))));
  return asts.some((a) => printed.has(print(normalize({ kind: 'not', operand: a }))));
}

function normalize(e: Expr): Expr {
  if (e.kind === 'compare' && e.op === '!=') return { kind: 'not', operand: { ...e, op: '==' } };
  if (e.kind === 'not') {
    const inner = normalize(e.operand);
    return inner.kind === 'not' ? inner.operand : { kind: 'not', operand: inner };
  }
  return e;
}

// ---------------------------------------------------------------------------------------------
// The flow graph

interface Edge {
  to: string;
  /** Where the edge is written: `next`, `errorEvents.<name>`, `timer.next`, `branches.<i>.next`, `default`. */
  field: string;
}

interface Nodes {
  activities: Record<string, Activity>;
  gateways: Record<string, Gateway>;
  ends: Record<string, End>;
}

type NodeKind = 'activities' | 'gateways' | 'ends';

function nodeKind(nodes: Nodes, id: string): NodeKind | undefined {
  if (Object.hasOwn(nodes.activities, id)) return 'activities';
  if (Object.hasOwn(nodes.gateways, id)) return 'gateways';
  if (Object.hasOwn(nodes.ends, id)) return 'ends';
  return undefined;
}

function outEdges(nodes: Nodes, id: string): Edge[] {
  const out: Edge[] = [];
  const activity = own(nodes.activities, id);
  if (activity) {
    if (activity.next !== undefined) out.push({ to: activity.next, field: 'next' });
    for (const [event, to] of Object.entries(activity.errorEvents ?? {})) out.push({ to, field: `errorEvents.${event}` });
    if (activity.timer) out.push({ to: activity.timer.next, field: 'timer.next' });
  }
  const gateway = own(nodes.gateways, id);
  if (gateway) {
    gateway.branches.forEach((b, i) => out.push({ to: b.next, field: `branches.${i}.next` }));
    if (gateway.default !== undefined) out.push({ to: gateway.default, field: 'default' });
  }
  return out;
}

/** Where the journey can stop: an end event, an activity without next, a decider with rules. */
function isEnd(nodes: Nodes, id: string): boolean {
  if (own(nodes.ends, id)) return true;
  const activity = own(nodes.activities, id);
  return activity !== undefined && activity.next === undefined;
}

function describe(nodes: Nodes, id: string): string {
  const kind = nodeKind(nodes, id);
  if (kind === 'activities') return label(id, activitySpec(own(nodes.activities, id)!.type));
  if (kind === 'gateways') return `gateway "${id}"`;
  return `end event "${id}"`;
}

function checkGraph(start: string, nodes: Nodes, problems: ErrorDetail[]): void {
  // One namespace: a node id names one node.
  for (const id of Object.keys(nodes.gateways)) {
    if (Object.hasOwn(nodes.activities, id)) problems.push({ location: `gateways.${id}`, message: `gateway "${id}": the id is also an activity's` });
  }
  for (const id of Object.keys(nodes.ends)) {
    if (Object.hasOwn(nodes.activities, id) || Object.hasOwn(nodes.gateways, id)) {
      problems.push({ location: `ends.${id}`, message: `end event "${id}": the id is also another node's` });
    }
  }
  const ids = [...new Set([...Object.keys(nodes.activities), ...Object.keys(nodes.gateways), ...Object.keys(nodes.ends)])];
  let dangling = false;
  const startKind = nodeKind(nodes, start);
  if (startKind === undefined || startKind === 'ends') {
    dangling = true;
    problems.push({
      location: 'startActivityId',
      message: startKind === 'ends' ? `the journey cannot start at end event "${start}"` : `start node "${start}" does not exist`,
    });
  }
  for (const id of ids) {
    for (const edge of outEdges(nodes, id)) {
      if (nodeKind(nodes, edge.to) === undefined) {
        dangling = true;
        const what =
          edge.field === 'next'
            ? 'next node'
            : edge.field.startsWith('errorEvents.')
              ? `target of error event "${edge.field.slice('errorEvents.'.length)}"`
              : edge.field === 'timer.next'
                ? 'target of the timer'
                : edge.field === 'default'
                  ? 'default flow target'
                  : 'branch target';
        problems.push({ location: `${nodeKind(nodes, id)}.${id}.${edge.field}`, message: `${describe(nodes, id)}: ${what} "${edge.to}" does not exist` });
      }
    }
  }
  // The checks below read the graph whole; with a missing target they would only add noise.
  if (dangling) return;

  const successors = (id: string) => outEdges(nodes, id).map((e) => e.to);

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
      problems.push({ location: `${nodeKind(nodes, id)}.${id}`, message: `${describe(nodes, id)}: not reachable from the start node "${start}"` });
    }
  }

  // Every reachable node can still reach an end (no trap the journey cannot leave).
  const predecessors = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const id of ids) for (const to of successors(id)) predecessors.get(to)!.push(id);
  const canEnd = new Set(ids.filter((id) => isEnd(nodes, id)));
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
        location: `${nodeKind(nodes, id)}.${id}`,
        message: `${describe(nodes, id)}: no path from here reaches an end (an end event, an activity without next, or a Simple Decider with rules)`,
      });
    }
  }

  // A loop of gateways only would spin without end: nothing in it can change what its conditions
  // read. A loop with a step in it is bounded: a user step waits for a person, a Counter fails
  // the journey past its pass limit (specs/counter-v1.ts), and every service step counts against
  // the journey's step limit (functions/activities/run.ts MAX_JOURNEY_STEPS), so the family's
  // retry loops of service steps (`${dvsAttempt > 2}`, or a cloud function's verdict) deploy.
  // A decider is a Choice or Pass state, no step: it does not count.
  const waits = (id: string) => {
    const activity = own(nodes.activities, id);
    return activity !== undefined && activitySpec(activity.type)?.kind !== 'decider';
  };
  const others = ids.filter((id) => !waits(id));
  for (const component of stronglyConnected(others, (id) => successors(id).filter((to) => !waits(to)))) {
    const members = new Set(component);
    const first = ids.find((id) => members.has(id))!;
    const selfLoop = successors(first).includes(first);
    if (component.length < 2 && !selfLoop) continue;
    const cycle = findCycle(first, (id) => successors(id).filter((to) => members.has(to)));
    const edge = outEdges(nodes, first).find((e) => e.to === cycle[1])!;
    problems.push({
      location: `${nodeKind(nodes, first)}.${first}.${edge.field}`,
      message: `${describe(nodes, first)}: ${cycle.map((c) => `"${c}"`).join(' → ')} form a loop of gateways and deciders only, which would run without end (a step in it could change what they read)`,
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
