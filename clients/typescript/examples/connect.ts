/**
 * Token: a client for one tenant, made from an API key. The key is exchanged for a bearer token
 * on the first call and again shortly before the token expires; nothing else sees the key.
 *
 * Locally `npm start` keeps the demo tenant's key and base URL in .local/bootstrap.json; on AWS
 * pass your tenant's values (ARTHR_BASE_URL, ARTHR_API_KEY).
 */
import { readFileSync } from 'node:fs';
import { createArthrClient, tenantBaseUrl, type ArthrClient } from '../src/index.js';
import { localhostFetch } from '../src/node.js';

export function connect(): ArthrClient {
  const boot = process.env.ARTHR_API_KEY
    ? undefined
    : (JSON.parse(readFileSync(`${process.env.LOCAL_DIR ?? '.local'}/bootstrap.json`, 'utf8')) as { apiKey: string; baseUrl: string });
  return createArthrClient({
    baseUrl: process.env.ARTHR_BASE_URL ?? boot?.baseUrl ?? tenantBaseUrl({ tenant: 'demo', port: 8080 }),
    apiKey: process.env.ARTHR_API_KEY ?? boot!.apiKey,
    // Node does not resolve `*.localhost` everywhere; this fetch reaches the local runtime anyway.
    fetch: localhostFetch,
  });
}

/** The token itself, for a call made without this client (a curl, another library). */
export async function bearerToken(client: ArthrClient): Promise<string> {
  return client.tokens!.token();
}

/** A first call with the token: the newest API keys of the tenant. */
export async function newestKeys(client: ArthrClient) {
  const { data, error } = await client.GET('/api/arthr/apiKeys', { params: { query: { size: 5, sort: ['createdDtm,desc'] } } });
  if (error) throw new Error(`${error.code}: ${error.message}`);
  return data.content.map((key) => ({ id: key.id, name: key.name, status: key.status }));
}
