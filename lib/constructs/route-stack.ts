import { CfnParameter, NestedStack, Validations } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { HttpMethod, HttpNoneAuthorizer, HttpRoute, HttpRouteKey, PayloadFormatVersion, type IHttpApi, type IHttpRouteAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { Construct } from 'constructs';
import type { RouteDef } from '../../functions/http/route.js';
import type { ImagesAccess } from './images.js';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { ExportsAccess } from './exports.js';
import type { PagesAccess } from './pages.js';
import { importKey } from './key-policies.js';
import { RouteFunction, type RouteFunctionProps } from './route-function.js';

const METHODS: Record<string, HttpMethod> = {
  GET: HttpMethod.GET,
  POST: HttpMethod.POST,
  PUT: HttpMethod.PUT,
  PATCH: HttpMethod.PATCH,
  DELETE: HttpMethod.DELETE,
};

/**
 * CloudFormation takes at most 500 resources per stack, and each route costs six (function, role,
 * log group, integration, route, invoke permission). A stack of routes refuses to be made past
 * this, so a growing area is split on purpose (see `routeGroups`) rather than failing at deploy.
 */
export const MAX_STACK_RESOURCES = 500;
export const RESOURCES_PER_ROUTE = 6;

/** The routes of one area (the folder under functions/ of their handlers), in route-table order. */
export function routeGroups(routes: readonly RouteDef[]): Map<string, RouteDef[]> {
  const groups = new Map<string, RouteDef[]>();
  for (const route of routes) {
    const area = route.handler.split('/')[1];
    if (!area) throw new Error(`Route ${route.operationId}: handler ${route.handler} is not under functions/<area>/`);
    groups.set(area, [...(groups.get(area) ?? []), route]);
  }
  return groups;
}

/** `api-keys` -> `RoutesApiKeys`: the nested stack's construct id. */
export function routeStackId(area: string): string {
  return `Routes${area.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase())}`;
}

export interface RouteStackProps extends Omit<RouteFunctionProps, 'route'> {
  area: string;
  routes: readonly RouteDef[];
  httpApi: IHttpApi;
  /** The JWT authorizer bearer routes use (it lives with the API, in the parent stack). */
  authorizer: IHttpRouteAuthorizer;
}

/**
 * One area's routes in a nested stack of their own: for each route its function (exactly the
 * access the route table names) and its API route with the Lambda integration. The API, its
 * authorizer and everything the functions use stay in the parent stack and come in as
 * parameters, so the parent holds one resource per area however many routes it has.
 */
export class RouteStack extends NestedStack {
  readonly functions = new Map<string, RouteFunction>();

  constructor(scope: Construct, props: RouteStackProps) {
    const usesImages = props.routes.some((r) => r.aws.images?.length);
    const usesExports = props.routes.some((r) => r.aws.exports?.length);
    const usesPages = props.routes.some((r) => r.aws.pages?.length || r.aws.pagesOrigin);
    const usesSecrets = props.routes.some((r) => r.aws.cloudSecrets || r.aws.webhooks?.includes('Seal'));
    const usesWebhookQueue = props.routes.some((r) => r.aws.webhooks?.includes('SendMessage'));
    super(scope, routeStackId(props.area), {
      description: `Arthr ${props.area} routes`,
      // The images bucket comes in under parameters of fixed names (rather than the generated
      // ones of an implicit reference), so the grants' cdk-nag acknowledgements can name it.
      parameters: {
        ...(usesImages ? { ImagesBucketArn: props.images.bucket.bucketArn, ImagesBucketName: props.images.bucket.bucketName, ImagesKeyArn: props.images.key.keyArn } : {}),
        ...(usesExports
          ? {
              ExportsBucketArn: props.exports.bucket.bucketArn,
              ExportsBucketName: props.exports.bucket.bucketName,
              ExportsKeyArn: props.exports.key.keyArn,
              ExportsQueueArn: props.exports.queue.queueArn,
              ExportsQueueUrl: props.exports.queue.queueUrl,
            }
          : {}),
        ...(usesPages ? { PagesBucketArn: props.pages.bucket.bucketArn, PagesBucketName: props.pages.bucket.bucketName, PagesOrigin: props.pages.origin } : {}),
        ...(usesSecrets ? { CloudSecretsKeyArn: props.cloudSecretsKey.keyArn } : {}),
        ...(usesWebhookQueue ? { WebhookReplayQueueArn: props.webhookQueue.queueArn, WebhookReplayQueueUrl: props.webhookQueue.queueUrl } : {}),
      },
    });
    const resources = props.routes.length * RESOURCES_PER_ROUTE;
    if (resources > MAX_STACK_RESOURCES) {
      throw new Error(
        `The ${props.area} routes need about ${resources} resources, over CloudFormation's ${MAX_STACK_RESOURCES} per stack: ` +
          `split the area's handlers into two folders under functions/.`,
      );
    }
    const { routes, httpApi, authorizer, area: _area, ...functionProps } = props;
    const images: ImagesAccess = usesImages
      ? {
          bucket: s3.Bucket.fromBucketAttributes(this, 'ImagesBucket', {
            bucketArn: new CfnParameter(this, 'ImagesBucketArn', { description: 'The images bucket\'s ARN.' }).valueAsString,
            bucketName: new CfnParameter(this, 'ImagesBucketName', { description: 'The images bucket\'s name.' }).valueAsString,
          }),
          key: importKey(this, 'ImagesKey', new CfnParameter(this, 'ImagesKeyArn', { description: 'The images bucket\'s KMS key ARN.' }).valueAsString, props.images.key),
        }
      : props.images;
    const param = (name: string, description: string) => new CfnParameter(this, name, { description }).valueAsString;
    const exports: ExportsAccess = usesExports
      ? {
          bucket: s3.Bucket.fromBucketAttributes(this, 'ExportsBucket', {
            bucketArn: param('ExportsBucketArn', 'The exports bucket\'s ARN.'),
            bucketName: param('ExportsBucketName', 'The exports bucket\'s name.'),
          }),
          key: importKey(this, 'ExportsKey', param('ExportsKeyArn', 'The exports KMS key ARN.'), props.exports.key),
          queue: sqs.Queue.fromQueueAttributes(this, 'ExportsQueue', {
            queueArn: param('ExportsQueueArn', 'The export job queue\'s ARN.'),
            queueUrl: param('ExportsQueueUrl', 'The export job queue\'s URL.'),
          }),
        }
      : props.exports;
    const pages: PagesAccess = usesPages
      ? {
          bucket: s3.Bucket.fromBucketAttributes(this, 'PagesBucket', {
            bucketArn: param('PagesBucketArn', 'The custom pages bucket\'s ARN.'),
            bucketName: param('PagesBucketName', 'The custom pages bucket\'s name.'),
          }),
          origin: param('PagesOrigin', 'The origin custom pages are served from (https://{CloudFront domain}).'),
        }
      : props.pages;
    const cloudSecretsKey = usesSecrets
      ? importKey(this, 'CloudSecretsKey', param('CloudSecretsKeyArn', 'The cloud secrets KMS key ARN.'), props.cloudSecretsKey)
      : props.cloudSecretsKey;
    const webhookQueue = usesWebhookQueue
      ? sqs.Queue.fromQueueAttributes(this, 'WebhookReplayQueue', {
          queueArn: param('WebhookReplayQueueArn', 'The webhook replay queue\'s ARN.'),
          queueUrl: param('WebhookReplayQueueUrl', 'The webhook replay queue\'s URL.'),
        })
      : props.webhookQueue;
    for (const route of routes) {
      const fn = new RouteFunction(this, { ...functionProps, images, exports, pages, cloudSecretsKey, webhookQueue, route });
      this.functions.set(route.operationId, fn);

      const method = METHODS[route.method];
      if (!method) throw new Error(`Route ${route.operationId}: unsupported method ${route.method}`);
      const httpRoute = new HttpRoute(this, `${RouteFunction.idFor(route)}Route`, {
        httpApi,
        routeKey: HttpRouteKey.with(route.path, method),
        integration: new HttpLambdaIntegration(`${RouteFunction.idFor(route)}Integration`, fn.function, {
          payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
        }),
        ...(route.auth === 'bearer'
          ? {
              authorizer,
              // Tokens carry the bare permission names in `scope`; the wrapper then checks
              // that the token's tenant is the host's.
              authorizationScopes: [requiredPermission(route)],
            }
          : { authorizer: new HttpNoneAuthorizer() }),
      });
      if (route.auth !== 'bearer') {
        Validations.of(httpRoute).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason: {
            apiKey: `${route.method} ${route.path} takes an API key in X-API-Key, checked by the function against its stored hash.`,
            bearerOrApiKey: `${route.method} ${route.path} takes a bearer token or an API key, both verified by the function (a gateway JWT authorizer would refuse API-key callers).`,
            endUser: `${route.method} ${route.path} is a journey page for end users, authorised by the instance capability in its URL, checked by the function against the stored hash.`,
            public: `${route.method} ${route.path} is intentionally public: a document or static asset with no tenant data (discovery, keys, API description, journey page scripts, the console's page and files).`,
            bearer: '',
          }[route.auth],
        });
      }
    }
  }
}

function requiredPermission(route: RouteDef): string {
  if (!route.permission) throw new Error(`Bearer route ${route.operationId} names no permission`);
  return route.permission;
}
