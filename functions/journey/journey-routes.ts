import * as z from '../shared/zod.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { error } from '../http/responses.js';
import { MAX_FACE_IMAGE_BYTES, MIN_FACE_IMAGE_SIDE } from './face-limits.js';
import { MAX_DOCUMENT_IMAGE_BYTES, MIN_DOCUMENT_IMAGE_SIDE } from './document-limits.js';

const InstancePath = z.strictObject({ processInstanceId: z.string().check(z.uuid('must be a process instance id')) });
const StepPath = z.strictObject({
  processInstanceId: z.string().check(z.uuid('must be a process instance id')),
  activityId: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be an activity id')),
});
const JourneyQuery = z.object({
  c: z.string().check(z.regex(/^[A-Za-z0-9_-]{20,100}$/, 'must be the capability of the journey link')),
  lang: z.optional(z.string().check(z.maxLength(35))),
});
const ResumeQuery = z.object({
  r: z.string().check(z.regex(/^[A-Za-z0-9_-]{20,100}$/, 'must be the secret of the resume URL')),
  lang: z.optional(z.string().check(z.maxLength(35))),
});
const FormBody = z.record(z.string().check(z.maxLength(100)), z.string().check(z.maxLength(10_000)));
const page = (description: string) => ({ description, contentType: 'text/html', schema: z.string() });

/**
 * The hosted journey pages at the redirect URL, for end users: HTML, authorised by the
 * capability in the link. Part of the route table (functions/routes.ts).
 */
export const journeyRoutes = {
  showJourney: defineRoute({
    operationId: 'showJourney',
    method: 'GET',
    path: '/journey/{processInstanceId}',
    handler: 'functions/journey/show-journey.ts',
    auth: 'endUser',
    html: true,
    summary: 'The end user page of a journey: the step it waits at, or its end',
    description:
      'The redirect URL of instance creation. The first visit makes the instance ACTIVE. `lang` picks the language ' +
      '(en, de), else the Accept-Language header, else English.',
    tag: 'Journey pages',
    request: { path: InstancePath, query: JourneyQuery },
    responses: { 200: page('The page.'), 400: page('A malformed link.'), 404: page('An unknown, wrong or expired link.') },
    // sendTask, DeleteItem: the computer's page takes a journey back from a phone at a Switch Device step and completes it.
    aws: { table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'], stateMachines: 'sendTask' },
  }),
  submitJourneyStep: defineRoute({
    operationId: 'submitJourneyStep',
    layerPackages: ['re2-wasm', 'awesome-phonenumber'],
    method: 'POST',
    path: '/journey/{processInstanceId}/steps/{activityId}',
    handler: 'functions/journey/submit-journey-step.ts',
    auth: 'endUser',
    html: true,
    summary: "Submit a step's form; checked on the server, then the journey resumes",
    description:
      "A refused submission is kept on the step and answered 303 to the journey page, which shows its messages and the values as typed " +
      '(post, redirect, get). The passcode and passkey screens answer 400 with their page again.',
    tag: 'Journey pages',
    request: { path: StepPath, query: JourneyQuery, body: FormBody, form: true },
    responses: {
      303: { description: 'Accepted, or refused (the journey page then shows what to correct): on to the journey page.' },
      400: page('The form again, with what to correct (screens whose page carries a fresh challenge).'),
      404: page('An unknown, wrong or expired link.'),
      409: page('The journey is not waiting at this step (already submitted, or moved on).'),
      413: page("Too large: the body is over the route's limit, or what it holds would make the journey's session larger than 192 KiB (SESSION_TOO_LARGE); the step keeps waiting."),
      503: page('Step Functions throttled or did not confirm the hand-over (SERVICE_UNAVAILABLE, with Retry-After): the step still waits; sending again completes it.'),
    },
    // endTask: a data form step can also end by its Retake or Max Attempts Exceeded error event.
    aws: { table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'], stateMachines: 'endTask' },
  }),
  submitFaceCapture: defineRoute({
    operationId: 'submitFaceCapture',
    method: 'POST',
    path: '/journey/{processInstanceId}/steps/{activityId}/face',
    handler: 'functions/journey/submit-face-capture.ts',
    auth: 'endUser',
    html: true,
    summary: 'Submit the image of a Capture Face Image or Capture Document Image step',
    description:
      'A `multipart/form-data` post with the image in the `image` field: the camera capture (the page puts it there) or a ' +
      `chosen file. The image is checked by its bytes (JPEG or PNG), at most ${MAX_FACE_IMAGE_BYTES} bytes and at least ` +
      `${MIN_FACE_IMAGE_SIDE} pixels on its shorter side, and stored in S3 under the tenant and instance. \`consent=yes\` is required ` +
      "under the step's Require Consent (else CONSENT_REQUIRED), `source=camera` (the page's camera mark) under Require Live Camera " +
      '(else FACE_UPLOAD_NOT_ALLOWED). A document side (Capture Document Image) is at most ' +
      `${MAX_DOCUMENT_IMAGE_BYTES} bytes and at least ${MIN_DOCUMENT_IMAGE_SIDE} pixels on its shorter side; \`action=change\` instead ` +
      'ends that step with `changeDocument` true. A refused photo is answered 303 to the journey page, which says why (its code in `data-refusal`). ' +
      'Under Liveness Check ACTIVE the photo comes with its challenge\'s answer: `challenge` (the nonce of startLivenessChallenge), one `frame` ' +
      'file per time of its schedule (JPEG or PNG, at most 96 KiB and the plan\'s frameMaxSide pixels), and `frameTimes` (the times they were taken, ' +
      'comma-separated milliseconds); a missing, unknown or expired challenge, one already answered, or frames off the schedule are refused ' +
      '(LIVENESS_CHALLENGE_REQUIRED, LIVENESS_CHALLENGE_EXPIRED, LIVENESS_CHALLENGE_USED, LIVENESS_FRAMES_INVALID). `action=decline` (Offer Another Way) ' +
      'ends the step with Liveness Challenge Declined. Under Liveness Check REKOGNITION no image is sent: `livenessSession` (the id of startFaceLivenessSession) ' +
      'names the session whose result is read, once; its reference image becomes the capture. A missing or unknown session, one answered already, one ' +
      'Rekognition has not finished, or one it could not score are refused (LIVENESS_CHALLENGE_REQUIRED, LIVENESS_CHALLENGE_EXPIRED, LIVENESS_CHALLENGE_USED, ' +
      'LIVENESS_SESSION_PENDING, LIVENESS_SESSION_FAILED).',
    tag: 'Journey pages',
    request: { path: StepPath, query: JourneyQuery, multipart: true, maxBodyBytes: Math.max(MAX_FACE_IMAGE_BYTES, MAX_DOCUMENT_IMAGE_BYTES) + 64 * 1024 },
    responses: {
      303: { description: 'Accepted, or refused (the journey page then says what was wrong with the image): on to the journey page.' },
      400: page('A malformed link.'),
      404: page('An unknown, wrong or expired link.'),
      409: page('The journey is not waiting at this step (already submitted, or moved on).'),
      413: page("Too large: the body is over the route's limit, or what it holds would make the journey's session larger than 192 KiB (SESSION_TOO_LARGE); the step keeps waiting."),
      503: page('Step Functions throttled or did not confirm the hand-over (SERVICE_UNAVAILABLE, with Retry-After): the step still waits; sending again completes it.'),
    },
    // endTask: a capture with an active liveness challenge can end by its Liveness Challenge Declined error event.
    aws: {
      table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'],
      stateMachines: 'endTask',
      images: ['PutObject'],
      faces: ['DetectFaces'],
      // Liveness Check REKOGNITION: the session's result (where the deployment's region has it).
      faceLiveness: ['GetFaceLivenessSessionResults'],
    },
    // The embedded liveness model (Rekognition has no single-image liveness).
    layerPackages: ['@vladmandic/human'],
    // Its models loaded at a cold start, and an inference, want more than a route's usual size
    // (`npm run bench` prints the memory the model needs).
    lambda: { memorySize: 1024, timeoutSeconds: 29 },
  }),
  startLivenessChallenge: defineRoute({
    operationId: 'startLivenessChallenge',
    method: 'POST',
    path: '/journey/{processInstanceId}/steps/{activityId}/face/challenge',
    handler: 'functions/journey/start-liveness-challenge.ts',
    auth: 'endUser',
    summary: "A Capture Face Image step's active liveness challenge: a fresh nonce, its prompts and colours, and when to take each frame",
    description:
      "Called by the capture page's script when the end user starts the challenge (the step's Liveness Check is ACTIVE). No body. " +
      'Each call draws a new challenge: two to four prompts (turnLeft, turnRight, lookUp, blink, openMouth) in a random order, each with its ' +
      'window, and three to five screen colours, on a timeline in milliseconds from the camera\'s first frame, with the times at which the page ' +
      'takes its frames. Its frames are sent once, with the nonce, to the step\'s `face` route before `expiresAt`.',
    tag: 'Journey pages',
    request: { path: StepPath, query: JourneyQuery },
    responses: {
      200: {
        description: 'The challenge.',
        schema: z.object({
          nonce: z.string(),
          issuedAt: z.string(),
          expiresAt: z.string(),
          durationMs: z.number(),
          frameMaxSide: z.number(),
          segments: z.array(z.record(z.string(), z.unknown())),
          frames: z.array(z.number()),
        }),
      },
      400: error('A malformed link.'),
      404: error('An unknown, wrong or expired link.'),
      409: error('The journey is not waiting at a Capture Face Image step whose Liveness Check is ACTIVE.'),
    },
    aws: { table: ['GetItem', 'PutItem'] },
  }),
  startFaceLivenessSession: defineRoute({
    operationId: 'startFaceLivenessSession',
    method: 'POST',
    path: '/journey/{processInstanceId}/steps/{activityId}/face/liveness-session',
    handler: 'functions/journey/start-face-liveness-session.ts',
    auth: 'endUser',
    summary: "A Capture Face Image step's Amazon Rekognition Face Liveness session, and the browser's credentials to stream it",
    description:
      "Called by the capture page's script when the end user starts the check (the step's Liveness Check is REKOGNITION; AWS only). No body. " +
      'Creates a session in Rekognition (it lives 3 minutes), keeps its id bound to the instance and step, and answers it with the region and ' +
      'short-lived credentials (15 minutes) that allow nothing but starting that stream (rekognition:StartFaceLivenessSession). A step starts at ' +
      'most 10 sessions (LIVENESS_SESSION_LIMIT). The page then sends `livenessSession` (the id) to the step\'s `face` route, which reads the result.',
    tag: 'Journey pages',
    request: { path: StepPath, query: JourneyQuery },
    responses: {
      200: {
        description: 'The session.',
        schema: z.object({
          sessionId: z.string(),
          region: z.string(),
          challenge: z.string(),
          credentials: z.object({ accessKeyId: z.string(), secretAccessKey: z.string(), sessionToken: z.string(), expiration: z.string() }),
        }),
      },
      400: error('A malformed link.'),
      404: error('An unknown, wrong or expired link.'),
      409: error('The journey is not waiting at a Capture Face Image step whose Liveness Check is REKOGNITION.'),
      429: error('The step has started 10 sessions already (LIVENESS_SESSION_LIMIT).'),
      503: error('Rekognition or STS throttled or did not answer (SERVICE_UNAVAILABLE, with Retry-After): start again.'),
    },
    aws: { table: ['GetItem', 'PutItem', 'UpdateItem'], faceLiveness: ['CreateFaceLivenessSession', 'BrowserCredentials'] },
  }),
  submitPasscodeStep: defineRoute({
    operationId: 'submitPasscodeStep',
    layerPackages: ['re2-wasm', 'awesome-phonenumber'],
    method: 'POST',
    path: '/journey/{processInstanceId}/steps/{activityId}/passcode',
    handler: 'functions/journey/submit-passcode-step.ts',
    auth: 'endUser',
    html: true,
    summary: 'Submit a passcode screen: the SRP verifier (registration) or the SRP proof A, M1 (authentication)',
    description:
      'Sent by the page\'s script; the passcode itself is never sent. Registration: `verifier` and `historyVerifiers` ' +
      '(comma-separated), checked (1 < v < N, the history rule) and kept on the registration session for Complete Passcode ' +
      'Registration. Authentication: `A` and `M1`; a wrong passcode gets the page again with a fresh challenge, until 3 are used.',
    tag: 'Journey pages',
    request: { path: StepPath, query: JourneyQuery, body: FormBody, form: true },
    responses: {
      303: { description: 'Accepted: on to the journey page.' },
      400: page('The screen again, saying what was wrong.'),
      404: page('An unknown, wrong or expired link.'),
      409: page('The journey is not waiting at this step, or its passcode session ended.'),
      413: page("Too large: the body is over the route's limit, or what it holds would make the journey's session larger than 192 KiB (SESSION_TOO_LARGE); the step keeps waiting."),
      503: page('Step Functions throttled or did not confirm the hand-over (SERVICE_UNAVAILABLE, with Retry-After): the step still waits; sending again completes it.'),
    },
    aws: { table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'], stateMachines: 'sendTask' },
  }),
  startPasskeyCeremony: defineRoute({
    operationId: 'startPasskeyCeremony',
    method: 'POST',
    path: '/journey/{processInstanceId}/steps/{activityId}/passkey/options',
    handler: 'functions/journey/start-passkey-ceremony.ts',
    auth: 'endUser',
    summary: "A passkey screen's ceremony: its id and the WebAuthn options (a fresh, single-use challenge)",
    description: 'Called by the passkey screen\'s script when the end user presses its button. No body.',
    tag: 'Journey pages',
    request: { path: StepPath, query: JourneyQuery },
    responses: {
      200: { description: 'The ceremony.', schema: z.object({ sessionId: z.string(), publicKey: z.record(z.string(), z.unknown()) }) },
      400: error('A malformed link.'),
      404: error('An unknown, wrong or expired link, or a store or relying party the step names that is not there.'),
      409: error('The journey is not waiting at this passkey step.'),
    },
    layerPackages: ['@simplewebauthn/server'],
    aws: { table: ['GetItem', 'Query', 'PutItem'] },
  }),
  submitPasskeyStep: defineRoute({
    operationId: 'submitPasskeyStep',
    method: 'POST',
    path: '/journey/{processInstanceId}/steps/{activityId}/passkey',
    handler: 'functions/journey/submit-passkey-step.ts',
    auth: 'endUser',
    html: true,
    summary: "Submit a passkey screen: the ceremony's id and the browser's WebAuthn response",
    description: 'Sent by the page\'s script. A response that cannot be verified gets the screen again; its button starts a new ceremony.',
    tag: 'Journey pages',
    request: { path: StepPath, query: JourneyQuery, body: FormBody, form: true },
    responses: {
      303: { description: 'Accepted: on to the journey page.' },
      400: page('The screen again, saying the passkey could not be confirmed.'),
      404: page('An unknown, wrong or expired link.'),
      409: page('The journey is not waiting at this step, or its ceremony ended.'),
      413: page("Too large: the body is over the route's limit, or what it holds would make the journey's session larger than 192 KiB (SESSION_TOO_LARGE); the step keeps waiting."),
      503: page('Step Functions throttled or did not confirm the hand-over (SERVICE_UNAVAILABLE, with Retry-After): the step still waits; sending again completes it.'),
    },
    layerPackages: ['@simplewebauthn/server'],
    aws: { table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'], stateMachines: 'sendTask' },
  }),
  resumeJourney: defineRoute({
    operationId: 'resumeJourney',
    method: 'GET',
    path: '/journey/{processInstanceId}/resume',
    handler: 'functions/journey/resume-journey.ts',
    auth: 'endUser',
    html: true,
    summary: "A paused journey's resume URL (Pause Instance's `resumeUrl`): continues the journey, once, and goes on to its page",
    description:
      'Authorised by the secret in the link (`r`), compared by its hash. The pause is marked resumed, the instance is ACTIVE ' +
      'again and its Waiting for Resume step completes; the browser goes on to the journey page with a journey link of its own. ' +
      'Opened before the journey reached its Waiting for Resume step, the answer is a page that tries again by itself.',
    tag: 'Journey pages',
    request: { path: InstancePath, query: ResumeQuery },
    responses: {
      303: { description: 'Resumed: on to the journey page, with a capability for this browser.' },
      400: page('A malformed link.'),
      404: page('An unknown, wrong or expired resume link (RESUME_NOT_AVAILABLE): one answer for all three.'),
      409: page('The journey has not reached its Waiting for Resume step yet (RESUME_NOT_READY, with Retry-After): a page that reloads itself; nothing changed.'),
      410: page('The pause was resumed already (RESUME_ALREADY_USED), or the journey has ended or no longer waits for it (RESUME_EXPIRED); nothing changed.'),
    },
    // The pause marked with the status (its views and event), then the step's completion (claim, session version, user data).
    aws: { table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'], stateMachines: 'sendTask' },
  }),
  getJourneyAsset: defineRoute({
    operationId: 'getJourneyAsset',
    method: 'GET',
    path: '/journey/assets/{asset}',
    handler: 'functions/journey/get-journey-asset.ts',
    auth: 'public',
    summary: "The journey pages' own scripts (the camera capture, the passcode and passkey screens, closing a form's notifications, a form's sending state)",
    tag: 'Journey pages',
    request: {
      path: z.strictObject({ asset: z.enum(['custom-page.js', 'data-form.js', 'document-capture.js', 'face-capture.js', 'page.js', 'passcode.js', 'passkey.js']) }),
      headers: z.looseObject({
        'if-none-match': z.withMeta(z.optional(z.string()), { description: 'The ETag of a copy the browser holds: answered 304 when it is current.' }),
      }),
    },
    responses: {
      200: { description: 'The script.', contentType: 'text/javascript', schema: z.string() },
      304: { description: 'Not modified (If-None-Match matched the ETag).' },
      400: error('No such asset.'),
    },
    aws: {},
  }),
  getFaceLivenessAsset: defineRoute({
    operationId: 'getFaceLivenessAsset',
    method: 'GET',
    path: '/journey/liveness/face-liveness.js',
    handler: 'functions/journey/get-face-liveness-asset.ts',
    auth: 'public',
    summary: "The Face Liveness capture's script (Liveness Check REKOGNITION): Amazon's FaceLivenessDetectorCore with React, bundled",
    description:
      'About 1.5 MB (gzip about 430 KB, sent so when the browser accepts it), built when the stack is deployed; only where the deployment has ' +
      'Rekognition Face Liveness (else FACE_LIVENESS_NOT_AVAILABLE).',
    tag: 'Journey pages',
    request: {
      headers: z.looseObject({
        'if-none-match': z.withMeta(z.optional(z.string()), { description: 'The ETag of a copy the browser holds: answered 304 when it is current.' }),
        'accept-encoding': z.optional(z.string()),
      }),
    },
    responses: {
      200: { description: 'The script.', contentType: 'text/javascript', schema: z.string() },
      304: { description: 'Not modified (If-None-Match matched the ETag).' },
      404: error('This deployment has no Rekognition Face Liveness (FACE_LIVENESS_NOT_AVAILABLE).'),
    },
    aws: {},
    // The script, built beside the function's bundle when it is bundled (lib/liveness-asset.ts).
    bundleAsset: 'faceLiveness',
    lambda: { memorySize: 512 },
  }),
} satisfies Record<string, RouteDef>;
