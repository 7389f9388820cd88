/** API Gateway HTTP API (payload 2.0) events for the handlers the bench calls in process. */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';

export function baseEvent(opts: {
  method: string;
  path: string;
  routeKey: string;
  host: string;
  headers: Record<string, string>;
  body?: string;
  pathParameters?: Record<string, string>;
  rawQueryString?: string;
}): APIGatewayProxyEventV2 {
  const now = new Date();
  const requestId = randomUUID();
  return {
    version: '2.0',
    routeKey: opts.routeKey,
    rawPath: opts.path,
    rawQueryString: opts.rawQueryString ?? '',
    headers: { host: opts.host, 'user-agent': 'arthr-bench', ...opts.headers },
    requestContext: {
      accountId: '123456789012',
      apiId: 'bench',
      domainName: opts.host,
      domainPrefix: opts.host.split('.')[0]!,
      http: { method: opts.method, path: opts.path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'arthr-bench' },
      requestId,
      routeKey: opts.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(opts.pathParameters ? { pathParameters: opts.pathParameters } : {}),
    ...(opts.body !== undefined ? { body: opts.body } : {}),
    isBase64Encoded: false,
  };
}

/** The event as it arrives behind the gateway's JWT authorizer: the verified claims in the request context. */
export function withJwtClaims(event: APIGatewayProxyEventV2, claims: { sub: string; tid: string; scope: string }): APIGatewayProxyEventV2 {
  const e: APIGatewayProxyEventV2WithJWTAuthorizer = {
    ...event,
    requestContext: {
      ...event.requestContext,
      authorizer: {
        principalId: '',
        integrationLatency: 0,
        jwt: { claims, scopes: claims.scope.split(' ') },
      },
    },
  };
  return e;
}
