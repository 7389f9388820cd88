import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The tenant a piece of work acts for, carried through its awaits: the wrapper opens a scope per
 * request and names the tenant once the host has told it; storage asks for it to choose the
 * credentials it calls AWS with (functions/store/client.ts). A scope holds one tenant for its
 * whole life: naming another is a bug, refused loudly rather than carried on with the wrong
 * tenant's credentials.
 */
interface Scope {
  tenantId?: string;
}

const scopes = new AsyncLocalStorage<Scope>();

/**
 * The session tag that names the tenant an assumed role's session acts for: the tenant roles'
 * grants read it (`${aws:PrincipalTag/arthr-tenant}`), and relying parties' queue and bus
 * policies check it on the webhook delivery role.
 */
export const TENANT_SESSION_TAG = 'arthr-tenant';

/** Runs `fn` in a scope of its own, for `tenantId` if it is known yet. */
export function inTenantScope<T>(fn: () => T, tenantId?: string): T {
  return scopes.run(tenantId ? { tenantId } : {}, fn);
}

/** Names the scope's tenant (once; the same tenant again is fine). Outside a scope, nothing happens. */
export function enterTenant(tenantId: string): void {
  const scope = scopes.getStore();
  if (!scope) return;
  if (scope.tenantId !== undefined && scope.tenantId !== tenantId) {
    throw new Error(`this work acts for tenant ${scope.tenantId}, not ${tenantId}`);
  }
  scope.tenantId = tenantId;
}

/** The tenant the current work acts for, if it has been named. */
export function scopedTenant(): string | undefined {
  return scopes.getStore()?.tenantId;
}

/**
 * Runs one record's work (a queue message, a stream record, an index entry, a job) for the tenant
 * the record names, in a scope of its own: on AWS its storage calls then go through the function's
 * tenant role for that tenant. A record that names no tenant is refused (the promise rejects, so
 * the caller fails that record), never run unscoped: locally, where no tenant role is set, an
 * unscoped run would act for any tenant.
 */
export function forRecordTenant<T>(tenantId: unknown, fn: () => Promise<T>): Promise<T> {
  if (typeof tenantId !== 'string' || !tenantId) return Promise.reject(new Error('this record names no tenant: it is not handled'));
  return inTenantScope(fn, tenantId);
}
