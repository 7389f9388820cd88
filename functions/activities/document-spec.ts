/**
 * The inputs the family's document checks share, and the spec of an authenticity detection, as
 * plain data (a leaf, as spec.ts is: the spec index reads it without any runtime code).
 */
import { key, VARIABLE_NAME, VARIABLE_NAME_MESSAGE, type ActivitySpec, type InputSpec } from './spec.js';

export const docKey = {
  ...key('Document Key', 'doc1', 'The Doc Key of the capture steps whose images are checked.'),
  family: { name: 'docKey' },
} as const;

export const maxAttempts = {
  name: 'Max Attempts',
  type: 'I',
  required: false,
  default: 3,
  min: 1,
  max: 100,
  description:
    'Failed checks beyond this raise the "Exceeded" error (or, without Exception On Max Attempts Exceeded, let the journey go on with the check failed). An attempt is one capture: the same image checked again does not count twice.',
  family: { name: 'maxAttempts' },
} as const satisfies InputSpec;

export const exceptionOnMaxAttempts = {
  name: 'Exception On Max Attempts Exceeded',
  type: 'B',
  required: false,
  default: true,
  description: 'True: a failure beyond Max Attempts raises the "Exceeded" error. False: the step ends with the check failed and the journey goes on (gateways and the decider read the check).',
  family: { name: 'exceptionOnMaxAttemptsExceeded', label: 'Exception Max Attempts' },
} as const satisfies InputSpec;

export const errorScreen = {
  name: 'Error navigation screen',
  type: 'S',
  required: false,
  references: false,
  description: "The screen of the capture step the family's hosted UI returns to after a failure (`preview`, `capture`, `instructions`). This service's capture page, when the failure's route leads back to it, opens at its capture with the reason shown.",
  family: { name: 'errorScreen' },
} as const satisfies InputSpec;

export const serviceId = {
  name: 'Service ID',
  type: 'S',
  required: false,
  description: "The family's vendor service for the check (`idlive-doc-v2-2-0`, `docprocessor-regula-71`): recorded in the check; the engine is chosen by the deployment and tenant (docs/documents.md).",
  family: { name: 'serviceID' },
} as const satisfies InputSpec;

export const imageProfile = <const D extends 'Cropped' | 'Uncropped'>(defaultValue: D) =>
  ({
    name: 'Image Profile',
    type: 'S',
    required: false,
    default: defaultValue,
    enum: ['Cropped', 'Uncropped'],
    description: 'Cropped: the check looks at the document cut out of the photo (found by its edges). Uncropped: at the whole photo.',
    family: { name: 'imageProfile' },
  }) as const satisfies InputSpec;

/** What each detection is, for its spec and its check. */
export interface DetectionDefinition<T extends string, F extends string, E extends string, O extends string> {
  type: T;
  displayName: string;
  bean: string;
  palette: string;
  /** What it detects, for the description. */
  what: string;
  /** The check's key under `_checks.documents.{Document Key}`. */
  check: string;
  imageProfile: 'Cropped' | 'Uncropped';
  /** The output variable, unless Result Output Variable Name names another. */
  output: O;
  failed: { aslError: F; code: string; name: string };
  exceeded: { aslError: E; code: string; name: string };
  /** Whether an engine of this service judges it; otherwise it needs Accept Not Assessed. */
  assessed: boolean;
  /** Whether the family's step has the Pipeline and Result Output Variable Name inputs. */
  idlive: boolean;
}

/**
 * The spec of an authenticity detection: Document Key, Image Profile, Detection Threshold (-1
 * bypasses it), Max Attempts and its exception, the family's vendor inputs, and, for a check no
 * engine here judges, Accept Not Assessed.
 */
export function detectionSpec<const T extends string, const F extends string, const E extends string, const O extends string>(d: DetectionDefinition<T, F, E, O>) {
  const inputs: InputSpec[] = [
    docKey,
    imageProfile(d.imageProfile),
    {
      name: 'Detection Threshold',
      type: 'N',
      required: false,
      default: 0.5,
      min: -1,
      max: 1,
      description:
        `The score (0 to 1) at or above which ${d.what} is taken as detected. -1 bypasses the check: it is recorded as BYPASSED and the step passes. The family's files give their vendor's thresholds; this service's score is its own engine's (docs/documents.md, "Thresholds").`,
      family: { name: 'detectionThreshold' },
    },
    maxAttempts,
    exceptionOnMaxAttempts,
    errorScreen,
    serviceId,
    ...(d.idlive
      ? [
          { name: 'Pipeline', type: 'S', required: false, description: "The family's vendor pipeline: recorded in the check.", family: { name: 'pipeline' } } as const,
        ]
      : []),
    {
      name: 'Result Output Variable Name',
      type: 'S',
      required: false,
      default: d.output,
      references: false,
      pattern: VARIABLE_NAME,
      patternMessage: VARIABLE_NAME_MESSAGE,
      description: `The process variable set to true when ${d.what} is detected, false otherwise (not set when bypassed or not assessed).`,
      family: { name: 'resultOutputVariableName' },
    },
    ...(d.assessed
      ? []
      : [
          {
            name: 'Accept Not Assessed',
            type: 'B',
            required: false,
            default: false,
            references: false,
            description:
              `No engine of this service can judge ${d.what}. True: the definition accepts that the step records the check as NOT_ASSESSED (visible in the checks, and an error route for the decider's Decision on Any Failure) and goes on. False: the definition is refused at publish unless Detection Threshold is -1.`,
          } as const,
        ]),
  ];
  return {
    type: d.type,
    displayName: d.displayName,
    kind: 'service',
    description: `Judges whether the captured document shows ${d.what}: the score, the threshold and the engine go into the check \`_checks.documents.{Document Key}.${d.check}\`. A detection raises "${d.failed.name}", or "${d.exceeded.name}" once failed attempts exceed Max Attempts.`,
    inputs,
    rules: [],
    outputs: [
      { name: 'Detected', variable: '{Result Output Variable Name}', description: 'true or false' },
      { name: 'Check', variable: `_checks.documents.{Document Key}.${d.check}`, description: '{result: "PASS" | "FAIL" | "BYPASSED" | "NOT_ASSESSED", score, threshold, engine}' },
    ],
    errorEvents: [
      { name: d.failed.name, aslError: d.failed.aslError, code: d.failed.code, description: `${d.what} was detected.` },
      { name: d.exceeded.name, aslError: d.exceeded.aslError, code: d.exceeded.code, description: 'Failed attempts exceed Max Attempts (with Exception On Max Attempts Exceeded).' },
    ],
    family: { beans: [d.bean], palette: d.palette },
    ...(d.assessed ? {} : { notAssessed: { accept: 'Accept Not Assessed', threshold: 'Detection Threshold' } }),
  } as const satisfies ActivitySpec;
}
