/**
 * What an activity module implements besides its spec: the run function of a service step, the
 * screens and the submission of a user step, and the AWS access either needs. The activity
 * function (run.ts) and the journey pages (functions/journey/) call modules only through these
 * types.
 */
import { ApiError } from '../errors.js';
import { isTransientError } from '../shared/aws-errors.js';
import type { AwsAccess } from '../http/route.js';
import type { StepRefusal, CheckRecord, CustomDataFormStore, ImageRecord, InstanceImageStore, InstancePauseStore, ProcessInstanceStore, ReviewStore } from '../process-manager/model.js';
import type { FaceUploadKey } from '../process-manager/instances/face-uploads.js';
import type { IdentityEventStore, IdentityStores, PasskeyStore } from '../identity-store/model.js';
import type { CloudFunctionLogStore, CloudFunctionStore, CloudSecretSealer, CloudSecretStore, FunctionRunner } from '../cloud-functions/model.js';
import type { FaceEngine, FaceLivenessService, FaceLivenessSessionStore, LivenessChallengeStore, WatchlistStore } from '../faces/model.js';
import type { DocumentEngine, DocumentServices } from '../documents/model.js';
import type { WebhookStore } from '../webhooks/model.js';
import type { CustomPageStore } from '../theme-server/model.js';
import type { EventEnvelope } from '../shared/events.js';
import type { ScreenContext } from '../journey/screen-context.js';
import { TRANSIENT_ERROR, type ActivitySpec, type ErrorNameOf, type InputsOf } from './spec.js';

export { TRANSIENT_ERROR };

/** The execution's state: the instance's session data (see statemachines/compile.ts). */
export type Session = Record<string, unknown> & {
  instance: { tenantId: string; processInstanceId: string; processDefnId?: string; processDefnName?: string; processDefnVersion?: number };
  parameters?: Record<string, string>;
  vars?: Record<string, unknown>;
  _checks?: Record<string, unknown>;
  _faces?: Record<string, unknown>;
};

/**
 * An activity's failure under an ASL error name: an error boundary event of the activity
 * catches it by that name (`ExtIdNotUnique`); one no event catches fails the execution, which
 * ends the instance COMPLETED_PROCESS_ERROR with the name and message recorded.
 *
 * The message becomes the Cause Step Functions keeps in the execution's history for 90 days
 * (and `_lastError.Cause`), whatever the instance's retention: it must name no value the end
 * user or the relying party gave (an external id, a form value), only the definition's own
 * names (activity ids, inputs, keys, store and policy names).
 */
export class ActivityError extends Error {
  constructor(
    override readonly name: string,
    message: string,
  ) {
    super(message);
  }
}


/**
 * A module's failure, by a name its spec declares (an error event's `aslError`, one of its
 * `failures`, or a STEP_FAILURE): raising an undeclared name is a type error, so every error a
 * module can raise is one a definition can see in the catalogue.
 */
export function activityError<S extends ActivitySpec>(_spec: S, name: ErrorNameOf<S>, message: string): ActivityError {
  return new ActivityError(name, message);
}

/** A transient failure (see TRANSIENT_ERROR); modules may throw it themselves for their own calls. */
export class TransientActivityError extends ActivityError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(TRANSIENT_ERROR, message);
    if (options && 'cause' in options) this.cause = options.cause;
  }
}

/**
 * An error as the state machine should see it: an ApiError from the domain renamed
 * (`STORE_NOT_FOUND` → `StoreNotFound`), a transient AWS error (throttle, timeout, 5xx) as
 * TRANSIENT_ERROR, anything else as it is.
 */
export function asActivityError(err: unknown): unknown {
  if (err instanceof ActivityError) return err;
  if (isTransientError(err)) {
    const e = err as { name?: unknown; message?: unknown };
    return new TransientActivityError(`${String(e.name)}: ${String(e.message)}`, { cause: err });
  }
  if (!(err instanceof ApiError)) return err;
  const name = err.code.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());
  return new ActivityError(name, err.message);
}

/**
 * The stores and engines a run or begin function works with. It takes them from its context,
 * never from a module: the entry point that runs activities puts them together
 * (functions/activities/deps.ts for the activity function), and a test can give its own.
 */
export interface ActivityDeps {
  readonly identityStores: IdentityStores;
  readonly customDataForms: Pick<CustomDataFormStore, 'get' | 'getVersion' | 'versionsOf'>;
  readonly customPages: Pick<CustomPageStore, 'get' | 'getVersion' | 'versionsOf'>;
  readonly cloudFunctions: CloudFunctionStore;
  readonly cloudSecrets: CloudSecretStore;
  readonly cloudFunctionLogs: CloudFunctionLogStore;
  readonly secretSealer: CloudSecretSealer;
  readonly functionRunner: FunctionRunner;
  readonly faces: Pick<FaceEngine, 'name' | 'detect' | 'compare' | 'search' | 'template'>;
  /** Reads identity documents (the embedded engine, or Textract where the deployment chooses it). */
  readonly documents: DocumentEngine;
  /** A tenant's own licensed document service (Regula Document Reader), where a step's Service ID names its cloud secret. */
  readonly documentServices: DocumentServices;
  readonly watchlists: WatchlistStore;
  readonly images: Pick<InstanceImageStore, 'getAtMost' | 'uploadUrl' | 'put'>;
  /** What service steps keep beside the instance: user data (a step's values, checks), failed attempts, a redirect. */
  readonly instances: Pick<ProcessInstanceStore, 'putUserData' | 'listUserData' | 'countFailedAttempt' | 'setRedirect'>;
  /** Where a face capture's image is kept, and where an external face upload goes. */
  readonly faceCaptureKey: (tenantId: string, id: string, faceKey: string, captureId: string, extension: 'jpg' | 'png') => string;
  /** Where a face template made of a capture is kept (Face Template Generation), beside the capture. */
  readonly faceTemplateKey: (tenantId: string, id: string, faceKey: string, captureId: string) => string;
  /** Where a document capture's image is kept (Capture Document Image; read by the document service steps). */
  readonly documentCaptureKey: (tenantId: string, id: string, docKey: string, captureId: string, extension: 'jpg' | 'png') => string;
  readonly faceUploadKey: FaceUploadKey;
  /**
   * A small upright JPEG of a JPEG or PNG, at most `maxSide` px on its longer side, at `quality`
   * (1 to 100), for a page to show inline; one that does not decode throws (FaceImageRefusedError).
   */
  readonly thumbnail: (bytes: Uint8Array, maxSide: number, quality: number) => { jpeg: Buffer; width: number; height: number };
  readonly webhooks: Pick<WebhookStore, 'get'>;
  readonly outbox: { put(event: EventEnvelope): Promise<void> };
  /** The instance as the review steps read and change it: its review, and its status REVIEW. */
  readonly reviews: Pick<ProcessInstanceStore, 'get' | 'setStatus'> & Pick<ReviewStore, 'requireReview'>;
  /** Pause Instance pauses the instance; Waiting for Resume marks where its resume is due. */
  readonly pauses: Pick<InstancePauseStore, 'getRecord' | 'pause' | 'markWaiting'>;
}

/** What a service activity's run function is given. */
export interface ServiceContext<S extends ActivitySpec> {
  activityId: string;
  inputs: InputsOf<S>;
  session: Session;
  tenantId: string;
  /** Who acts in events the step causes: the journey. */
  actor: string;
  now: Date;
  /** A user step's time (its timer, else its Step Timeout), in seconds, where the state machine says it. */
  timeoutSeconds?: number;
  /** When the instance's data expires (epoch seconds), for items the step writes beside it. */
  expiresAt?: number;
  /** Its stores and engines. */
  deps: ActivityDeps;
}

/** A service activity: returns the whole new session state. Domain errors fail the step under their stable name. */
export type ServiceRun<S extends ActivitySpec> = (ctx: ServiceContext<S>) => Promise<Session>;

/**
 * A user step's start, in the activity function, before the journey waits: given the resolved
 * inputs, returns the inputs the step records for its screens and submission (for example with
 * the data form it names read from the form store). Its AWS calls are the module's `aws`; a
 * failure fails the step under its name, as a service step's would.
 */
export type StepBegin<S extends ActivitySpec> = (ctx: ServiceContext<S>) => Promise<Record<string, unknown>>;

/** The session with `vars.{key}` set. */
export function withVar(session: Session, key: string, value: unknown): Session {
  return { ...session, vars: { ...(session.vars ?? {}), [key]: value } };
}

/** The session with `_checks.{key}` set (the short form the decider reads). */
export function withCheck(session: Session, key: string, check: Record<string, unknown>): Session {
  return { ...session, _checks: { ...(session._checks ?? {}), [key]: check } };
}

/**
 * The AWS access a module's code needs in the activity function (on top of what every user step
 * needs to record where the journey waits). The function's role is the union over all modules.
 */
export type ActivityAccess = Pick<AwsAccess, 'table' | 'images' | 'faces' | 'documents' | 'pagesOrigin'> & {
  /** Run tenant functions: invoke the runner Lambda, and unseal the cloud secrets a step gives them. */
  cloudFunctions?: true;
  /** Unseal the cloud secrets a step names (a tenant's service configuration), with no runner. */
  cloudSecrets?: true;
  /** Run the embedded face model in the function (on AWS, its layer and the memory it needs): no AWS action. */
  faceModel?: true;
};

/**
 * The stores and engines a user step's screens and submission may work with. A module names the
 * ones it uses (`Screens<typeof spec, 'identityStores'>`) and finds them in its view; each
 * journey route's entry point gives the ones its steps name (a route giving fewer does not
 * type-check), so a route's bundle holds only the stores its steps use.
 */
export interface StepDeps {
  readonly identityStores: IdentityStores & { readonly events: IdentityEventStore; readonly passkeys: PasskeyStore };
  readonly faces: Pick<FaceEngine, 'name' | 'detect' | 'liveness' | 'measureChallenge'>;
  /** The active liveness challenges of capture steps (Liveness Check ACTIVE), and the frames taken. */
  readonly livenessChallenges: LivenessChallengeStore;
  /** Rekognition Face Liveness where the deployment has it (Liveness Check REKOGNITION), and the sessions its capture steps started. */
  readonly faceLiveness: () => FaceLivenessService | undefined;
  readonly faceLivenessSessions: FaceLivenessSessionStore;
  readonly images: Pick<InstanceImageStore, 'put'>;
  readonly faceCaptureKey: ActivityDeps['faceCaptureKey'];
  readonly documentCaptureKey: ActivityDeps['documentCaptureKey'];
  /** Where a page or PDF of an additional document is kept (Capture Additional Document v3). */
  readonly additionalDocumentKey: (tenantId: string, id: string, addDocKey: string, documentId: string, captureId: string, extension: 'jpg' | 'png' | 'pdf') => string;
}

/** A user step's screen, as the journey pages render it, with the stores its module names. */
export type StepView<S extends ActivitySpec, D extends keyof StepDeps = never> = ScreenContext & { inputs: InputsOf<S>; deps: Pick<StepDeps, D> };

export type ScreenRender<S extends ActivitySpec, D extends keyof StepDeps = never> = (view: StepView<S, D>) => string | Promise<string>;

/**
 * A user step's screens: the UI component it shows when the step has no `Starting Component ID`
 * input, and a renderer per component it can show.
 */
export interface Screens<S extends ActivitySpec, D extends keyof StepDeps = never> {
  component: string;
  render: Readonly<Record<string, ScreenRender<S, D>>>;
  /**
   * The end user does not act on this step's page (it only waits): a redirect the journey
   * recorded (Redirect User) is followed there instead, as it is for a step with no screen.
   */
  waits?: true;
}

/**
 * Which of the journey pages' submission routes a user step's page posts to; `resume`: the step
 * has no page to post, and the resume of a pause completes it (functions/journey/resume.ts).
 */
export type SubmissionPart = 'form' | 'face' | 'passcode' | 'passkey' | 'resume';

/** What the end user sent: a form's fields, or a `multipart/form-data` upload. */
export interface SubmissionRequest {
  body?: Record<string, string>;
  upload?: { contentType: string; bytes: Buffer };
}

/** The step is done: what resumes the journey, and what the user data API keeps of it. */
export interface StepCompletion {
  /** Merged over the session as it was when the step began; the execution resumes with it. */
  result: Record<string, unknown>;
  /** What the end user gave, as `userdata` shows it, and under which key. */
  values: Record<string, unknown>;
  dataKey: string;
  check?: CheckRecord;
  images?: ImageRecord[];
}

/** The step ends with one of its error events: the ASL error name its `Catch` matches, and why. */
export interface StepFailure {
  error: string;
  cause: string;
}

/**
 * A submission's outcome: the step completes, it is refused (kept on the step, and the browser
 * is sent to the step's page, which shows what to fix: the back button then never posts again),
 * its page comes back at once (400: the passcode and passkey screens, whose page carries a fresh
 * challenge), or the step raises an error event (the end user asked to retake, or ran out of attempts).
 */
export type StepOutcome = { complete: StepCompletion } | { refused: Omit<StepRefusal, 'at'> } | { page: string } | { fail: StepFailure };

export interface Submission<S extends ActivitySpec, D extends keyof StepDeps = never> {
  part: SubmissionPart;
  // A property, not a method: its parameter is then checked strictly, so a route that gives fewer stores than a step names does not type-check.
  submit: (view: StepView<S, D>, request: SubmissionRequest, now: Date) => Promise<StepOutcome>;
}
