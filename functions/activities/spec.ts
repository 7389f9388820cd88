/**
 * What an activity module declares about itself, as plain data: its inputs (the spec's
 * parameter display names, types, defaults and bounds), the rules between them, its outputs and
 * its error boundary events. The catalogue (statemachines/catalogue.ts) is the list of these
 * specs; validation and compilation read nothing else. This module is a leaf: types, and the
 * builders that keep the modules short, so the catalogue can be read without any runtime code.
 *
 * Specs are written `as const satisfies ActivitySpec`, so an activity's type is a string
 * literal and its inputs a union of literal names, from which `InputsOf` derives the typed
 * inputs its run function receives.
 */
import type { DataForm } from '../../statemachines/definition.js';
import type { InputCheckName } from '../shared/input-checks.js';

/** S string, I integer, N number (a decimal, such as a threshold), B boolean, L list of strings, M map of string to string, F data form. */
export type InputType = 'S' | 'I' | 'N' | 'B' | 'L' | 'M' | 'F';

/** A default as the catalogue writes it (`${60}` in the spec is stored as 60). */
export type InputDefault = string | number | boolean | readonly string[];

export interface InputSpec {
  readonly name: string;
  readonly type: InputType;
  readonly required: boolean;
  readonly default?: InputDefault;
  /** Integer and number bounds, checked on literal values (a reference is checked when it is resolved). */
  readonly min?: number;
  readonly max?: number;
  /** A literal string must match; used for keys that become variable names. */
  readonly pattern?: string;
  readonly patternMessage?: string;
  readonly enum?: readonly string[];
  /** False when the value must be known when the definition is compiled (no `${...}`). */
  readonly references?: false;
  /**
   * A template (a string input): text with embedded `${...}` expressions that the module
   * evaluates itself when it runs (statemachines/templates.ts), so the activity function does not
   * resolve it as a reference first: a value read from the journey is never evaluated again.
   */
  readonly template?: true;
  /**
   * A check of a literal value beyond its type (functions/shared/input-checks.ts: a country code,
   * a JSON configuration): a definition whose value fails it is refused at publish.
   */
  readonly check?: InputCheckName;
  readonly description?: string;
  /** How the family's designer writes this input, where that differs from the above or is known. */
  readonly family?: FamilyInput;
}

/** The family's input parameter types (`camunda:inputParameter type`). */
export const FAMILY_INPUT_TYPES = ['STRING', 'INTEGER', 'BOOLEAN', 'ENUM', 'LIST_STRING', 'MAP_STRING'] as const;
export type FamilyInputType = (typeof FAMILY_INPUT_TYPES)[number];

/**
 * An input as the family's designer writes it: `<camunda:inputParameter name="dataFormName"
 * labelName="Data form name" type="STRING">`. The importer matches a parameter by `name` first
 * (stable across the designer's versions), then by its label (this spec's `name`, or `label`).
 */
export interface FamilyInput {
  /** The parameter's stable `name` attribute. */
  readonly name?: string;
  /** The designer's `labelName`, where it differs from this spec's input name (`Readonly` for `Read Only`). */
  readonly label?: string;
  /** The designer's `type`, where it differs from the one this spec's type maps to (a version given as STRING). */
  readonly type?: FamilyInputType;
}

/**
 * What an activity is called in the family's designer and BPMN: what the importer resolves and
 * the exporter writes. Facts come from the family's real exports; a name not known from one is
 * left out rather than guessed.
 */
export interface FamilyNames {
  /** The palette's name for it, where it differs from `displayName` (`Custom Data Form`). */
  readonly displayName?: string;
  /** The palette code: the prefix of the element's and its inputs' `skyId` (`CDF01`, `CDF01-i-cdfn`). */
  readonly palette?: string;
  /**
   * The Spring bean names it answers to: a service task's `camunda:delegateExpression`, or a user
   * step's start execution listener. The first is the one the exporter writes.
   */
  readonly beans: readonly [string, ...string[]];
  /**
   * A user step's end execution listener (`customDataFormWriterV1`): written after the start
   * listener by the exporter; the importer accepts it on this activity's steps and refuses it on
   * any other activity's.
   */
  readonly endBean?: string;
}

/**
 * Cross-input rules. `groups`: between `min` and `max` of the groups are given (a group is given
 * when any of its inputs is), and a given group is given whole. `requires`: `input` needs
 * `requires` to be given too.
 */
export type InputRule =
  | { readonly kind: 'groups'; readonly groups: readonly (readonly string[])[]; readonly min: number; readonly max: number }
  | { readonly kind: 'requires'; readonly input: string; readonly requires: string };

export interface OutputSpec {
  readonly name: string;
  /** Where the activity writes it in the session data; `{Input Name}` stands for that input's value. */
  readonly variable: string;
  readonly description?: string;
}

export interface ErrorEventSpec {
  /** The spec's name of the error boundary event, as a definition's `errorEvents` key. */
  readonly name: string;
  /** The error the activity raises (Lambda error type or SendTaskFailure `error`); a `Catch` matches it. */
  readonly aslError: string;
  /**
   * The family's error code for it (camelCase, `failedFaceMatch`): what a BPMN error boundary
   * event's `bpmn:error errorCode` names. Unique within the activity.
   */
  readonly code: string;
  /**
   * The family's PascalCase code where its real exports show one that is not `code` with a
   * capital first letter (`ExceededCustomDataFormRetake` for a data form's Max Attempts
   * Exceeded). A boundary event matches `familyCode`, `code`, or `code` with its first letter
   * capitalised (`FailedFaceMatch`); the exporter writes `familyCode` when there is one.
   */
  readonly familyCode?: string;
  /** Step Functions errors the same route also catches. */
  readonly alsoCatches?: readonly string[];
  readonly description?: string;
}

export type ActivityKind = 'service' | 'user' | 'decider';

export interface ActivitySpec {
  readonly type: string;
  readonly displayName: string;
  readonly kind: ActivityKind;
  readonly description: string;
  readonly inputs: readonly InputSpec[];
  readonly rules: readonly InputRule[];
  readonly outputs: readonly OutputSpec[];
  readonly errorEvents: readonly ErrorEventSpec[];
  /**
   * Failures of this activity that no error event routes (a data form the step names is gone):
   * the step fails under the name and the instance ends COMPLETED_PROCESS_ERROR. Besides these
   * and its error events' `aslError`s, an activity raises only the STEP_FAILURES every step may.
   */
  readonly failures?: readonly string[];
  /** Its names in the family's designer and BPMN. */
  readonly family: FamilyNames;
  /**
   * A check that no engine this service has can judge (document authenticity the family buys
   * from vendors): publishing the step is refused unless its `accept` input is true (the
   * definition accepts that it runs as NOT_ASSESSED) or its `threshold` input is -1 (bypassed).
   */
  readonly notAssessed?: { readonly accept: string; readonly threshold: string };
}

/** Failures any step may raise, found before its own code runs (run.ts, inputs.ts); no event routes them. */
export const STEP_FAILURES = ['InvalidInput', 'MissingInput', 'UnresolvedReference'] as const;

/**
 * The names an activity may raise: its error events' ASL names, its own `failures`, and the
 * STEP_FAILURES. A name outside them does not type-check (contract.ts `activityError`).
 */
export type ErrorNameOf<S extends ActivitySpec> =
  | S['errorEvents'][number]['aslError']
  | (S extends { readonly failures: readonly (infer F extends string)[] } ? F : never)
  | (typeof STEP_FAILURES)[number];

// ---------------------------------------------------------------------------------------------
// Typed inputs

type ValueOf<T extends InputType> = T extends 'S'
  ? string
  : T extends 'I' | 'N'
    ? number
    : T extends 'B'
      ? boolean
      : T extends 'L'
        ? readonly string[]
        : T extends 'M'
          ? Readonly<Record<string, string>>
          : DataForm;

/** An input always has a value once resolved when it is required or has a default. */
type Always<I extends InputSpec> = I extends { readonly required: true } ? true : I extends { readonly default: InputDefault } ? true : false;

/**
 * The inputs a run function receives: references resolved, defaults applied, required inputs
 * present (resolution fails the activity otherwise), each typed by the spec.
 */
export type InputsOf<S extends ActivitySpec> = {
  readonly [I in S['inputs'][number] as I['name']]: Always<I> extends true ? ValueOf<I['type']> : ValueOf<I['type']> | undefined;
};

// ---------------------------------------------------------------------------------------------
// Builders for the inputs many activities share

/** Every user step has this input: the compiled task's `TimeoutSeconds`. */
/**
 * The ASL error name of a failure that may pass if the step runs again a little later: a throttle
 * or a timeout of an AWS call (after the SDK's own retries), a service's 5xx, a dropped
 * connection. Every Task state retries it with backoff and jitter (statemachines/compile.ts);
 * only when those retries are used up does it fail the step, which an error boundary event can
 * then route like any other error.
 */
export const TRANSIENT_ERROR = 'Activity.Transient';

export const STEP_TIMEOUT_INPUT = 'Step Timeout (Seconds)';
export const STEP_TIMEOUT_DEFAULT = 1800;
/** 28 days: the longest a push notification lives, and far inside the instance's retention. */
export const STEP_TIMEOUT_MAX = 2_419_200;

export const stepTimeout = {
  name: STEP_TIMEOUT_INPUT,
  type: 'I',
  required: false,
  default: STEP_TIMEOUT_DEFAULT,
  min: 60,
  max: STEP_TIMEOUT_MAX,
  references: false,
  description:
    'How long the end user has for this step. When it passes the task fails with States.Timeout (the instance times out unless a route catches it).',
} as const satisfies InputSpec;

export const VARIABLE_NAME = '^[A-Za-z_][A-Za-z0-9_]{0,63}$';
export const VARIABLE_NAME_MESSAGE = 'must be a variable name: 1 to 64 letters, digits or _, not starting with a digit';

/**
 * A key under which an activity stores its result in the session data. (Property order is the
 * catalogue's JSON order, which its snapshot pins.)
 */
/**
 * The family's screen inputs, on every user step of its designer: which of the step's screens
 * its hosted UI shows (`screens`), the one it starts at (`stepId`) and the UI component
 * (`screenId`). This service's pages choose their own screens, so on a user step they are taken
 * and kept with the step's inputs; the switch-device step reads them to know its direction. The
 * catalogue adds them to every user step's inputs (statemachines/catalogue.ts).
 */
export const SCREEN_INPUTS: readonly InputSpec[] = [
  { name: 'UI Component Id', type: 'S', required: false, references: false, description: "The family's UI component of the step (its hosted UI's screen id): kept, not used by this service's pages.", family: { name: 'screenId' } },
  { name: 'List of Screens', type: 'L', required: false, description: "The screens of the step in the family's hosted UI: kept, not used by this service's pages.", family: { name: 'screens' } },
  { name: 'Starting component ID', type: 'S', required: false, references: false, description: "The screen the family's hosted UI starts the step at: kept, not used by this service's pages.", family: { name: 'stepId' } },
];

export function key<const N extends string, const D extends string | undefined = undefined>(name: N, defaultValue?: D, description?: string) {
  return {
    name,
    type: 'S',
    required: true,
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
    pattern: VARIABLE_NAME,
    patternMessage: VARIABLE_NAME_MESSAGE,
    ...(description ? { description } : {}),
  } as { readonly name: N; readonly type: 'S'; readonly required: true; readonly default: D; readonly pattern: string; readonly patternMessage: string };
}

/** A string input. */
export function s<const N extends string, const R extends boolean, const D extends string | undefined = undefined>(
  name: N,
  required: R,
  defaultValue?: D,
  description?: string,
) {
  return {
    name,
    type: 'S',
    required,
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
    ...(description ? { description } : {}),
  } as D extends string
    ? { readonly name: N; readonly type: 'S'; readonly required: R; readonly default: D }
    : { readonly name: N; readonly type: 'S'; readonly required: R };
}

export const userExternalId = s('User External ID', false, undefined, 'Look the user up by external ID.');
export const userId = s('User ID', false, undefined, 'Look the user up by user ID.');
export const userKey = key('User Key', 'user1', 'Where the user is kept in the session (vars.{User Key}).');
export const storeName = s('Store Name', true, undefined, 'The identity store.');

/** At most one of User ID and User External ID (a user kept under User Key is used otherwise). */
export const oneUserLookup = { kind: 'groups', groups: [['User ID'], ['User External ID']], min: 0, max: 1 } as const satisfies InputRule;
