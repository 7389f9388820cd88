/**
 * Who may frame a custom page: the one CSP directive its files are served with, on AWS
 * (CloudFront's response headers policy, lib/constructs/pages.ts) and locally (lib/local/pages-host.ts).
 * The journey pages on the tenant hosts frame it; no other site can dress a relying party's page
 * in its own. Nothing else is restricted: what a page loads is its own to declare (a meta CSP).
 */
export function pagesFrameAncestors(tenantHosts: string): string {
  return `frame-ancestors ${tenantHosts}`;
}
