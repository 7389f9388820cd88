/**
 * A process definition is data: versioned JSON that names a journey's activities and how they
 * connect. This module holds its zod schemas (the JSON shape only) and its TypeScript types;
 * `validate.ts` adds every rule of the activity catalogue on top, and `compile.ts` turns a valid
 * definition into Amazon States Language. Nothing here touches AWS.
 */
import * as z from '../functions/shared/zod.js';
import { text } from '../functions/shared/schemas.js';
import { PresentationSchema, type Presentation } from './presentation.js';

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
// Data forms: one format for the inline `Form` input and the forms stored by name and version
// (the service family's), in ./forms.ts.

export {
  DataFormSchema,
  DateBoundSchema,
  FORM_COMPONENT_TYPES,
  FormComponentSchema,
  FormValidateSchema,
  LocalizedTextSchema,
  resolveDateBound,
  type DataForm,
  type FormComponent,
  type FormComponentType,
  type LocalizedText,
} from './forms.js';
import type { DataForm } from './forms.js';

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
  .check(
    z.regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be a variable name: letters, digits, _ (not starting with a digit), at most 64'),
    // Assigned as a key of the session's `vars`, `__proto__` would replace its prototype, not set a variable.
    z.refine((s) => s !== '__proto__', { message: 'must not be __proto__' }),
  );

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
  /**
   * The final screen the family's end listener names (`redirectMapperV1`: `thank-you`). This
   * service's done page is that screen; the name is kept so the definition reads back as drawn.
   */
  screen: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a screen id: 1 to 64 letters, digits, _ or -'))),
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
  /** How the journey pages present the relying party (name, logo, support contact, privacy notice). */
  presentation: z.optional(PresentationSchema),
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
  presentation?: Presentation;
  startActivityId: string;
  activities: Record<string, Activity>;
  /** Present when the definition has any. */
  gateways?: Record<string, Gateway>;
  ends?: Record<string, End>;
}
