import { InvalidHostError } from '../errors.js';
import { TENANT_ID_PATTERN } from '../auth/permissions.js';
import type { Config } from '../config.js';

/** How the caller reached the service, for a refusal that names the exact URL to use instead. */
export interface Reached {
  /** `https` behind API Gateway; `http` on the local runtime. */
  scheme?: 'http' | 'https';
  /** The Host header as sent (its port is kept in the URL: locally, 8080 or PORT). */
  host?: string;
  /** The request's path, without its query (which may hold a capability). */
  path?: string;
}

/** `http://{tenantId}.fir.localhost:8080`: the tenant origin as this caller would reach it. */
function tenantOrigin(config: Pick<Config, 'SERVICE_REGION' | 'SERVICE_DOMAIN'>, reached: Reached): string {
  const scheme = reached.scheme ?? 'https';
  const port = /^[A-Za-z0-9.-]+:(\d{1,5})$/.exec(reached.host ?? '')?.[1];
  const shown = port && !(scheme === 'https' && port === '443') && !(scheme === 'http' && port === '80') ? `:${port}` : '';
  return `${scheme}://{tenantId}.${config.SERVICE_REGION}.${config.SERVICE_DOMAIN}${shown}`;
}

/**
 * The tenant is the first label of `{tenantId}.{region}.{serviceDomain}`. A host of another
 * region, or of no tenant at all, is refused: a body never names a tenant. The refusal names the
 * URL to call, with the port the caller used (locally, the one `npm start` listens on).
 */
export function tenantFromHost(host: string | undefined, config: Pick<Config, 'SERVICE_REGION' | 'SERVICE_DOMAIN'>, reached: Reached = {}): string {
  const origin = tenantOrigin(config, reached);
  // The caller's own path, short enough to read back; never the query.
  const path = reached.path && reached.path !== '/' && reached.path.length <= 200 ? reached.path : '';
  const use = `${origin}${path}`;
  const refused = () => new InvalidHostError(`Tenant routes are served on ${origin}, your tenant's id in place of {tenantId}${path ? `: call ${use}` : ''}.`);
  // One host name and at most one port, as RFC 9110 has it: `a.b:1:2`, userinfo, spaces or a
  // second host are refused, not cut down to something that looks right.
  if (!/^[A-Za-z0-9.-]+(?::\d{1,5})?$/.test(host ?? '')) throw refused();
  const name = (host ?? '').toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  const suffix = `.${config.SERVICE_DOMAIN.toLowerCase()}`;
  if (!name.endsWith(suffix)) throw refused();
  const labels = name.slice(0, -suffix.length).split('.');
  if (labels.length !== 2 || !TENANT_ID_PATTERN.test(labels[0]!)) throw refused();
  if (labels[1] !== config.SERVICE_REGION) {
    throw new InvalidHostError(`This deployment serves region ${config.SERVICE_REGION}; call ${use.replace('{tenantId}', labels[0]!)}.`);
  }
  return labels[0]!;
}
