import { InvalidHostError } from '../errors.js';
import { TENANT_ID_PATTERN } from '../auth/permissions.js';
import type { Config } from '../config.js';

/**
 * The tenant is the first label of `{tenantId}.{region}.{serviceDomain}`. A host of another
 * region, or of no tenant at all, is refused: a body never names a tenant.
 */
export function tenantFromHost(host: string | undefined, config: Pick<Config, 'SERVICE_REGION' | 'SERVICE_DOMAIN'>): string {
  const example = `{tenantId}.${config.SERVICE_REGION}.${config.SERVICE_DOMAIN}`;
  // One host name and at most one port, as RFC 9110 has it: `a.b:1:2`, userinfo, spaces or a
  // second host are refused, not cut down to something that looks right.
  if (!/^[A-Za-z0-9.-]+(?::\d{1,5})?$/.test(host ?? '')) throw new InvalidHostError(`Tenant routes are served on ${example}.`);
  const name = (host ?? '').toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  const suffix = `.${config.SERVICE_DOMAIN.toLowerCase()}`;
  if (!name.endsWith(suffix)) {
    throw new InvalidHostError(`Tenant routes are served on ${example}.`);
  }
  const labels = name.slice(0, -suffix.length).split('.');
  if (labels.length !== 2 || !TENANT_ID_PATTERN.test(labels[0]!)) {
    throw new InvalidHostError(`Tenant routes are served on ${example}.`);
  }
  if (labels[1] !== config.SERVICE_REGION) {
    throw new InvalidHostError(`This deployment serves region ${config.SERVICE_REGION}; use ${example}.`);
  }
  return labels[0]!;
}
