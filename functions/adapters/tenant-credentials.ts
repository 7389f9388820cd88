/** What an SDK client's `credentials` provider returns (the SDK's AwsCredentialIdentity). */
export interface AwsCredentialIdentity {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

import { TENANT_ID_PATTERN } from '../auth/permissions.js';
import { getStoreConfig } from '../config.js';
import { scopedTenant, TENANT_SESSION_TAG } from '../shared/tenant-scope.js';

/** Credentials are renewed this long before they expire (the SDK's own margin, so a call never signs with a dying session). */
const RENEW_BEFORE_MS = 5 * 60_000;
/** Tenants whose sessions a container keeps; the least recently used one is dropped past it. */
export const KEPT_TENANT_SESSIONS = 256;

export interface TenantCredentialsOptions {
  /** The role to assume; its trust takes this function's role with the tenant tag alone. */
  roleArn: string;
  /** 900 to 3,600: a role assumed from a Lambda's own role session is chained, and STS caps chained sessions at an hour. */
  durationSeconds?: number;
  /** The STS client (tests hand in one that aws-sdk-client-mock intercepts). */
  sts?: () => Promise<import('@aws-sdk/client-sts').STSClient>;
}

/**
 * The tenant's credentials; with `validForMs`, ones that last at least that long from now (a
 * pre-signed URL lives no longer than the session that signed it), assumed anew if the kept ones
 * end sooner.
 */
export type TenantCredentials = (tenantId: string, validForMs?: number) => Promise<AwsCredentialIdentity>;

/**
 * Credentials for one tenant at a time: STS AssumeRole on `roleArn` with the session tag
 * `arthr-tenant` set to the tenant and the session named after it (CloudTrail then names the
 * tenant of every call), kept per tenant until five minutes before they expire. Concurrent asks
 * for one tenant share one AssumeRole; a failed one is not kept, so the next ask tries again.
 */
export function tenantCredentials(options: TenantCredentialsOptions): TenantCredentials {
  const kept = new Map<string, { credentials: Promise<AwsCredentialIdentity>; renewAt: number }>();
  let client: Promise<import('@aws-sdk/client-sts').STSClient> | undefined;
  const sts = () =>
    (client ??= options.sts?.() ?? import('@aws-sdk/client-sts').then(({ STSClient }) => new STSClient({})));
  const duration = options.durationSeconds ?? 3600;

  async function assume(tenantId: string): Promise<AwsCredentialIdentity> {
    const { AssumeRoleCommand } = await import('@aws-sdk/client-sts');
    const out = await (await sts()).send(
      new AssumeRoleCommand({
        RoleArn: options.roleArn,
        RoleSessionName: `arthr-${tenantId}`.slice(0, 64),
        DurationSeconds: duration,
        Tags: [{ Key: TENANT_SESSION_TAG, Value: tenantId }],
      }),
    );
    const c = out.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken) throw new Error('STS returned no credentials');
    return {
      accessKeyId: c.AccessKeyId,
      secretAccessKey: c.SecretAccessKey,
      sessionToken: c.SessionToken,
      expiration: c.Expiration ?? new Date(Date.now() + duration * 1000),
    };
  }

  const forTenant: TenantCredentials = async (tenantId, validForMs = 0) => {
    const credentials = await keptOrNew(tenantId);
    if (validForMs <= 0 || !credentials.expiration || credentials.expiration.getTime() - Date.now() >= validForMs) return credentials;
    const entry = kept.get(tenantId);
    if (entry && (await entry.credentials) === credentials) kept.delete(tenantId);
    return keptOrNew(tenantId);
  };
  return forTenant;

  function keptOrNew(tenantId: string): Promise<AwsCredentialIdentity> {
    // The tag is what the grants compare partitions with: only an id that can be a tenant's.
    if (!TENANT_ID_PATTERN.test(tenantId)) return Promise.reject(new Error('not a tenant id: no session is made for it'));
    const now = Date.now();
    const hit = kept.get(tenantId);
    if (hit && hit.renewAt > now) {
      // Most recently used last: the map's first entry is the one to drop.
      kept.delete(tenantId);
      kept.set(tenantId, hit);
      return hit.credentials;
    }
    const entry = { credentials: assume(tenantId), renewAt: now + duration * 1000 - RENEW_BEFORE_MS };
    kept.delete(tenantId);
    kept.set(tenantId, entry);
    while (kept.size > KEPT_TENANT_SESSIONS) kept.delete(kept.keys().next().value!);
    entry.credentials.then(
      (c) => {
        if (c.expiration) entry.renewAt = Math.min(entry.renewAt, c.expiration.getTime() - RENEW_BEFORE_MS);
      },
      () => {
        if (kept.get(tenantId) === entry) kept.delete(tenantId);
      },
    );
    return entry.credentials;
  }
}

let fromEnvironment: { roleArn: string; credentials: TenantCredentials } | undefined;

/** The process's tenant credentials for the role TENANT_ROLE_ARN names, or undefined when it names none (locally, and functions that act for no tenant). */
export function tenantCredentialsOf(roleArn: string | undefined): TenantCredentials | undefined {
  if (!roleArn) return undefined;
  if (fromEnvironment?.roleArn !== roleArn) fromEnvironment = { roleArn, credentials: tenantCredentials({ roleArn }) };
  return fromEnvironment.credentials;
}

/**
 * One client per tenant (each holds its own connections and signs with the tenant's session),
 * made on first use and kept for the `keep` most recently used tenants; the one dropped past it
 * is closed. A client whose making failed is not kept.
 */
export function perTenantClients<T>(make: (tenantId: string) => Promise<T>, close: (client: T) => void, keep: number): (tenantId: string) => Promise<T> {
  const clients = new Map<string, Promise<T>>();
  return (tenantId) => {
    let client = clients.get(tenantId);
    if (client) {
      clients.delete(tenantId);
    } else {
      const made = make(tenantId);
      made.catch(() => clients.get(tenantId) === made && clients.delete(tenantId));
      client = made;
    }
    clients.set(tenantId, client);
    while (clients.size > keep) {
      const [oldest, dropped] = clients.entries().next().value!;
      clients.delete(oldest);
      void dropped.then(close, () => undefined);
    }
    return client;
  };
}

/**
 * An AWS client's getters. `forWork` acts for the current work's tenant when the function has a
 * tenant role (TENANT_ROLE_ARN, on AWS): one client per tenant (`perTenantClients`, the `keep` most
 * recent), signing with that tenant's session, and work that names no tenant refused before any
 * call. Without a tenant role (locally, and functions that act for the service itself) it is
 * `own`: the process's one client with the function's own credentials, made on first use. `make`
 * builds a client with the credentials given, or the default ones.
 */
export function tenantAwareClient<T>(
  make: (credentials?: () => Promise<AwsCredentialIdentity>) => Promise<T>,
  close: (client: T) => void,
  keep: number,
): { forWork: () => Promise<T>; own: () => Promise<T> } {
  let made: Promise<T> | undefined;
  let byTenant: { roleArn: string; client: (tenantId: string) => Promise<T> } | undefined;
  const own = () => {
    made ??= make();
    made.catch(() => (made = undefined));
    return made;
  };
  const forWork = () => {
    const { TENANT_ROLE_ARN } = getStoreConfig();
    if (!TENANT_ROLE_ARN) return own();
    const tenantId = scopedTenant();
    if (!tenantId) return Promise.reject(new Error('this function acts only for a tenant, and none is named for this work'));
    if (byTenant?.roleArn !== TENANT_ROLE_ARN) {
      const credentials = tenantCredentialsOf(TENANT_ROLE_ARN)!;
      byTenant = { roleArn: TENANT_ROLE_ARN, client: perTenantClients((t) => make(() => credentials(t)), close, keep) };
    }
    return byTenant.client(tenantId);
  };
  return { forWork, own };
}
