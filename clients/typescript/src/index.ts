/**
 * A typed client of the identity-verification service: openapi-fetch over the types
 * openapi-typescript generates from the service's OpenAPI document (./schema.d.ts), with the two
 * things every caller otherwise writes by hand: the tenant's base URL, and the API key exchanged
 * for a bearer token that is refreshed before it expires.
 */
import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths, webhooks } from './schema.js';

export type { components, operations, paths, webhooks } from './schema.js';

/** A named schema of the document: `Schema<'ProcessInstance'>`. */
export type Schema<N extends keyof components['schemas']> = components['schemas'][N];

/** An event's payload as a webhook receives it: `WebhookEvent<'process-instance.completed'>`. */
export type WebhookEvent<T extends keyof webhooks> = webhooks[T] extends {
  post: { requestBody?: { content: { 'application/json': infer E } } };
}
  ? E
  : never;

/** Where a tenant's API is served. */
export type TenantLocation =
  /** The local runtime (`npm start`): `http://{tenant}.fir.localhost:{port}`. */
  | { tenant: string; port: number | string }
  /** A deployment: `https://{tenant}.{region}.{serviceDomain}`. */
  | { tenant: string; region: string; serviceDomain: string };

/** The tenant's base URL, the API's server (every route is served on the tenant's own host). */
export function tenantBaseUrl(where: TenantLocation): string {
  return 'port' in where ? `http://${where.tenant}.fir.localhost:${where.port}` : `https://${where.tenant}.${where.region}.${where.serviceDomain}`;
}

export interface ClientOptions {
  /** The tenant's base URL, for example `http://demo.fir.localhost:8080` (see `tenantBaseUrl`). */
  baseUrl: string;
  /**
   * An API key: exchanged for a bearer token on the first call (POST /api/arthr/apiKeys/issue),
   * and again before that token expires. The key itself is sent to the issue route only.
   */
  apiKey?: string;
  /** A bearer token you got yourself, used as is (instead of `apiKey`). */
  token?: string;
  /** How long before its expiry a token is replaced; 60 s by default. */
  refreshMarginSeconds?: number;
  /** The fetch to use (tests, proxies); the global one by default. */
  fetch?: (input: Request) => Promise<Response>;
  /** The clock, in milliseconds (tests); `Date.now` by default. */
  now?: () => number;
}

/** A refused token exchange, with the service's error body (`code`, `message`). */
export class TokenExchangeError extends Error {
  constructor(
    readonly status: number,
    readonly body: Schema<'Error'> | undefined,
  ) {
    super(`token exchange refused (${status}${body ? ` ${body.code}: ${body.message}` : ''})`);
    this.name = 'TokenExchangeError';
  }
}

/** Issues bearer tokens from an API key and keeps the current one until shortly before it expires. */
export class TokenSource {
  private current: { token: string; expiresAt: number } | undefined;
  private pending: Promise<string> | undefined;
  private readonly issuer: Client<paths>;

  constructor(
    private readonly apiKey: string,
    options: Pick<ClientOptions, 'baseUrl' | 'fetch' | 'refreshMarginSeconds' | 'now'>,
  ) {
    this.issuer = createFetchClient<paths>({ baseUrl: options.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
    this.margin = (options.refreshMarginSeconds ?? 60) * 1000;
    this.now = options.now ?? Date.now;
  }

  private readonly margin: number;
  private readonly now: () => number;

  /** A token good for at least the refresh margin; one exchange at a time, shared by concurrent callers. */
  async token(): Promise<string> {
    if (this.current && this.now() < this.current.expiresAt - this.margin) return this.current.token;
    this.pending ??= this.issue().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Forgets the current token (after the key's permissions changed, say): the next call issues a new one. */
  reset(): void {
    this.current = undefined;
  }

  private async issue(): Promise<string> {
    const issuedAt = this.now();
    const { data, error, response } = await this.issuer.POST('/api/arthr/apiKeys/issue', {
      params: { header: { 'x-api-key': this.apiKey } },
      body: {},
    });
    if (!data) throw new TokenExchangeError(response.status, error as Schema<'Error'> | undefined);
    this.current = { token: data.token, expiresAt: issuedAt + data.ttl * 1000 };
    return data.token;
  }
}

export type ArthrClient = Client<paths> & {
  /** The token source when the client was made with an API key. */
  tokens?: TokenSource;
};

/**
 * The typed client: `client.GET('/api/process-manager/processInstances/{processInstanceId}',
 * { params: { path: { processInstanceId } } })` answers `{ data, error, response }`, `data`
 * typed by the operation's 2xx schema and `error` by its error schema (`{ code, message }`).
 * Each request carries `Authorization: Bearer ...` unless it sets its own Authorization or
 * X-API-Key header (the routes that take a key directly).
 */
export function createArthrClient(options: ClientOptions): ArthrClient {
  const client: ArthrClient = createFetchClient<paths>({ baseUrl: options.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const tokens = options.apiKey ? new TokenSource(options.apiKey, options) : undefined;
  const fixed = options.token;
  if (tokens || fixed) {
    const bearer: Middleware = {
      async onRequest({ request }) {
        if (request.headers.has('authorization') || request.headers.has('x-api-key')) return request;
        request.headers.set('authorization', `Bearer ${fixed ?? (await tokens!.token())}`);
        return request;
      },
    };
    client.use(bearer);
  }
  if (tokens) client.tokens = tokens;
  return client;
}
