/**
 * A process definition is data: versioned JSON that names a journey's activities and how they
 * connect. This module holds its zod schemas (the JSON shape only) and its TypeScript types;
 * `validate.ts` adds every rule of the activity catalogue on top, and `compile.ts` turns a valid
 * definition into Amazon States Language. Nothing here touches AWS.
 */
import * as z from '../functions/shared/zod.js';
import { text } from '../functions/shared/schemas.js';
import { isExpression, referencePath } from './references.js';

// ---------------------------------------------------------------------------------------------
// Identifiers

/** Decider outcomes; the compiled state machine records one as `_decision`. */
export const OUTCOMES = ['PASS', 'FAIL', 'REVIEW'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * Node ids (activities, gateways, end events) become state names, so they stay within Step
 * Functions' 80 characters and need no quoting in a console or log. A BPMN element id (an XML
 * NCName such as `Activity_0x1y2z3` or `Gateway.review`) keeps its id.
 */
export const ActivityIdSchema = z
  .string()
  .check(
    z.regex(
      /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,79}$/,
      'must be 1 to 80 characters: letters, digits, _, - or . (not starting with .)',
    ),
  );
export const NodeIdSchema = ActivityIdSchema;

export const DefinitionNameSchema = z
  .string()
  .check(
    z.regex(/^[A-Za-z0-9 _.-]{1,100}$/, 'must be 1 to 100 characters: letters, digits, space, _ . or -'),
    z.refine((s) => s.trim() === s, { message: 'must not start or end with a space' }),
  );

/** Input names are the catalogue's display names ("Time To Live (Seconds)"); the catalogue checks them. */
export const InputNameSchema = z.string().check(z.minLength(1), z.maxLength(100));

/**
 * A path into the session data, dot-separated identifiers: `_checks.face.result`, `vars.user1.id`.
 * Identifiers only, so the compiled JSONPath (`$._checks.face.result`) needs no bracket quoting.
 */
export const VariablePathSchema = z
  .string()
  .check(
    z.regex(
      /^[A-Za-z_][A-Za-z0-9_]{0,63}(\.[A-Za-z_][A-Za-z0-9_]{0,63}){0,9}$/,
      'must be a dot-separated path of identifiers (letters, digits, _; not starting with a digit), such as _checks.face.result',
    ),
  );

// ---------------------------------------------------------------------------------------------
// Data forms (the service family's JSON form format)

/** ISO 639 language, optionally with a region or script: `en`, `de`, `pt-BR`, `zh-Hant`. */
export const LanguageTagSchema = z
  .string()
  .check(z.regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,2}$/, 'must be a language code such as en or pt-BR'));

/** Every text a user reads is a map of language to string. */
export const LocalizedTextSchema = z
  .strictObject({ values: z.record(LanguageTagSchema, z.string().check(z.maxLength(1000))) })
  .check(
    z.refine((t) => Object.keys(t.values).length >= 1, {
      message: 'must have a text in at least one language',
      path: ['values'],
    }),
    z.refine((t) => Object.keys(t.values).length <= 50, { message: 'must have at most 50 languages', path: ['values'] }),
  );
export type LocalizedText = z.infer<typeof LocalizedTextSchema>;

export const FORM_COMPONENT_TYPES = [
  'textfield',
  'textarea',
  'email',
  'phoneNumber',
  'number',
  'date',
  'checkbox',
  'select',
] as const;
export type FormComponentType = (typeof FORM_COMPONENT_TYPES)[number];
const TEXT_COMPONENTS: readonly FormComponentType[] = ['textfield', 'textarea', 'email', 'phoneNumber'];

/**
 * A date bound: an ISO date (`2000-01-31`) or a date relative to the day the form is filled in
 * (`today`, `today-18y`, `today+30d`; units d, m, y). A date of birth of an adult is
 * `maxDate: "today-18y"`.
 */
export const DateBoundSchema = z
  .string()
  .check(
    z.regex(/^(\d{4}-\d{2}-\d{2}|today([+-]\d{1,4}[dmy])?)$/, 'must be an ISO date (YYYY-MM-DD), today, or today±N(d|m|y)'),
    z.refine((s) => s.startsWith('today') || isCalendarDate(s), { message: 'must be a real calendar date' }),
  );

function isCalendarDate(s: string): boolean {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/** The date a bound stands for on `today` (UTC, date only). */
export function resolveDateBound(bound: string, today: Date): string {
  const m = /^today(?:([+-])(\d{1,4})([dmy]))?$/.exec(bound);
  if (!m) return bound;
  let [y, mo, d] = [today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()];
  if (m[1] && m[2] && m[3]) {
    const n = Number(m[2]) * (m[1] === '-' ? -1 : 1);
    if (m[3] === 'd') d += n;
    if (m[3] === 'm') mo += n;
    if (m[3] === 'y') y += n;
    if (m[3] !== 'd') {
      // Years and months keep the day, clamped to the month's end: 29 Feb - 1y is 28 Feb, so an
      // 18-year limit never lets in someone a day short of 18.
      const last = new Date(Date.UTC(y, mo + 1, 0)).getUTCDate();
      d = Math.min(d, last);
    }
  }
  return new Date(Date.UTC(y, mo, d)).toISOString().slice(0, 10);
}

export const FormValidateSchema = z.strictObject({
  required: z.optional(z.boolean()),
  /** Text components, counted in characters. */
  minLength: z.optional(z.number().check(z.int(), z.gte(0), z.lte(10_000))),
  maxLength: z.optional(z.number().check(z.int(), z.gte(1), z.lte(10_000))),
  /** Text components: a JavaScript regular expression (unicode mode) the whole value must match. */
  pattern: z.optional(z.string().check(z.minLength(1), z.maxLength(500))),
  /** Number components. */
  min: z.optional(z.number()),
  max: z.optional(z.number()),
  /** Date components. */
  minDate: z.optional(DateBoundSchema),
  maxDate: z.optional(DateBoundSchema),
  missingMessage: z.optional(LocalizedTextSchema),
  invalidMessage: z.optional(LocalizedTextSchema),
});

export const FormComponentSchema = z
  .strictObject({
    type: z.enum(FORM_COMPONENT_TYPES),
    /** The key of the submitted value in the form's data. */
    id: z.string().check(z.regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'must be 1 to 64 letters, digits or _, starting with a letter')),
    label: LocalizedTextSchema,
    /** A value, or a reference such as `${firstName}` resolved when the form is shown (see references.ts). */
    default: z.optional(z.union([z.string().check(z.maxLength(1000)), z.number(), z.boolean()])),
    /** Select components only. */
    options: z.optional(
      z
        .array(z.strictObject({ value: z.string().check(z.minLength(1), z.maxLength(100)), label: LocalizedTextSchema }))
        .check(z.minLength(1), z.maxLength(200)),
    ),
    validate: z.optional(FormValidateSchema),
  })
  .check(
    z.superRefine((c, ctx) => {
      const v = c.validate ?? {};
      const isText = TEXT_COMPONENTS.includes(c.type);
      const only = (key: keyof typeof v, allowed: boolean, what: string) => {
        if (v[key] !== undefined && !allowed) {
          ctx.addIssue({ code: 'custom', path: ['validate', key], message: `applies only to ${what} components` });
        }
      };
      only('minLength', isText, 'text');
      only('maxLength', isText, 'text');
      only('pattern', isText, 'text');
      only('min', c.type === 'number', 'number');
      only('max', c.type === 'number', 'number');
      only('minDate', c.type === 'date', 'date');
      only('maxDate', c.type === 'date', 'date');
      if (v.minLength !== undefined && v.maxLength !== undefined && v.minLength > v.maxLength) {
        ctx.addIssue({ code: 'custom', path: ['validate', 'minLength'], message: 'must not be greater than maxLength' });
      }
      if (v.min !== undefined && v.max !== undefined && v.min > v.max) {
        ctx.addIssue({ code: 'custom', path: ['validate', 'min'], message: 'must not be greater than max' });
      }
      if (v.minDate !== undefined && v.maxDate !== undefined) {
        // Compare on a fixed day: both bounds move together when both are relative.
        const day = new Date(Date.UTC(2000, 0, 1));
        const bothSameKind = v.minDate.startsWith('today') === v.maxDate.startsWith('today');
        if (bothSameKind && resolveDateBound(v.minDate, day) > resolveDateBound(v.maxDate, day)) {
          ctx.addIssue({ code: 'custom', path: ['validate', 'minDate'], message: 'must not be after maxDate' });
        }
      }
      if (v.pattern !== undefined) {
        try {
          new RegExp(v.pattern, 'u');
        } catch {
          ctx.addIssue({ code: 'custom', path: ['validate', 'pattern'], message: 'must be a valid regular expression' });
        }
      }
      if (c.type === 'select' && !c.options) {
        ctx.addIssue({ code: 'custom', path: ['options'], message: 'a select component needs options' });
      }
      if (c.type !== 'select' && c.options) {
        ctx.addIssue({ code: 'custom', path: ['options'], message: 'applies only to select components' });
      }
      if (typeof c.default === 'string' && isExpression(c.default) && referencePath(c.default) === undefined) {
        ctx.addIssue({ code: 'custom', path: ['default'], message: 'is not a valid reference: write ${name} or ${a.b.c}' });
      } else if (typeof c.default === 'string' && referencePath(c.default) !== undefined) {
        // A reference: its value is only known when the form is shown.
      } else if (c.default !== undefined) {
        const want = c.type === 'checkbox' ? 'boolean' : c.type === 'number' ? 'number' : 'string';
        if (typeof c.default !== want) {
          ctx.addIssue({ code: 'custom', path: ['default'], message: `must be a ${want} for a ${c.type} component` });
        } else if (c.type === 'select' && c.options && !c.options.some((o) => o.value === c.default)) {
          ctx.addIssue({ code: 'custom', path: ['default'], message: 'must be the value of one of the options' });
        }
      }
    }),
  );
export type FormComponent = z.infer<typeof FormComponentSchema>;

/**
 * A data form: `{title, subtitle, components, version}` as the service family writes them. A
 * Data Form activity carries its form inline (input `Form`), so a definition version pins the
 * exact form its users saw; no separate form store is needed yet.
 */
export const DataFormSchema = z
  .strictObject({
    title: LocalizedTextSchema,
    subtitle: z.optional(LocalizedTextSchema),
    components: z.array(FormComponentSchema).check(z.minLength(1), z.maxLength(100)),
    version: z.number().check(z.int(), z.gte(1), z.lte(1_000_000)),
  })
  .check(
    z.superRefine((f, ctx) => {
      const seen = new Set<string>();
      f.components.forEach((c, i) => {
        if (seen.has(c.id)) {
          ctx.addIssue({ code: 'custom', path: ['components', i, 'id'], message: `duplicates component id "${c.id}"` });
        }
        seen.add(c.id);
      });
    }),
  );
export type DataForm = z.infer<typeof DataFormSchema>;

// ---------------------------------------------------------------------------------------------
// Simple Decider rules

export type ConditionValue = string | number | boolean;

/**
 * A decider condition. Variable conditions read the session data (`_checks.face.result`); an
 * error-event condition reads `_lastError`, which a `Catch` route writes when an error boundary
 * event routed the flow (any event, or one named event of one activity).
 */
export type Condition =
  | { variable: string; equals: ConditionValue }
  | { variable: string; notEquals: ConditionValue }
  | { variable: string; isPresent: boolean }
  | { errorEvent: true | { activity: string; name: string } }
  | { all: Condition[] }
  | { any: Condition[] }
  | { not: Condition };

const ConditionValueSchema = z.union([z.string().check(z.maxLength(1000)), z.number(), z.boolean()]);

// a named (not generated) JSON Schema for the recursive type
export const ConditionSchema: z.ZodMiniType<Condition> = z.withMeta(
  z.lazy(() =>
    z.union(
      [
        z.strictObject({ variable: VariablePathSchema, equals: ConditionValueSchema }),
        z.strictObject({ variable: VariablePathSchema, notEquals: ConditionValueSchema }),
        z.strictObject({ variable: VariablePathSchema, isPresent: z.boolean() }),
        z.strictObject({
          errorEvent: z.union([
            z.literal(true),
            z.strictObject({ activity: ActivityIdSchema, name: z.string().check(z.minLength(1), z.maxLength(100)) }),
          ]),
        }),
        z.strictObject({ all: z.array(ConditionSchema).check(z.minLength(1), z.maxLength(20)) }),
        z.strictObject({ any: z.array(ConditionSchema).check(z.minLength(1), z.maxLength(20)) }),
        z.strictObject({ not: ConditionSchema }),
      ],
      {
        error:
          'must be one condition: {variable, equals|notEquals|isPresent}, {errorEvent: true | {activity, name}}, {all: [...]}, {any: [...]} or {not: {...}}',
      },
    ),
  ),
  { id: 'DeciderCondition' },
);

/** Rules are tried in order; the first whose condition holds gives the outcome. */
export const DeciderRuleSchema = z.strictObject({ when: ConditionSchema, outcome: z.enum(OUTCOMES) });
export type DeciderRule = z.infer<typeof DeciderRuleSchema>;

// ---------------------------------------------------------------------------------------------
// Activities and the definition

/**
 * An input value as JSON allows it. Which form an input takes (S, I, B, L, map, form) is the
 * catalogue's business, checked in `validate.ts`, so the shape accepts any of them here.
 */
export const InputValueSchema = z.union(
  [
    z.string().check(z.maxLength(10_000)),
    z.number(),
    z.boolean(),
    z.array(z.string().check(z.maxLength(10_000))).check(z.maxLength(1000)),
    z.record(z.string(), z.unknown()),
  ],
  { error: 'must be a string, a number, a boolean, a list of strings or an object' },
);

/** The value of an input after validation. */
export type InputValue = string | number | boolean | string[] | Record<string, string> | DataForm;

/**
 * A JUEL expression as the family's designer writes it (`${_photoConfirmed != true}`); see
 * statemachines/conditions/README.md for the subset.
 */
export const ExpressionSchema = z.string().check(z.minLength(1), z.maxLength(5000));

/** A process variable an output parameter sets: an identifier. */
export const VariableNameSchema = z
  .string()
  .check(z.regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be a variable name: letters, digits, _ (not starting with a digit), at most 64'));

/**
 * An interrupting timer boundary event on a user step: when `duration` (ISO 8601, fixed length:
 * `PT4M30S`, `PT30M`, `P5D`) passes before the end user finishes the step, the flow goes to
 * `next`.
 */
export const TimerSchema = z.strictObject({
  /** The BPMN boundary event's id, kept for messages and the round trip. */
  id: z.optional(ActivityIdSchema),
  duration: z.string().check(z.minLength(2), z.maxLength(40)),
  next: NodeIdSchema,
});
export type Timer = z.infer<typeof TimerSchema>;

export const ActivitySchema = z.strictObject({
  type: z.string().check(z.minLength(1), z.maxLength(64)),
  name: z.optional(text(1, 100)),
  inputs: z.optional(z.record(InputNameSchema, InputValueSchema)),
  next: z.optional(NodeIdSchema),
  errorEvents: z.optional(z.record(z.string().check(z.minLength(1), z.maxLength(100)), NodeIdSchema)),
  /**
   * Per error event: the process variables that receive the family's error code and the error's
   * message when that route is taken (`camunda:errorCodeVariable` / `errorMessageVariable`).
   */
  errorVariables: z.optional(
    z.record(
      z.string().check(z.minLength(1), z.maxLength(100)),
      z.strictObject({ code: z.optional(VariableNameSchema), message: z.optional(VariableNameSchema) }),
    ),
  ),
  /** User steps only. */
  timer: z.optional(TimerSchema),
  /** Process variables set when the activity completes: variable name → JUEL expression. */
  outputs: z.optional(
    z.record(VariableNameSchema, ExpressionSchema).check(
      z.refine((o) => Object.keys(o).length <= 50, { message: 'must have at most 50 outputs' }),
    ),
  ),
  /** Simple Decider only. */
  rules: z.optional(z.array(DeciderRuleSchema).check(z.minLength(1), z.maxLength(50))),
  /** Simple Decider only: the outcome when no rule holds. */
  default: z.optional(z.enum(OUTCOMES)),
});

/** One outgoing flow of a gateway: taken when `when` holds (the first that holds, in order). */
export const BranchSchema = z.strictObject({
  /** The BPMN sequence flow's id, kept for messages and the round trip. */
  id: z.optional(ActivityIdSchema),
  name: z.optional(text(1, 200)),
  when: ExpressionSchema,
  next: NodeIdSchema,
});
export type Branch = z.infer<typeof BranchSchema>;

/**
 * An exclusive gateway: its branches are tried in order and the first whose condition holds is
 * taken; `default` when none does. A gateway without a default is accepted only when two of its
 * conditions are each other's negation (one always holds).
 */
export const GatewaySchema = z.strictObject({
  name: z.optional(text(1, 200)),
  branches: z.array(BranchSchema).check(z.minLength(1), z.maxLength(50)),
  default: z.optional(NodeIdSchema),
  /** The BPMN id of the default flow, kept for the round trip. */
  defaultFlowId: z.optional(ActivityIdSchema),
});
export type Gateway = z.infer<typeof GatewaySchema>;

/**
 * An end event. A plain end completes the instance (COMPLETED_ENDED_SUCCESS, or the decision a
 * Simple Decider made on the way); an error end (`error`: the family's error code) completes it
 * as COMPLETED_ENDED_ERROR and records the code.
 */
export const EndSchema = z.strictObject({
  name: z.optional(text(1, 200)),
  error: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_.-]{1,100}$/, 'must be an error code: 1 to 100 letters, digits, _ . or -'))),
});
export type End = z.infer<typeof EndSchema>;

/** What real definitions of the family reach (130 tasks, 160 gateways, 90 error and 70 timer events), with room. */
export const MAX_ACTIVITIES = 300;
export const MAX_GATEWAYS = 300;
export const MAX_ENDS = 100;

const count = <T extends Record<string, unknown>>(max: number, what: string) =>
  z.refine<T>((a) => Object.keys(a).length <= max, { message: `must have at most ${max} ${what}` });

/** The JSON shape of a process definition. `validateDefinition` applies the catalogue on top. */
export const ProcessDefinitionSchema = z.strictObject({
  name: DefinitionNameSchema,
  version: z.number().check(z.int(), z.gte(1), z.lte(1_000_000)),
  description: z._default(text(0, 255), ''),
  retentionDays: z._default(z.number().check(z.int(), z.gte(1), z.lte(3650)), 90),
  /** The node the journey starts at (the BPMN start event's target): an activity or a gateway. */
  startActivityId: NodeIdSchema,
  activities: z.record(NodeIdSchema, ActivitySchema).check(
    z.refine((a) => Object.keys(a).length >= 1, { message: 'must have at least one activity' }),
    count(MAX_ACTIVITIES, 'activities'),
  ),
  gateways: z.optional(z.record(NodeIdSchema, GatewaySchema).check(count(MAX_GATEWAYS, 'gateways'))),
  ends: z.optional(z.record(NodeIdSchema, EndSchema).check(count(MAX_ENDS, 'end events'))),
});

/** What a client sends (defaults may be left out). */
export type ProcessDefinitionInput = z.input<typeof ProcessDefinitionSchema>;

export interface Activity {
  type: string;
  name?: string;
  /** Every input of the activity type that has a value, defaults filled in, in catalogue order. */
  inputs: Record<string, InputValue>;
  next?: string;
  errorEvents?: Record<string, string>;
  errorVariables?: Record<string, { code?: string; message?: string }>;
  timer?: Timer;
  outputs?: Record<string, string>;
  rules?: DeciderRule[];
  default?: Outcome;
}

/** A definition that passed `validateDefinition`, with defaults applied. */
export interface ProcessDefinition {
  name: string;
  version: number;
  description: string;
  retentionDays: number;
  startActivityId: string;
  activities: Record<string, Activity>;
  /** Present when the definition has any. */
  gateways?: Record<string, Gateway>;
  ends?: Record<string, End>;
}
