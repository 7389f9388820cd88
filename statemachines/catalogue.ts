/**
 * The activity catalogue: every activity type a process definition may use, as plain data.
 * Each activity is a module in functions/activities/ that declares its spec next to its run
 * function, screens and submission; the catalogue is the list of those specs (the generated
 * activity index), in the order of the modules' file names. `validate.ts` enforces what is
 * written there; `compile.ts` reads the kind (service task, user task, decider) and the error
 * events' ASL error names.
 *
 * Input names are the spec's parameter display names, so a definition reads like the process
 * designer's configuration. Defaults: the spec writes `${60}` for the literal 60; it is stored as
 * 60. A default such as `${_pollingUrl}` is a reference to session data and stays a string (see
 * references.ts).
 */
import { SPECS } from '../functions/activities/specs/index.generated.js';
import { SCREEN_INPUTS, type ActivitySpec } from '../functions/activities/spec.js';

export type {
  ActivityKind,
  ActivitySpec,
  ErrorEventSpec,
  InputRule,
  InputSpec,
  InputType,
  OutputSpec,
} from '../functions/activities/spec.js';
export { STEP_TIMEOUT_DEFAULT, STEP_TIMEOUT_INPUT, STEP_TIMEOUT_MAX } from '../functions/activities/spec.js';

/** A user step with the family's screen inputs it does not declare itself (spec.ts SCREEN_INPUTS). */
function withScreenInputs(spec: ActivitySpec): ActivitySpec {
  if (spec.kind !== 'user') return spec;
  const loose = (name: string) => name.toLowerCase().replace(/\s+/g, ' ');
  const missing = SCREEN_INPUTS.filter(
    (i) => !spec.inputs.some((own) => loose(own.name) === loose(i.name) || (own.family?.name !== undefined && own.family.name === i.family?.name)),
  );
  return missing.length === 0 ? spec : { ...spec, inputs: [...spec.inputs, ...missing] };
}

export const CATALOGUE: readonly ActivitySpec[] = SPECS.map(withScreenInputs);

/** Every activity type, as a union: `'ADD_USER' | 'CAPTURE_FACE_IMAGE' | ...`. */
export type ActivityType = (typeof SPECS)[number]['type'];

export const ACTIVITY_TYPES: readonly ActivityType[] = SPECS.map((a) => a.type);

const BY_TYPE = new Map<string, ActivitySpec>(CATALOGUE.map((a) => [a.type, a]));

export function activitySpec(type: string): ActivitySpec | undefined {
  return BY_TYPE.get(type);
}

/** Activity type → error event name → ASL error name. */
export const ERROR_EVENT_ASL_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = Object.fromEntries(
  CATALOGUE.filter((a) => a.errorEvents.length > 0).map((a) => [a.type, Object.fromEntries(a.errorEvents.map((e) => [e.name, e.aslError]))]),
);

/** The ASL error name of an activity type's error event, or undefined when it has no such event. */
export function aslErrorName(type: string, eventName: string): string | undefined {
  return activitySpec(type)?.errorEvents.find((e) => e.name === eventName)?.aslError;
}

/** Every error an activity may raise to take an error route, sorted, each once. */
export function listErrorNames(): string[] {
  return [...new Set(CATALOGUE.flatMap((a) => a.errorEvents.map((e) => e.aslError)))].sort();
}
