/**
 * The permission catalogue. A permission on the wire is `TNT#{tenantId}#{name}`; tokens carry
 * the bare names in `scope` (so the API Gateway JWT authorizer can check route scopes, which
 * cannot name a tenant) plus the tenant in `tid`, which together say the same thing.
 */
export const PERMISSIONS = [
  'ArthrServer:listTenantApiKeys',
  'ArthrServer:createTenantApiKey',
  'ArthrServer:getFromTenant',
  'ArthrServer:updateTenantApiKey',
  'ArthrServer:deleteFromTenant',
  'ProcessManager:addProcessToken',
  'ProcessManager:getProcessInstance',
  // An instance's events (what its webhooks were sent): a read of its own, so a key that reads
  // statuses does not also read every notification body a journey sent.
  'ProcessManager:getProcessInstanceEvents',
  // Not named by the spec; the same naming for the operations it leaves open.
  'ProcessManager:getProcessTokens',
  'ProcessManager:createProcessInstance',
  // A reviewer's decision on an instance in review (the family's back office): its own permission, not a read's.
  'ProcessManager:reviewProcessInstance',
  // Resume an instance a Pause Instance step paused, as its resume URL does (not named by the spec).
  'ProcessManager:resumeProcessInstance',
  'ProcessManager:addProcessDefinition',
  'ProcessManager:getProcessDefinitions',
  'ProcessManager:addProcessDefinitionTag',
  // Data forms by name and version, in the family's pattern.
  'ProcessManager:addCustomDataForm',
  'ProcessManager:getCustomDataForms',
  'ProcessManager:updateCustomDataForm',
  // Cloud functions and secrets, in the same pattern (the spec names only GET .../cloudSecrets).
  'ProcessManager:addCloudFunction',
  'ProcessManager:getCloudFunctions',
  'ProcessManager:updateCloudFunction',
  'ProcessManager:getCloudSecrets',
  'ProcessManager:addCloudSecret',
  'ProcessManager:updateCloudSecret',
  'ProcessManager:deleteCloudSecret',
  // Custom pages, in the data forms' pattern under the family's theme server.
  'ThemeServer:getCustomPages',
  'ThemeServer:addCustomPage',
  'ThemeServer:updateCustomPage',
  'ThemeServer:deleteCustomPage',
  'UserDataServer:getProcessInstanceUserData',
  'createPasscodeRegistrationForUser',
  'createUserPasscodeRegistrationForUserByExtUserId',
  'completePasscodeRegistration',
  'deregisterPasscodeForUser',
  'deregisterPasscodeForUserByExtUserId',
  'IdentityStore:sendPushNotification',
  // Identity store operations the spec lists without a permission, named in its pattern.
  'IdentityStore:getStores',
  'IdentityStore:addStore',
  'IdentityStore:updateStore',
  'IdentityStore:addUser',
  'IdentityStore:getUser',
  'IdentityStore:queryEvents',
  'IdentityStore:registerPasskey',
  'IdentityStore:authenticatePasskey',
  // Face watchlists (the spec names the two reads without a permission).
  'WatchlistManager:getFaceWatchlists',
  'WatchlistManager:addFaceWatchlist',
  'WatchlistManager:updateFaceWatchlist',
  // Webhooks: read them (and their deliveries); add one; change, rotate, test, replay or delete one.
  'WebhookManager:getWebhooks',
  'WebhookManager:addWebhook',
  'WebhookManager:updateWebhook',
  // Themes (the family's theme server): read them; add a version; change an EDITABLE one, its assets and any one's status.
  'ThemeServer:getThemes',
  'ThemeServer:addTheme',
  'ThemeServer:updateTheme',
] as const;

export type PermissionName = (typeof PERMISSIONS)[number];

const KNOWN = new Set<string>(PERMISSIONS);

/** A tenant id is one DNS label: it is the first label of the tenant's host. */
export const TENANT_ID_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function qualify(tenantId: string, name: PermissionName): string {
  return `TNT#${tenantId}#${name}`;
}

/** `TNT#{tenant}#{name}` → its parts, or undefined when it is not a well-formed permission. */
export function parsePermission(value: string): { tenantId: string; name: PermissionName } | undefined {
  const m = /^TNT#([^#]+)#([^#]+)$/.exec(value);
  if (!m || !TENANT_ID_PATTERN.test(m[1]!) || !KNOWN.has(m[2]!)) return undefined;
  return { tenantId: m[1]!, name: m[2] as PermissionName };
}

export function isPermissionName(value: string): value is PermissionName {
  return KNOWN.has(value);
}

export function allPermissions(tenantId: string): string[] {
  return PERMISSIONS.map((p) => qualify(tenantId, p));
}
