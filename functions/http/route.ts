// Core types: the common base of zod/mini (what the route table uses) and classic zod schemas.
import type * as z4 from 'zod/v4/core';
import type { PermissionName } from '../auth/permissions.js';
import * as z from '../shared/zod.js';
import { error } from './responses.js';
import type { ApiError } from '../errors.js';

/**
 * How a route authenticates:
 * - `public`: nobody; no tenant (discovery documents, the OpenAPI document).
 * - `apiKey`: the `X-API-Key` header (also `X-Api-Key`, `X-ApiKey`), checked by the operation.
 * - `bearer`: a JWT checked by the API Gateway JWT authorizer (emulated locally), then the
 *   wrapper checks the tenant and the permission.
 * - `bearerOrApiKey`: either of the two, checked in the function (no gateway authorizer, since
 *   the gateway would refuse a request without a bearer token): the spec's "B or K" routes.
 * - `endUser`: the journey pages; the operation checks the instance's capability (`c` in the
 *   redirect URL) against its stored hash.
 */
export type AuthKind = 'public' | 'apiKey' | 'bearer' | 'bearerOrApiKey' | 'endUser';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ResponseDef {
  description: string;
  schema?: z4.$ZodType;
  contentType?: string;
}

/**
 * DynamoDB item actions; a transaction needs the action of each item it writes. BatchGetItem:
 * the items of a list's page, by the keys its small index items name (functions/store/ranges.ts).
 */
export type TableAction = 'GetItem' | 'BatchGetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem';

/** AWS resources a route's function may touch; the CDK stack grants exactly these. */
export interface AwsAccess {
  /** The DynamoDB actions the operation makes on the table's items, no more. */
  table?: readonly TableAction[];
  /** Query on the table's global secondary indexes. */
  queryIndexes?: boolean;
  signingKey?: 'sign' | 'publicKey';
  /**
   * Step Functions: create a definition version's state machine (and pass it its role), start
   * executions, resume one waiting at a user step (sendTask), or resume or fail it (endTask).
   */
  stateMachines?: 'publish' | 'start' | 'sendTask' | 'endTask';
  /** S3 actions on the images bucket, under `tenants/` (ListBucket: on the bucket, for that prefix). */
  images?: readonly ImageAction[];
  /**
   * Asynchronous exports (lib/constructs/exports.ts): `SendMessage` queues a job, `Seal`
   * encrypts an archive password with the exports key, `GetObject` pre-signs a download from
   * the exports bucket (under `tenants/`).
   */
  exports?: readonly ExportAction[];
  /** Cloud secrets: `seal` encrypts a secret's value with the secrets key (KMS Encrypt on AWS). */
  cloudSecrets?: 'seal';
  /**
   * Webhooks: `Seal` encrypts a signing secret with the secrets key (KMS Encrypt, purpose
   * `webhook-secret`), `SendMessage` queues deliveries on the webhook replay queue (a replay),
   * `Target` checks a queue or bus target (no grant: the function is told the deployment's account).
   */
  webhooks?: readonly ('Seal' | 'SendMessage' | 'Target')[];
  /**
   * The face engine's Rekognition actions (collections only under the deployment's prefix). A
   * function given DetectFaces also carries the embedded liveness model (its layer).
   */
  faces?: readonly FaceAction[];
  /**
   * Amazon Rekognition Face Liveness (functions/adapters/face-liveness.ts), granted only where the
   * deployment's region has it (FACE_LIVENESS_REGIONS): the sessions' calls, and
   * `BrowserCredentials`, assuming the browser role the end user's page streams with.
   */
  faceLiveness?: readonly FaceLivenessAction[];
  /** Amazon Textract actions of the document engine, where a deployment chooses Textract (functions/adapters/textract-document-engine.ts). */
  documents?: readonly DocumentAction[];
  /**
   * S3 actions on the custom pages bucket, under `tenants/` (functions/adapters/page-files.ts):
   * a version's files and the archives PUT through pre-signed uploads.
   */
  pages?: readonly PageFileAction[];
  /** Answers with a custom page's URLs (`previewUrl`), so learns the pages origin, with no grant on the bucket. */
  pagesOrigin?: true;
  /**
   * The cloud function runner (its Lambda, whose role grants nothing): `checkPython` compiles an
   * uploaded Python script there, never in the route's own process (lambda:InvokeFunction on it).
   */
  functionRunner?: 'checkPython';
}

/** What an operation does with the custom pages bucket. */
export type PageFileAction = 'PutObject' | 'GetObject' | 'DeleteObject' | 'ListBucket';
/** The same, by the name lib/constructs/pages.ts first used. */
export type PageAction = PageFileAction;

/** Amazon Rekognition actions the face engine makes (functions/adapters/face-engine.ts). */
export type FaceAction =
  | 'DetectFaces'
  | 'CompareFaces'
  | 'CreateCollection'
  | 'DeleteCollection'
  | 'IndexFaces'
  | 'DeleteFaces'
  | 'SearchFacesByImage';

/** Rekognition Face Liveness's calls (no resource-level permission), and the browser's credentials (sts:AssumeRole on its role). */
export type FaceLivenessAction = 'CreateFaceLivenessSession' | 'GetFaceLivenessSessionResults' | 'BrowserCredentials';

/** Amazon Textract actions the document engine makes: AnalyzeID reads an identity document (no resource-level permission). */
export type DocumentAction = 'AnalyzeID';

export type ExportAction = 'SendMessage' | 'Seal' | 'GetObject';

/** What an operation does with the images bucket (face captures, under `tenants/{tenantId}/instances/{id}/`). */
export type ImageAction = 'PutObject' | 'GetObject' | 'DeleteObject' | 'ListBucket';

/** A route's declared responses by status; its handler may answer only these (see `ResultOf`). */
export type Responses = Record<number, ResponseDef>;

export interface RouteDef<
  P extends z4.$ZodType | undefined = z4.$ZodType | undefined,
  Q extends z4.$ZodType | undefined = z4.$ZodType | undefined,
  B extends z4.$ZodType | undefined = z4.$ZodType | undefined,
  H extends z4.$ZodType | undefined = z4.$ZodType | undefined,
  R extends Responses = Responses,
> {
  operationId: string;
  method: HttpMethod;
  /** API Gateway style: `/api/arthr/apiKeys/{apiKeyId}`. */
  path: string;
  /** Entry file of the route's Lambda, relative to the repository root; it exports `handler`. */
  handler: string;
  auth: AuthKind;
  /** Required on bearer and bearerOrApiKey routes: the bare permission name the caller must hold. */
  permission?: PermissionName;
  summary: string;
  description?: string;
  tag: string;
  deprecated?: boolean;
  /**
   * `form`: the body is an HTML form post (application/x-www-form-urlencoded), not JSON.
   * `multipart`: the body is a `multipart/form-data` post (a file upload), handed to the
   * operation as a parsed FormData.
   */
  /**
   * `headers`: the request headers the operation reads (names in lower case, as API Gateway
   * hands them over), validated like the rest and listed in the OpenAPI document as header
   * parameters; a loose object, since every request carries headers no route reads.
   */
  /**
   * `overLimit`: the error a body over `maxBodyBytes` (or over Lambda's payload, locally) is
   * refused with, when the operation has a better way for big bodies to name (413 only).
   */
  request: {
    path?: P;
    query?: Q;
    body?: B;
    headers?: H;
    maxBodyBytes?: number;
    form?: boolean;
    multipart?: boolean;
    overLimit?: new (message: string) => ApiError;
  };
  /** Pages for people: errors are answered as an HTML page rather than JSON. */
  html?: boolean;
  responses: R;
  aws: AwsAccess;
  /**
   * Packages the function loads at first use from a Lambda layer instead of its bundle
   * (lib/bundling.ts LAYER_PACKAGES); the bundle benchmark checks the list against what the
   * bundle imports.
   */
  layerPackages?: readonly ('@simplewebauthn/server' | 're2-wasm' | '@vladmandic/human' | 'awesome-phonenumber')[];
  /**
   * The function's size where 256 MB and 10 s do not do (a model loaded in the function): its
   * memory (which on Lambda also buys CPU) and timeout (at most 29 s, under the HTTP API's 30 s).
   */
  lambda?: { memorySize?: number; timeoutSeconds?: number };
  /**
   * A file built beside the function's bundle when it is bundled (lib/liveness-asset.ts):
   * `faceLiveness`, the Face Liveness capture's browser script.
   */
  bundleAsset?: 'faceLiveness';
}

/**
 * Whether a route's requests count against the tenant's rate limit: those made with the
 * tenant's own credentials, verified before they are counted (bearer tokens, and "B or K"), so
 * nobody else can spend a tenant's share. End users' journey pages, public documents and token
 * issue (whose key the operation itself verifies) are not counted.
 */
export function isRateLimited(route: Pick<RouteDef, 'auth'>): boolean {
  return route.auth === 'bearer' || route.auth === 'bearerOrApiKey';
}

/**
 * What the wrapper itself answers for a route, whatever its operation does: a body over the
 * route's limit is refused with 413 (any route: a client can send a body anywhere), and a body of
 * another media type than the route takes with 415; as pages on `html` routes. And what an AWS
 * quota behind the operation can answer: 503 on the routes that make state machines, 429 on
 * the routes the tenant's rate limit counts.
 */
function wrapperResponses(route: RouteDef): Responses {
  const takesBody = !!(route.request.body || route.request.form || route.request.multipart);
  const answer = (description: string): ResponseDef => (route.html ? { description, contentType: 'text/html', schema: z.string() } : error(description));
  const out: Responses = {};
  if (!route.responses[413]) out[413] = answer('The body is over the size this operation takes (64 KiB unless it says otherwise).');
  if (takesBody && !route.responses[415]) out[415] = answer('The body is not of the media type this operation takes.');
  // Requests made with a tenant's tokens or keys count against its rate limit (wrapper.ts).
  if (isRateLimited(route) && !route.responses[429]) out[429] = answer('The tenant is over its request rate; retry after `Retry-After` seconds.');
  // An AWS service the operation calls may throttle it or time out (the wrapper answers 503
  // SERVICE_UNAVAILABLE); publishing also meets the account's quota of state machines
  // (functions/process-manager/executions/step-functions.ts).
  const usesAws = Object.values(route.aws).some((a) => (Array.isArray(a) ? a.length > 0 : a !== undefined && a !== false));
  if (usesAws && !route.responses[503]) {
    out[503] = answer(
      route.aws.stateMachines === 'publish'
        ? 'An AWS service throttled the operation, or the deployment\'s quota of state machines is used up; retry after `Retry-After` seconds.'
        : 'An AWS service the operation needs throttled it or did not answer in time; send the same request again after `Retry-After` seconds.',
    );
  }
  return out;
}

/**
 * Keeps each schema's and each response's own type, so handlers are checked against them, and
 * adds the responses the wrapper gives on its own (so the OpenAPI document lists them too).
 */
export function defineRoute<
  P extends z4.$ZodType | undefined = undefined,
  Q extends z4.$ZodType | undefined = undefined,
  B extends z4.$ZodType | undefined = undefined,
  H extends z4.$ZodType | undefined = undefined,
  const R extends Responses = Responses,
>(route: RouteDef<P, Q, B, H, R>): RouteDef<P, Q, B, H, R> {
  return { ...route, responses: { ...route.responses, ...wrapperResponses(route as unknown as RouteDef) } };
}

type Headers = Record<string, string>;

/**
 * A schema's output as a handler may return it: arrays may be readonly, and a free-form object
 * (`record(string, unknown)`, such as a WebAuthn options object or a JWK) takes any object, since
 * TypeScript gives interfaces no index signature.
 */
type Returnable<T> = T extends readonly (infer E)[]
  ? readonly Returnable<E>[]
  : T extends object
    ? string extends keyof T
      ? unknown extends T[string]
        ? object
        : { [k: string]: Returnable<T[string]> }
      : { [K in keyof T]: Returnable<T[K]> }
    : T;

/** A JSON response: its body is what the declared schema outputs. */
interface JsonResult<S extends number, T> {
  status: S;
  body: T;
  headers?: Headers;
  raw?: undefined;
}

/** A response with no body (204, 303, 304, ...), or a non-JSON one (HTML, CSV, zip): sent as is. */
interface RawResult<S extends number> {
  status: S;
  body?: undefined;
  headers?: Headers;
  raw?: { contentType: string; body: string | Buffer };
}

/**
 * What a route's handler may return: one of its declared statuses, and for a JSON response
 * (a schema and no other content type) a body of that schema's output type. A route typed only
 * as `RouteDef` (its responses unknown) takes any status and body.
 */
export type ResultOf<R extends Responses> = number extends keyof R
  ? { status: number; body?: unknown; headers?: Headers; raw?: { contentType: string; body: string | Buffer } }
  : {
      [S in keyof R & number]: R[S] extends { contentType: string }
        ? RawResult<S>
        : R[S] extends { schema: infer T extends z4.$ZodType }
          ? JsonResult<S, Returnable<z4.output<T>>>
          : RawResult<S>;
    }[keyof R & number];

/** Default request body limit: far above any JSON this API takes, far below API Gateway's. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
