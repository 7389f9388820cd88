/**
 * The one error catalogue. Every wire error code is an entry of ERRORS (status, default message,
 * headers, whether it is exposed) and of ERROR_DOCS (its line in the docs); the error classes are
 * derived from it (`apiError`), and the error table of docs/errors.md and the OpenAPI `Error.code` enum
 * are generated from it. A code outside the table does not type-check, and neither does a code
 * without its docs line.
 *
 * Only exposed errors reach the client with their message; anything else becomes a bare 500 so
 * internals never leak. A wrapped low-level error goes in the standard `cause` (ES2022): it is
 * for the log, never for the client.
 *
 * This module is in every handler bundle, so it imports nothing and ERRORS holds only what a
 * response needs; ERROR_DOCS is a separate constant that no handler reads, so the bundler drops it.
 */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 410 | 413 | 415 | 429 | 431 | 500 | 503;

export interface ErrorSpec {
  status: ErrorStatus;
  /** Used when the thrower gives none; most throwers say something more precise. */
  message: string;
  /** False: the client gets a bare INTERNAL_ERROR; the message and cause go to the log only. */
  expose?: false;
  /** Fixed response headers (every 401 carries a WWW-Authenticate challenge, RFC 9110). */
  headers?: Readonly<Record<string, string>>;
}

const BEARER = { 'WWW-Authenticate': 'Bearer' } as const;

export const ERRORS = {
  // 400: bad input.
  VALIDATION_FAILED: { status: 400, message: 'The request is not valid.' },
  MALFORMED_JSON: { status: 400, message: 'The request body is not valid JSON.' },
  BODY_TOO_DEEP: { status: 400, message: 'The request body nests objects and arrays more than 64 levels deep.' },
  MALFORMED_REQUEST: { status: 400, message: 'The request is not valid HTTP.' },
  INVALID_HOST: { status: 400, message: 'This host serves no tenant here.' },
  INVALID_STATUS_TRANSITION: { status: 400, message: 'This status change is not allowed.' },
  INVALID_VERIFIER: { status: 400, message: 'srpRegistrationData.verifier must be base64 of a number greater than 1 and less than N.' },
  PASSCODE_NOT_GIVEN: { status: 400, message: 'No passcode verifier was sent.' },
  PASSCODE_REUSED: { status: 400, message: 'This passcode was used before; choose another.' },
  PASSCODE_HISTORY_PROOF_REQUIRED: { status: 400, message: 'Send one history verifier for each earlier passcode salt.' },
  PASSKEY_VERIFICATION_FAILED: { status: 400, message: 'The passkey response could not be verified.' },
  INVALID_BPMN_DATA: { status: 400, message: 'resources.bpmn.data must be the BPMN file as base64 (RFC 4648, padded, no line breaks) of UTF-8 XML.' },
  INVALID_BPMN: { status: 400, message: 'The BPMN cannot be deployed; details name each element and why.' },
  FACE_IMAGE_UNUSABLE: { status: 400, message: 'The image is not a JPEG or PNG with exactly one usable face.' },
  WEBHOOK_URL_REFUSED: { status: 400, message: 'The webhook URL or target is not one the service sends to.' },
  STATE_MACHINE_TOO_LARGE: { status: 400, message: "The compiled state machine is over Step Functions' 1 MB definition limit." },
  INVALID_CURSOR: { status: 400, message: 'The cursor is not one this list handed out for this query.' },
  SANDBOX_NOT_FOR_TEST: { status: 400, message: 'Forced outcomes (sandbox) are taken only on a process token with forTest true.' },
  PALETTE_CONTRAST: { status: 400, message: 'The palette fails WCAG AA contrast.' },
  INVALID_THEME_ASSET: { status: 400, message: 'A theme does not take this asset.' },
  UNKNOWN_THEME: { status: 400, message: 'themeId names no theme of this tenant.' },
  BUNDLE_TOO_LARGE: { status: 400, message: 'The custom page bundle is over 15 MiB.' },
  BUNDLE_FILE_TYPE: { status: 400, message: 'The custom page bundle holds a file of a type it may not hold.' },
  BUNDLE_NO_INDEX: { status: 400, message: 'The custom page bundle has no index.html at its root.' },
  BUNDLE_UNSAFE_PATH: { status: 400, message: 'A path in the custom page bundle leaves it or is not plain.' },
  BUNDLE_LINK: { status: 400, message: 'The custom page bundle holds a link or device; only files and folders.' },
  BUNDLE_BOMB: { status: 400, message: 'The custom page bundle inflates past its caps.' },
  BUNDLE_TOO_MANY_FILES: { status: 400, message: 'The custom page bundle holds more than 1,000 files.' },
  BUNDLE_PATH_TOO_LONG: { status: 400, message: 'A path in the custom page bundle is too long or too deep.' },
  BUNDLE_DUPLICATE_PATH: { status: 400, message: 'The custom page bundle holds a path twice.' },
  BUNDLE_ENCRYPTED: { status: 400, message: 'The custom page bundle holds an encrypted entry.' },
  BUNDLE_UNREADABLE: { status: 400, message: 'The custom page bundle is not a readable .zip or .tar.gz.' },
  BUNDLE_EMPTY: { status: 400, message: 'The custom page bundle holds no files.' },
  CUSTOM_PAGE_CONTENT: { status: 400, message: 'A custom page takes exactly one of archive, uploadId or baseAppUrl.' },
  CUSTOM_PAGE_UPLOAD_UNUSABLE: { status: 400, message: 'The upload is unknown, expired, already used or empty.' },

  // 401: every one carries a challenge.
  UNAUTHORIZED: { status: 401, message: 'Authentication is required.', headers: BEARER },
  INVALID_TOKEN: {
    status: 401,
    message: 'The bearer token is missing, malformed, expired or not valid here.',
    headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
  },
  INVALID_API_KEY: { status: 401, message: 'The API key is missing or not valid for this tenant.', headers: { 'WWW-Authenticate': 'ApiKey' } },
  API_KEY_BLOCKED: { status: 401, message: 'The API key is blocked.', headers: BEARER },
  API_KEY_ARCHIVED: { status: 401, message: 'The API key is archived.', headers: BEARER },
  API_KEY_EXPIRED: { status: 401, message: 'The API key has expired.', headers: BEARER },
  API_KEY_OPERATION_NOT_PERMITTED: { status: 401, message: 'The API key is not permitted to call this operation directly.', headers: BEARER },

  // 403
  FORBIDDEN: { status: 403, message: 'This is not allowed.' },
  MISSING_PERMISSION: { status: 403, message: 'The token lacks the permission this operation needs.' },
  PERMISSION_ESCALATION: { status: 403, message: 'A key cannot be given permissions its creator does not hold.' },

  // 404
  NOT_FOUND: { status: 404, message: 'Not found.' },
  ROUTE_NOT_FOUND: { status: 404, message: 'No route matches this request.' },
  API_KEY_NOT_FOUND: { status: 404, message: 'The API key was not found.' },
  PROCESS_DEFINITION_NOT_FOUND: { status: 404, message: 'The process definition was not found.' },
  PROCESS_TOKEN_NOT_FOUND: { status: 404, message: 'The process token was not found.' },
  PROCESS_INSTANCE_NOT_FOUND: { status: 404, message: 'The process instance was not found.' },
  CUSTOM_DATA_FORM_NOT_FOUND: { status: 404, message: 'The data form was not found.' },
  CUSTOM_PAGE_NOT_FOUND: { status: 404, message: 'The custom page was not found.' },
  CLOUD_FUNCTION_NOT_FOUND: { status: 404, message: 'The cloud function was not found.' },
  THEME_NOT_FOUND: { status: 404, message: 'The theme was not found.' },
  THEME_ASSET_NOT_FOUND: { status: 404, message: 'No such theme asset.' },
  CLOUD_SECRET_NOT_FOUND: { status: 404, message: 'The cloud secret was not found.' },
  WATCHLIST_NOT_FOUND: { status: 404, message: 'The face watchlist was not found.' },
  WATCHLIST_MEMBER_NOT_FOUND: { status: 404, message: 'The watchlist member was not found.' },
  WEBHOOK_NOT_FOUND: { status: 404, message: 'The webhook was not found.' },
  JOURNEY_NOT_AVAILABLE: { status: 404, message: 'This journey link is not valid or has expired.' },
  FACE_LIVENESS_NOT_AVAILABLE: { status: 404, message: 'This deployment has no Rekognition Face Liveness.' },
  STORE_NOT_FOUND: { status: 404, message: 'The identity store was not found.' },
  USER_NOT_FOUND: { status: 404, message: 'No such user in this identity store.' },
  POLICY_NOT_FOUND: { status: 404, message: 'The policy was not found.' },
  PASSCODE_REGISTRATION_NOT_FOUND: { status: 404, message: 'No such passcode registration.' },
  RELYING_PARTY_NOT_FOUND: { status: 404, message: 'The relying party was not found.' },
  PASSKEY_NOT_FOUND: { status: 404, message: 'No such passkey for this user.' },
  PASSKEY_SESSION_NOT_FOUND: { status: 404, message: 'No such passkey ceremony: unknown, expired or already used (each challenge is good once).' },
  EVENT_QUERY_NOT_FOUND: { status: 404, message: 'No such event query: it was never started here, or it ended an hour after it started.' },
  EXPORT_NOT_FOUND: { status: 404, message: 'No such export: unknown here, of another instance or kind, or past its 7 days.' },
  RESUME_NOT_AVAILABLE: { status: 404, message: 'This resume link is not valid or has expired.' },
  TENANT_NOT_FOUND: { status: 404, message: 'The tenant does not exist.' },

  // 405
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed here.' },

  // 409
  CONFLICT: { status: 409, message: 'The request conflicts with the current state.' },
  CONCURRENT_UPDATE: { status: 409, message: 'The resource was changed by another request; read it again and retry.' },
  STEP_NOT_WAITING: { status: 409, message: 'The journey is not waiting at this step.' },
  PROCESS_INSTANCE_NOT_IN_REVIEW: { status: 409, message: 'The process instance is not in review.' },
  SWITCH_LINK_USED: { status: 409, message: 'This switch link was used already.' },
  SWITCH_LINK_EXPIRED: { status: 409, message: 'This switch link has expired.' },
  STORE_EXISTS: { status: 409, message: 'An identity store of this name exists.' },
  EXTERNAL_ID_NOT_UNIQUE: { status: 409, message: 'Another user of this store has this external id.' },
  CREDENTIAL_EXISTS: { status: 409, message: 'This credential is already registered.' },
  PROCESS_DEFINITION_EXISTS: { status: 409, message: 'This process definition version already exists; publish a new version instead.' },
  PROCESS_DEFINITION_NOT_ACTIVE: { status: 409, message: 'This process definition version is not DEPLOYED_ACTIVE.' },
  CUSTOM_DATA_FORM_EXISTS: { status: 409, message: 'This data form version already exists; add a new version instead.' },
  CUSTOM_PAGE_EXISTS: { status: 409, message: 'This custom page version already exists; add a new version instead.' },
  CLOUD_FUNCTION_EXISTS: { status: 409, message: 'This cloud function version already exists; add a new version instead.' },
  THEME_EXISTS: { status: 409, message: 'This theme version exists.' },
  THEME_NOT_EDITABLE: { status: 409, message: 'Only an EDITABLE theme version changes.' },
  THEME_ASSET_LIMIT: { status: 409, message: 'The theme holds all the assets it may.' },
  WATCHLIST_LIMIT: { status: 409, message: 'The tenant has as many face watchlists as it may.' },
  WATCHLIST_FULL: { status: 409, message: 'The face watchlist has as many members as it may hold.' },
  WEBHOOK_LIMIT: { status: 409, message: 'The tenant has as many webhooks as it may.' },
  CLOUD_SECRET_EXISTS: { status: 409, message: 'A cloud secret of this name exists; rotate it instead.' },
  PROCESS_TOKEN_NAME_TAKEN: { status: 409, message: 'A process token of this name exists in this tenant.' },
  PROCESS_TOKEN_INACTIVE: { status: 409, message: 'The process token is INACTIVE.' },
  PROCESS_TOKEN_EXHAUSTED: { status: 409, message: 'The process token has been used its maximum number of times.' },
  PROCESS_TOKEN_NOT_YET_VALID: { status: 409, message: 'The process token is not valid yet.' },
  PROCESS_TOKEN_EXPIRED: { status: 409, message: 'The process token has expired.' },
  IDEMPOTENCY_KEY_REUSED: { status: 409, message: 'This Idempotency-Key was used for a different request.' },
  INSTANCE_NOT_PAUSED: { status: 409, message: 'The instance is not paused: no Pause Instance step paused it.' },
  RESUME_NOT_READY: {
    status: 409,
    message: 'The journey has not reached its Waiting for Resume step yet; send the same request again in a moment.',
    headers: { 'Retry-After': '2' },
  },
  TENANT_EXISTS: { status: 409, message: 'The tenant already exists.' },

  // 410: what the request names existed, and is gone for good (a pause resumes once).
  RESUME_ALREADY_USED: { status: 410, message: 'This pause was already resumed; a pause resumes once.' },
  RESUME_EXPIRED: { status: 410, message: 'The journey no longer waits for this resume: it has ended, or its wait is over.' },

  // 413: a body over the operation's limit (HTTP's own status, so a client can tell it from bad content).
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large.' },
  CUSTOM_PAGE_BODY_TOO_LARGE: { status: 413, message: 'The custom page body is over what one request carries; upload the archive through POST /api/theme-server/customPages/uploads.' },
  SESSION_TOO_LARGE: { status: 413, message: "The step's result would make the journey's data larger than it may be (192 KiB)." },

  // 415
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'This content type is not accepted here.' },

  // 431: the request line and headers over what API Gateway takes (its 10,240 bytes; the local gateway's too).
  REQUEST_HEADERS_TOO_LARGE: { status: 431, message: 'The request line and header values are over 10,240 bytes.' },

  // 429: the tenant's own rate limit (its share of the deployment), not the gateway's.
  TOO_MANY_REQUESTS: { status: 429, message: 'This tenant is over its request rate; retry after Retry-After seconds.', headers: { 'Retry-After': '1' } },
  PASSCODE_LOCKED: { status: 429, message: 'Too many wrong passcodes: the passcode is locked for now.' },
  WEBHOOK_REPLAY_LIMITED: { status: 429, message: 'Too many webhook replays for now; retry after Retry-After seconds.' },
  LIVENESS_SESSION_LIMIT: { status: 429, message: 'This step has started as many Face Liveness checks as it may.' },

  // 500
  INTERNAL_ERROR: { status: 500, message: 'An internal error occurred.', expose: false },

  // 503: a service the operation needs is throttling or did not answer; nothing was lost, and the same request can be sent again.
  SERVICE_UNAVAILABLE: { status: 503, message: 'The service is busy; send the same request again in a moment.', headers: { 'Retry-After': '2' } },
  // 503: a quota of the deployment's AWS account is used up; nothing is wrong with the request.
  QUOTA_EXCEEDED: { status: 503, message: 'The service cannot take this request now; retry later.', headers: { 'Retry-After': '300' } },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

/** The codes of one status: what a status family's classes may carry. */
export type CodeOf<S extends ErrorStatus> = { [C in ErrorCode]: (typeof ERRORS)[C]['status'] extends S ? C : never }[ErrorCode];

/**
 * Each code's line in the error table of docs/errors.md: when a client gets it. Kept apart from ERRORS
 * because no handler needs it (and so no bundle carries it).
 */
export const ERROR_DOCS = {
  VALIDATION_FAILED: 'wrong types (that cannot be read as the type), unknown enum values, over-long strings, a `tenantId` in the body naming another tenant, bad query; `details` names each problem',
  MALFORMED_JSON: 'the body does not parse as JSON',
  BODY_TOO_DEEP: 'a JSON body nests objects and arrays more than 64 levels deep, counted before anything reads it (a JSON document sent as a string, such as a data form\'s `resource`, gets `VALIDATION_FAILED` past the same depth)',
  MALFORMED_REQUEST: 'the request is not valid HTTP (a bad request line or header; answered by the gateway)',
  INVALID_HOST: 'the host is not `{tenantId}.{region}.{domain}` of this deployment',
  INVALID_STATUS_TRANSITION: 'an archived API key is final; a definition or data form version moves only along its lifecycle (ARCHIVED is final, nothing goes back to DRAFT or EDITABLE)',
  INVALID_VERIFIER: 'the SRP verifier is not base64 of a number 1 < v < N',
  PASSCODE_NOT_GIVEN: 'a passcode registration was completed without a verifier',
  PASSCODE_REUSED: "the new passcode is one of the user's earlier ones",
  PASSCODE_HISTORY_PROOF_REQUIRED: "the policy refuses earlier passcodes and the registration did not prove against each of the user's history salts",
  PASSKEY_VERIFICATION_FAILED: 'the WebAuthn registration or authentication response does not verify',
  INVALID_BPMN_DATA: 'a BPMN upload whose `resources.bpmn.data` is not strict base64 (RFC 4648, padded, no line breaks) or whose bytes are not UTF-8 text',
  INVALID_BPMN: 'a BPMN upload the service cannot run: `details` lists every problem at its element (`bpmn.<element id>`): unknown or not runnable activities (with the bean name), conditions, gateways without a default, timers on service steps, unknown error codes, unreachable elements',
  FACE_IMAGE_UNUSABLE: 'a watchlist member\'s image is not a JPEG or PNG of at most 3 MiB with exactly one face the engine can make a template of; `details` say which',
  WEBHOOK_URL_REFUSED: 'a webhook URL that is not https:// (http:// only to loopback, locally), has credentials, or names or resolves to a private, loopback, link-local, metadata or otherwise reserved address; or a queue or bus target that is not an ARN of its kind, is in the deployment\'s own account, is named as the service\'s own queues and buses are (`arthr-{region}-...`: its delivery queues, their dead letters, its bus), or (locally) is an EventBridge bus; `details` say which rule',
  STATE_MACHINE_TOO_LARGE: "the definition compiles to a state machine over Step Functions' 1 MB definition limit",
  INVALID_CURSOR: "a list's `cursor` that is not a `nextCursor` this list gave: changed, cut short, made by hand, of another tenant, list or user, or sent with other filters or another sort than the page that gave it; `details` name `query.cursor`. Start again without a cursor. Also an instance's events or webhook deliveries read with a `nextToken` that list did not give for that instance (`details` name `query.nextToken`)",
  SANDBOX_NOT_FOR_TEST: 'a process token with `sandbox` (forced outcomes) but without `forTest: true`: forcing is for test mode only (docs/sandbox.md)',
  PALETTE_CONTRAST: 'a theme palette (with the defaults for what it leaves out) has a pair a person must read or tell apart under WCAG 2.x AA: 4.5:1 for text, 3:1 for borders, focus and progress; `details` name each pair (`body.palette.<area>.<member>` on `<area>.<member>`), both colours and the ratio (docs/themes.md)',
  INVALID_THEME_ASSET: 'a theme asset whose extension is not one taken (woff2, woff, ttf, otf, png, jpg, jpeg, gif, webp, ico, svg), whose bytes are not of that type, that is empty or over 1 MiB, whose `assetResource` is not base64, or an SVG with scripts, event handlers, embedded documents or references outside itself; `details` say which',
  UNKNOWN_THEME: "a process definition's `themeId` that names no theme of the tenant (a theme's id, as `POST /api/theme-server/themes` answers it), or an ARCHIVED one",
  BUNDLE_TOO_LARGE: 'a custom page archive over 15 MiB (15,728,640 bytes, decoded)',
  BUNDLE_FILE_TYPE: 'a bundle file whose extension is not one of html, js, css, json, xml, txt, map, wasm, png, jpeg, jpg, gif, svg, ico, mp4, mov, webm, woff, woff2, ttf, pdf, mp3 (any case)',
  BUNDLE_NO_INDEX: 'no `index.html` at the bundle\'s root (or in the one folder that holds every file)',
  BUNDLE_UNSAFE_PATH: 'a bundle path that is absolute, has `..`, a backslash, NUL or another control character, or an empty segment (zip slip)',
  BUNDLE_LINK: 'a symbolic or hard link, device or FIFO in the bundle',
  BUNDLE_BOMB: 'a bundle that inflates past 50 MiB in all, a file past 25 MiB, or more than 100 times its stored size (counted while inflating, whatever the archive declares)',
  BUNDLE_TOO_MANY_FILES: 'more than 1,000 files in the bundle',
  BUNDLE_PATH_TOO_LONG: 'a bundle path over 255 UTF-8 bytes or 16 folders deep',
  BUNDLE_DUPLICATE_PATH: 'the same path twice in the bundle',
  BUNDLE_ENCRYPTED: 'an encrypted (password-protected) zip entry',
  BUNDLE_UNREADABLE: 'the archive is neither a .zip nor a .tar.gz, or is corrupt (a CRC, a size or a header that does not check out)',
  BUNDLE_EMPTY: 'an archive without files',
  CUSTOM_PAGE_CONTENT: 'a custom page created with none or more than one of `archive`, `uploadId` and `baseAppUrl`, or a baseAppUrl that is not https',
  CUSTOM_PAGE_UPLOAD_UNUSABLE: 'an `uploadId` this tenant did not get, past its expiry, already used, or whose archive was never PUT',
  UNAUTHORIZED: 'neither a bearer token nor an API key was sent',
  INVALID_TOKEN: "the bearer token does not verify, has expired or names another tenant; an expired one is told so, with `error_description` (`The access token expired`) in the body and the `WWW-Authenticate` challenge",
  INVALID_API_KEY: 'unknown, mistyped or deleted key: one answer for all three',
  API_KEY_BLOCKED: 'the key is blocked',
  API_KEY_ARCHIVED: 'the key is archived',
  API_KEY_EXPIRED: 'the key is past its expiry',
  API_KEY_OPERATION_NOT_PERMITTED: 'the key may not be used directly (without a token) on this operation',
  FORBIDDEN: 'generic: not allowed, when no more specific code applies',
  MISSING_PERMISSION: "the token's scope lacks the operation's permission",
  PERMISSION_ESCALATION: 'a key would get permissions its creator does not hold, or the caller would change or delete a key holding permissions the caller does not hold',
  NOT_FOUND: 'generic: not found, when no more specific code applies',
  ROUTE_NOT_FOUND: 'no route has this path (local gateway)',
  API_KEY_NOT_FOUND: 'no such API key in this tenant',
  PROCESS_DEFINITION_NOT_FOUND: 'no such process definition (or version)',
  PROCESS_TOKEN_NOT_FOUND: 'no such process token',
  PROCESS_INSTANCE_NOT_FOUND: 'no such process instance, or it is past its retention',
  CUSTOM_DATA_FORM_NOT_FOUND: 'no such data form (id) in this tenant',
  CUSTOM_PAGE_NOT_FOUND: 'no such custom page version (id, or name and version) in this tenant',
  CLOUD_FUNCTION_NOT_FOUND: 'no such cloud function version (id) in this tenant',
  THEME_NOT_FOUND: 'no such theme version (id) in this tenant',
  THEME_ASSET_NOT_FOUND: "a theme asset's or a theme's public URL that names nothing: unknown theme, secret or file name, one answer for all",
  CLOUD_SECRET_NOT_FOUND: 'no cloud secret of this name in this tenant',
  WATCHLIST_NOT_FOUND: 'no such face watchlist (id) in this tenant',
  WATCHLIST_MEMBER_NOT_FOUND: 'no such member (id) in the face watchlist',
  WEBHOOK_NOT_FOUND: 'no such webhook (id) in this tenant',
  JOURNEY_NOT_AVAILABLE: 'journey pages: unknown instance, wrong capability or expired journey, one answer for all three',
  FACE_LIVENESS_NOT_AVAILABLE: "the Face Liveness capture's script, asked of a deployment with no Rekognition Face Liveness (the local runtime; an AWS region without it): no page of it uses the script",
  STORE_NOT_FOUND: 'no such identity store',
  USER_NOT_FOUND: 'no such user in the identity store',
  POLICY_NOT_FOUND: 'the store has no passcode policy, or the relying party no passkey policy, of that name',
  PASSCODE_REGISTRATION_NOT_FOUND: 'passcode registration or authentication unknown, expired or completed; or the user has no passcode under the policy',
  RELYING_PARTY_NOT_FOUND: 'the store has no passkey configuration for the relying party',
  PASSKEY_NOT_FOUND: 'no such passkey for the user',
  PASSKEY_SESSION_NOT_FOUND: 'passkey ceremony unknown, expired or already used; or the user has no registration in progress',
  EVENT_QUERY_NOT_FOUND: 'event query unknown, or ended an hour after it started',
  EXPORT_NOT_FOUND: 'export job unknown in this tenant, of another instance or kind, or past its 7 days',
  RESUME_NOT_AVAILABLE: 'the resume URL: unknown instance, wrong resume secret (or one of an earlier pause) or expired instance, one answer for all three',
  TENANT_NOT_FOUND: 'no such tenant',
  METHOD_NOT_ALLOWED: 'the path exists with other methods, listed in `Allow` (local gateway; API Gateway answers 404)',
  CONFLICT: 'generic: conflicts with the current state, when no more specific code applies',
  CONCURRENT_UPDATE: 'another request changed the resource first; read it again and retry',
  STEP_NOT_WAITING: 'journey pages: the step was already done or timed out',
  PROCESS_INSTANCE_NOT_IN_REVIEW: 'a review decision for an instance that is neither in status REVIEW nor waiting at a Waiting for B/O review step: still running elsewhere, not started, or decided already (APPROVE or REJECT is final)',
  SWITCH_LINK_USED: 'journey pages: a Switch Device link opened again after it gave the journey to a device (it is single-use)',
  SWITCH_LINK_EXPIRED: 'journey pages: a Switch Device link opened after its step timed out, moved on or its journey ended, or after the journey moved to another device',
  STORE_EXISTS: 'an identity store of this name exists',
  EXTERNAL_ID_NOT_UNIQUE: 'another user of the store has this external id',
  CREDENTIAL_EXISTS: 'the passkey credential is already registered',
  PROCESS_DEFINITION_EXISTS: 'this name and version is published; publish a new version',
  PROCESS_DEFINITION_NOT_ACTIVE: 'a process token or instance for a definition version that is not DEPLOYED_ACTIVE (a DRAFT or EDITABLE, inactive or archived version)',
  CUSTOM_DATA_FORM_EXISTS: 'this data form name and version exists; a version is immutable, add the next one',
  CUSTOM_PAGE_EXISTS: 'this custom page name and version exists; a version is immutable, add the next one',
  CLOUD_FUNCTION_EXISTS: 'this cloud function name and version exists; a version is immutable, add the next one',
  THEME_EXISTS: 'this theme name and version exists; a version is immutable, add the next one',
  THEME_NOT_EDITABLE: 'an update or asset for a theme version that is not EDITABLE (or DRAFT): a deployed version is what journeys show, so add the next version of the name instead',
  THEME_ASSET_LIMIT: 'the theme holds 20 assets, the most it may; an asset of a name it has already replaces that one',
  WATCHLIST_LIMIT: 'the tenant has 100 face watchlists, the most it may have; delete one first',
  WATCHLIST_FULL: 'the face watchlist has 1,000 members, the most it may hold; remove one first',
  WEBHOOK_LIMIT: 'the tenant has 20 webhooks, the most it may have; delete one first',
  CLOUD_SECRET_EXISTS: 'a cloud secret of this name exists: rotate it (POST to its name) or delete it first',
  PROCESS_TOKEN_NAME_TAKEN: 'a process token of this name exists',
  PROCESS_TOKEN_INACTIVE: 'the token is INACTIVE, or its definition no longer exists',
  PROCESS_TOKEN_EXHAUSTED: 'the token was used its maxCount times',
  PROCESS_TOKEN_NOT_YET_VALID: 'before the token\'s validFromDtm',
  PROCESS_TOKEN_EXPIRED: "after the token's validToDtm",
  IDEMPOTENCY_KEY_REUSED: 'the Idempotency-Key was used for a different request',
  INSTANCE_NOT_PAUSED: 'the resume API: no Pause Instance step has paused the instance',
  RESUME_NOT_READY: 'with `Retry-After`: a resume (URL or API) before the journey reached its Waiting for Resume step (the steps after Pause Instance are still running, or wait for the end user); nothing changed, send it again',
  TENANT_EXISTS: 'a tenant of this id exists',
  RESUME_ALREADY_USED: 'a resume (URL or API) of a pause that was already resumed: a pause resumes the journey once; nothing changed',
  RESUME_EXPIRED: 'a resume (URL or API) of a journey that has ended, or whose Waiting for Resume step no longer waits (its timer took the journey on); nothing changed',
  PAYLOAD_TOO_LARGE: 'body over 64 KiB, or over the limit the operation states',
  CUSTOM_PAGE_BODY_TOO_LARGE: 'a custom page body (its archive as base64 JSON) over what one Lambda request carries (6 MB); PUT the archive through `POST /api/theme-server/customPages/uploads` and create the page with its `uploadId` instead',
  SESSION_TOO_LARGE: "journey pages: what the end user sent would make the journey's session (its data as JSON) larger than 196,608 bytes (192 KiB); the step keeps waiting, so a shorter answer can be sent",
  UNSUPPORTED_MEDIA_TYPE: 'bodies are `application/json`; journey forms `application/x-www-form-urlencoded`; the face image `multipart/form-data`',
  REQUEST_HEADERS_TOO_LARGE: 'the request line (method, path and query) and the header values come to more than 10,240 bytes, the HTTP API\'s limit (answered by the gateway; the query string is the usual cause)',
  TOO_MANY_REQUESTS: "the tenant made more requests this second than its rate limit (bearer and \"B or K\" routes; `-c tenantRateLimit`), or issued more tokens than its token issue limit (`-c tokenRateLimit`); retry after `Retry-After` seconds",
  PASSCODE_LOCKED: 'five or more wrong passcodes in a row for this user and policy, over any journeys: locked until the time the message names (1 minute, doubling per further wrong passcode, at most a day)',
  WEBHOOK_REPLAY_LIMITED: 'with `Retry-After` (when the window ends): a webhook replay over its limits, 20 replay calls per webhook or 5,000 replayed deliveries per tenant in a clock hour; nothing of it was queued',
  LIVENESS_SESSION_LIMIT: "journey pages: a Capture Face Image step (Liveness Check REKOGNITION) asked for an eleventh Rekognition Face Liveness session: each is a paid check and gives the browser AWS credentials, so a step starts at most 10; the end user can take another way (Offer Another Way), or the journey can be started again",
  INTERNAL_ERROR: 'with no detail; the cause goes to the log',
  SERVICE_UNAVAILABLE: 'with `Retry-After`: an AWS service the operation needs throttled it or did not answer in time (journey pages: Step Functions did not take a step submission; activating a definition: its state machine was being deleted as unused); nothing is lost, and sending the same request again completes it',
  QUOTA_EXCEEDED: "with `Retry-After` (300): a quota of the deployment's AWS account is used up (Step Functions' state machines per account, when a definition version becomes DEPLOYED_ACTIVE: published in the JSON format, or activated); operators are alerted",
} satisfies Record<ErrorCode, string>;

/** Codes only the operator CLI reports (tenants have no HTTP routes): not in the OpenAPI enum. */
export const OPERATOR_ONLY_CODES = ['TENANT_EXISTS', 'TENANT_NOT_FOUND'] as const satisfies readonly ErrorCode[];

/** Every code a client can get over HTTP, in catalogue order: the OpenAPI `Error.code` enum. */
export function httpErrorCodes(): ErrorCode[] {
  return (Object.keys(ERRORS) as ErrorCode[]).filter((c) => !(OPERATOR_ONLY_CODES as readonly string[]).includes(c));
}

export interface ErrorDetail {
  /** Where the problem is: `body.name`, `query.size`, `header.x-api-key`, ... */
  location: string;
  message: string;
}

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
  /** RFC 6750's `error_description`, where the client can act on it (a bearer token that expired). */
  error_description?: string;
}

/**
 * Every detail, within `maxBytes` of JSON (UTF-8): the details of a refused process definition,
 * by default within 4 MiB, far under a Lambda response's 6 MB. Every problem is listed (a
 * 300-activity definition with a thousand problems takes about 150 KB); only a pathological
 * upload (a megabyte-long element id echoed in each of its problems; the route takes 1.4 MB
 * bodies) would pass it, and then the details end with one that counts the rest. Other routes
 * take 64 KiB bodies, whose problems are far fewer and smaller.
 */
export function detailsWithin(details: readonly ErrorDetail[], maxBytes = 4 * 1024 * 1024): ErrorDetail[] {
  let bytes = 2;
  for (let i = 0; i < details.length; i++) {
    bytes += Buffer.byteLength(JSON.stringify(details[i])) + 1;
    if (bytes > maxBytes) {
      const rest = details.length - i;
      return [
        ...details.slice(0, i),
        { location: details[i]!.location.slice(0, 200), message: `${rest} more problem${rest > 1 ? 's' : ''} from here on, not listed: the answer would be over ${maxBytes} bytes` },
      ];
    }
  }
  return [...details];
}

export abstract class ApiError extends Error {
  abstract readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  /** Response headers: the catalogue's, plus any this answer adds (e.g. `Allow`). */
  readonly headers: Record<string, string> = {};

  /** `options.cause`: the wrapped low-level error, for the log; never sent to the client. */
  constructor(message: string, details?: ErrorDetail[], options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.details = details;
  }

  // Read from the catalogue, so no class can disagree with it.
  get statusCode(): ErrorStatus {
    return ERRORS[this.code].status;
  }

  get expose(): boolean {
    return (ERRORS[this.code] as ErrorSpec).expose !== false;
  }

  toBody(): ErrorBody {
    return this.details?.length
      ? { code: this.code, message: this.message, details: this.details }
      : { code: this.code, message: this.message };
  }
}

/** What `apiError` returns: a class to extend, whose instances are `I` with the code `C`. */
export interface ApiErrorClass<C extends ErrorCode, I extends ApiError = ApiError> {
  new (message?: string, details?: ErrorDetail[], options?: ErrorOptions): I & { readonly code: C };
  readonly prototype: I;
}

/** The status families: a class made for a 404 code is a NotFoundError, and so on. */
type FamilyOf<C extends ErrorCode> = (typeof ERRORS)[C]['status'] extends 401
  ? UnauthorizedError
  : (typeof ERRORS)[C]['status'] extends 403
    ? ForbiddenError
    : (typeof ERRORS)[C]['status'] extends 404
      ? NotFoundError
      : (typeof ERRORS)[C]['status'] extends 409
        ? ConflictError
        : ApiError;

// Filled below as the family classes are declared; they themselves extend ApiError.
const families: Partial<Record<ErrorStatus, abstract new (message: string, details?: ErrorDetail[], options?: ErrorOptions) => ApiError>> = {};

/* @__NO_SIDE_EFFECTS__ */ function derive<C extends ErrorCode>(code: C) {
  const spec: ErrorSpec = ERRORS[code];
  const Base = (families[spec.status] ?? ApiError) as unknown as new (message: string, details?: ErrorDetail[], options?: ErrorOptions) => ApiError;
  return class extends Base {
    override readonly code: ErrorCode = code;
    constructor(message: string = spec.message, details?: ErrorDetail[], options?: ErrorOptions) {
      super(message, details, options);
      // Later (more specific) classes overwrite a family's challenge, e.g. INVALID_TOKEN's.
      if (spec.headers) Object.assign(this.headers, spec.headers);
    }
  };
}

/**
 * The class of a catalogue code, to extend: `class StoreNotFoundError extends apiError('STORE_NOT_FOUND') {}`.
 * It extends the family of its status (UnauthorizedError, ForbiddenError, NotFoundError,
 * ConflictError; ApiError for the others), has the catalogue's default message and headers.
 */
export /* @__NO_SIDE_EFFECTS__ */ function apiError<C extends ErrorCode>(code: C): ApiErrorClass<C, FamilyOf<C>> {
  return derive(code) as unknown as ApiErrorClass<C, FamilyOf<C>>;
}

/** The base of a status family: its own generic code, widened so its subclasses can carry theirs. */
/* @__NO_SIDE_EFFECTS__ */ function family<S extends 401 | 403 | 404 | 409>(code: CodeOf<S> & ErrorCode): ApiErrorClass<CodeOf<S>> {
  return derive(code) as unknown as ApiErrorClass<CodeOf<S>>;
}

export class UnauthorizedError extends family<401>('UNAUTHORIZED') {}
export class ForbiddenError extends family<403>('FORBIDDEN') {}
export class NotFoundError extends family<404>('NOT_FOUND') {}
export class ConflictError extends family<409>('CONFLICT') {}
Object.assign(families, { 401: UnauthorizedError, 403: ForbiddenError, 404: NotFoundError, 409: ConflictError });

export class ValidationError extends apiError('VALIDATION_FAILED') {}
export class MalformedJsonError extends apiError('MALFORMED_JSON') {}
export class BodyTooDeepError extends apiError('BODY_TOO_DEEP') {}
export class MalformedRequestError extends apiError('MALFORMED_REQUEST') {}
export class PayloadTooLargeError extends apiError('PAYLOAD_TOO_LARGE') {}
export class UnsupportedMediaTypeError extends apiError('UNSUPPORTED_MEDIA_TYPE') {}
export class InvalidHostError extends apiError('INVALID_HOST') {}
export class InvalidTransitionError extends apiError('INVALID_STATUS_TRANSITION') {}
export class InvalidCursorError extends apiError('INVALID_CURSOR') {}

export class InvalidTokenError extends apiError('INVALID_TOKEN') {
  /** RFC 6750 §3's `error_description`: in the body and in the challenge. */
  errorDescription: string | undefined;

  /**
   * A genuine token (its signature verified) past its `exp`: the one refusal a client can act on
   * by itself (issue a new token), so it is told, in the message and as OAuth's error_description.
   */
  static expired(expiredAt: Date): InvalidTokenError {
    const err = new InvalidTokenError(
      `The bearer token expired at ${expiredAt.toISOString()}; issue a new one with POST /api/arthr/apiKeys/issue and send that.`,
    );
    err.errorDescription = 'The access token expired';
    err.headers['WWW-Authenticate'] = `Bearer error="invalid_token", error_description="${err.errorDescription}"`;
    return err;
  }

  override toBody(): ErrorBody {
    return this.errorDescription ? { ...super.toBody(), error_description: this.errorDescription } : super.toBody();
  }
}
export class InvalidApiKeyError extends apiError('INVALID_API_KEY') {}
export class ApiKeyBlockedError extends apiError('API_KEY_BLOCKED') {}
export class ApiKeyArchivedError extends apiError('API_KEY_ARCHIVED') {}
export class ApiKeyExpiredError extends apiError('API_KEY_EXPIRED') {}

export class ApiKeyOperationNotPermittedError extends apiError('API_KEY_OPERATION_NOT_PERMITTED') {
  constructor(operation: string) {
    super(`The API key is not permitted to call ${operation} directly.`);
  }
}

export class MissingPermissionError extends apiError('MISSING_PERMISSION') {
  constructor(permission: string) {
    super(`The token does not carry the permission ${permission}.`);
  }
}

export class PermissionEscalationError extends apiError('PERMISSION_ESCALATION') {
  constructor(permissions: string[], message = 'A key cannot be given permissions its creator does not hold') {
    super(`${message}: ${permissions.join(', ')}.`);
  }
}

export class ApiKeyNotFoundError extends apiError('API_KEY_NOT_FOUND') {
  constructor(id: string) {
    super(`API key ${id} was not found.`);
  }
}

export class RouteNotFoundError extends apiError('ROUTE_NOT_FOUND') {}
export class RequestHeadersTooLargeError extends apiError('REQUEST_HEADERS_TOO_LARGE') {}

export class MethodNotAllowedError extends apiError('METHOD_NOT_ALLOWED') {
  constructor(allowed: string[]) {
    super(`Method not allowed here; use ${allowed.join(', ')}.`);
    this.headers['Allow'] = allowed.join(', ');
  }
}

export class ConcurrentUpdateError extends apiError('CONCURRENT_UPDATE') {}

export class InternalError extends apiError('INTERNAL_ERROR') {}

export class ServiceUnavailableError extends apiError('SERVICE_UNAVAILABLE') {}

export class QuotaExceededError extends apiError('QUOTA_EXCEEDED') {}
export class WatchlistNotFoundError extends apiError('WATCHLIST_NOT_FOUND') {}
export class WatchlistMemberNotFoundError extends apiError('WATCHLIST_MEMBER_NOT_FOUND') {}
export class WatchlistFullError extends apiError('WATCHLIST_FULL') {}
export class WatchlistLimitError extends apiError('WATCHLIST_LIMIT') {}
export class FaceImageUnusableError extends apiError('FACE_IMAGE_UNUSABLE') {}
export class WebhookUrlRefusedError extends apiError('WEBHOOK_URL_REFUSED') {}
export class WebhookNotFoundError extends apiError('WEBHOOK_NOT_FOUND') {}
export class WebhookLimitError extends apiError('WEBHOOK_LIMIT') {}

/** A replay over its limits (functions/webhooks/webhooks.ts REPLAY_LIMITS): Retry-After says when its window ends. */
export class WebhookReplayLimitedError extends apiError('WEBHOOK_REPLAY_LIMITED') {
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.headers['Retry-After'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}

export class TooManyRequestsError extends apiError('TOO_MANY_REQUESTS') {}

const INTERNAL_BODY: ErrorBody = { code: 'INTERNAL_ERROR', message: ERRORS.INTERNAL_ERROR.message };

/** The one mapper: exposed API errors keep their body, anything else becomes a bare 500. */
export function toErrorResponse(err: unknown): {
  statusCode: number;
  body: ErrorBody;
  headers: Record<string, string>;
} {
  if (err instanceof ApiError && err.expose) {
    return { statusCode: err.statusCode, body: err.toBody(), headers: err.headers };
  }
  return { statusCode: 500, body: INTERNAL_BODY, headers: {} };
}
