/**
 * A custom page version's folder (object key prefix, and URL path on the pages origin):
 * `tenants/{tenantId}/custom-pages/{pageId}/{servingSecret}/`. The secret is 128 random bits
 * (32 hex digits) per version, so the folder cannot be guessed. Without a secret: every folder
 * of the page. Callers pass ids they generated or read (a tenant id, a UUID).
 */
export function customPageFolder(tenantId: string, pageId: string, servingSecret?: string): string {
  if (!/^[a-z0-9-]{1,63}$/.test(tenantId) || !/^[A-Za-z0-9_-]{1,128}$/.test(pageId)) throw new Error('invalid custom page folder');
  const page = `tenants/${tenantId}/custom-pages/${pageId}/`;
  if (servingSecret === undefined) return page;
  if (!/^[0-9a-f]{32}$/.test(servingSecret)) throw new Error('a serving secret is 32 hex digits');
  return `${page}${servingSecret}/`;
}
