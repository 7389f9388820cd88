import { customPageFolder } from '../shared/custom-page-folder.js';
import { TENANT_ID_PATTERN } from '../auth/permissions.js';
import { OUTBOX_SORT_PREFIX } from '../shared/events.js';
import { INSTANCE_VIEW_SHARDS, OPEN_INDEX_SHARDS, OUTBOX_SHARDS, WEBHOOK_DELIVERY_SHARDS, shardLabel, shardOf } from './shards.js';

/**
 * The only place that builds table keys. Every key of a tenant's data, GSI keys included, starts
 * with `TNT#{tenantId}#`, so a repository function that is handed one tenant cannot reach
 * another's items, whatever ids it is given. The one exception is the service's own bookkeeping,
 * which belongs to no tenant and holds no tenant's data: keys starting with `SVC#` (`serviceKeys`),
 * read and written only by the stores of the state machines' reference items, never with an id a
 * request gives.
 */
export type InstanceViewKind = 'T' | 'S' | 'D';
export type InstanceViewPartition = { kind: 'T' } | { kind: 'S'; status: string } | { kind: 'D'; name: string } | { kind: 'W'; term: string };

export interface ItemKey {
  PK: string;
  SK: string;
}

function tenantPrefix(tenantId: string): string {
  // Defence in depth: a tenant id with a separator in it could forge another tenant's prefix.
  if (!TENANT_ID_PATTERN.test(tenantId)) throw new Error('invalid tenant id for a key');
  return `TNT#${tenantId}#`;
}

function part(value: string): string {
  if (value.includes('#')) throw new Error('key parts must not contain #');
  return value;
}

/** The partition and sort-key prefixes of each kind of versioned artifact (`keys.versioned`). */
const VERSIONED_KINDS = {
  customDataForm: { partition: 'CDFORMS', item: 'CDF', nameVersion: 'CDFNV' },
  cloudFunction: { partition: 'CLOUDFNS', item: 'CFN', nameVersion: 'CFNNV' },
  theme: { partition: 'THEMES', item: 'THM', nameVersion: 'THMNV' },
  customPage: { partition: 'CPAGES', item: 'CPG', nameVersion: 'CPGNV' },
} as const;
export type VersionedKind = keyof typeof VERSIONED_KINDS;

export const keys = {
  tenant(tenantId: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}TENANT`, SK: 'TENANT' };
  },
  /** All of a tenant's API keys share one partition: listing is one Query. */
  apiKeyPartition(tenantId: string): string {
    return `${tenantPrefix(tenantId)}APIKEYS`;
  },
  apiKey(tenantId: string, apiKeyId: string): ItemKey {
    return { PK: keys.apiKeyPartition(tenantId), SK: `APIKEY#${part(apiKeyId)}` };
  },
  apiKeySortPrefix: 'APIKEY#',
  /**
   * An API key's list view: a small item (its id and name) sorted by creation time, so the list
   * pages, filters by name and counts without reading keys (docs/lists.md).
   */
  apiKeyView(tenantId: string, createdDtm: string, id: string): ItemKey {
    return { PK: keys.apiKeyPartition(tenantId), SK: `${keys.apiKeyViewPrefix}${part(createdDtm)}#${part(id)}` };
  },
  apiKeyViewPrefix: 'APIKEYC#',

  /** Process tokens and their unique-name locks share one partition per tenant. */
  processTokenPartition(tenantId: string): string {
    return `${tenantPrefix(tenantId)}PTOKENS`;
  },
  processToken(tenantId: string, id: string): ItemKey {
    return { PK: keys.processTokenPartition(tenantId), SK: `PTOKEN#${part(id)}` };
  },
  processTokenName(tenantId: string, name: string): ItemKey {
    return { PK: keys.processTokenPartition(tenantId), SK: `PTNAME#${encoded(name)}` };
  },
  processTokenSortPrefix: 'PTOKEN#',
  /**
   * One of a token's use-count shards (PROCESS_TOKEN_USE_SHARDS): a partition of its own, out of
   * the tokens' partition, so the uses of one busy token spread over several partitions and never
   * crowd the tenant's token list. A token made before shards counts on its own item.
   */
  processTokenUse(tenantId: string, id: string, shard: number): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}PTUSE#${part(id)}#${shardLabel(shard)}`, SK: 'PTUSE' };
  },
  /**
   * A process token's list view: a small item (its id, name and TTL) sorted by creation time, so
   * the list pages, filters by name and counts without reading tokens (docs/lists.md).
   */
  processTokenView(tenantId: string, createdDtm: string, id: string): ItemKey {
    return { PK: keys.processTokenPartition(tenantId), SK: `${keys.processTokenViewPrefix}${part(createdDtm)}#${part(id)}` };
  },
  processTokenViewPrefix: 'PTOKENC#',

  /**
   * A list's own item in its partition (`LIST`): whether every item of the list has its list
   * view (tenants created since views exist, or after `operator backfill-lists`), and the count
   * a list keeps with its writes.
   */
  listMeta(partition: string): ItemKey {
    return { PK: partition, SK: 'LIST' };
  },

  /** Definitions, their name + version locks and their tags share one partition per tenant. */
  definitionPartition(tenantId: string): string {
    return `${tenantPrefix(tenantId)}PDEFS`;
  },
  definition(tenantId: string, id: string): ItemKey {
    return { PK: keys.definitionPartition(tenantId), SK: `PDEF#${part(id)}` };
  },
  definitionNameVersion(tenantId: string, name: string, version: number): ItemKey {
    return { PK: keys.definitionPartition(tenantId), SK: `PDEFNV#${encoded(name)}#${String(version).padStart(9, '0')}` };
  },
  /** Every name + version item of the tenant: by name (in the key's encoding of it), then version. */
  definitionNameVersionSortPrefix: 'PDEFNV#',
  /** The name and version a name + version item's sort key holds; undefined for any other sort key. */
  parseDefinitionNameVersion(sk: string): { name: string; version: number } | undefined {
    const m = /^PDEFNV#([A-Za-z0-9_-]+)#(\d{9})$/.exec(sk);
    const name = m ? decoded(m[1]!) : undefined;
    return name === undefined ? undefined : { name, version: Number(m![2]) };
  },
  /** Every version of a name: its name + version items sort by version (zero-padded). */
  definitionNameVersionsPrefix(name: string): string {
    return `PDEFNV#${encoded(name)}#`;
  },
  /** The version counter of a name: the last version number handed out for an upload. */
  definitionVersionCounter(tenantId: string, name: string): ItemKey {
    return { PK: keys.definitionPartition(tenantId), SK: `PDEFSEQ#${encoded(name)}` };
  },
  /** One chunk of a version's stored document (`definition`, `bpmn`), in order. */
  definitionBlobChunk(tenantId: string, id: string, document: string, index: number): ItemKey {
    return { PK: keys.definitionPartition(tenantId), SK: `${keys.definitionBlobPrefix(id)}${part(document)}#${String(index).padStart(4, '0')}` };
  },
  /** Every chunk of a version's documents (not under `PDEF#`, so listing versions reads none). */
  definitionBlobPrefix(id: string): string {
    return `PDEFBLOB#${part(id)}#`;
  },
  definitionTag(tenantId: string, tag: string): ItemKey {
    return { PK: keys.definitionPartition(tenantId), SK: `PDEFTAG#${encoded(tag)}` };
  },
  definitionSortPrefix: 'PDEF#',

  /**
   * Artifacts kept by name and version (data forms, cloud functions) share one partition per
   * tenant and kind: each version's item (`{item}#{id}`, with its content) and its name + version
   * item (`{nameVersion}#{name}#{version}`), which makes the pair unique and, holding the
   * version's summary, lists a name's versions in version order with one Query.
   */
  versioned(kind: VersionedKind) {
    const { partition, item, nameVersion } = VERSIONED_KINDS[kind];
    const of = {
      partition: (tenantId: string) => `${tenantPrefix(tenantId)}${partition}`,
      item: (tenantId: string, id: string): ItemKey => ({ PK: of.partition(tenantId), SK: `${item}#${part(id)}` }),
      nameVersion: (tenantId: string, name: string, version: number): ItemKey => ({
        PK: of.partition(tenantId),
        SK: `${of.versionsPrefix(name)}${String(version).padStart(9, '0')}`,
      }),
      /** The sort-key prefix of one name's version items. */
      versionsPrefix: (name: string) => `${nameVersion}#${encoded(name)}#`,
      /** The sort-key prefix of every name's version items (by name, then version). */
      allVersionsPrefix: `${nameVersion}#`,
    };
    return of;
  },

  /** Each instance has its own partition (its later items: screens, user data, images). */
  instance(tenantId: string, id: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}PI#${part(id)}`, SK: 'PI' };
  },
  /** GSI1 lists a tenant's instances by creation time. */
  instanceIndex(tenantId: string, createdAt: string, id: string): { GSI1PK: string; GSI1SK: string } {
    return { GSI1PK: keys.instanceIndexPartition(tenantId), GSI1SK: `${createdAt}#${part(id)}` };
  },
  instanceIndexPartition(tenantId: string): string {
    return `${tenantPrefix(tenantId)}PIS`;
  },
  /**
   * GSI2, while an instance is open (no final status): sorted by when the reconciler next asks
   * about its execution (`reconcileAt`, ISO 8601), so what is due sorts first.
   */
  instanceOpen(tenantId: string, reconcileAt: string, id: string): { GSI2PK: string; GSI2SK: string } {
    // OPEN_INDEX_SHARDS partitions per tenant, by instance (`OPEN#{nn}`; instances put on it
    // before shards keep `OPEN`): the reconciler Scans the index, so no reader names a partition.
    return { GSI2PK: keys.instanceOpenPartition(tenantId, shardOf(id, OPEN_INDEX_SHARDS)), GSI2SK: `${part(reconcileAt)}#${part(id)}` };
  },
  /** A GSI2 partition of open instances: a shard, or (none given) the one from before shards. */
  instanceOpenPartition(tenantId: string, shard?: number): string {
    return `${tenantPrefix(tenantId)}OPEN${shard === undefined ? '' : `#${shardLabel(shard)}`}`;
  },
  /** A cloud function run's log, in the instance's partition (by step, then start time). */
  cloudFunctionLog(tenantId: string, id: string, activityId: string, at: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}PI#${part(id)}`, SK: `${keys.cloudFunctionLogPrefix}${part(activityId)}#${part(at)}` };
  },
  cloudFunctionLogPrefix: 'CFLOG#',
  /** A tenant's cloud secrets share one partition: one item per name. */
  cloudSecretPartition(tenantId: string): string {
    return `${tenantPrefix(tenantId)}CLOUDSECRETS`;
  },
  cloudSecret(tenantId: string, name: string): ItemKey {
    return { PK: keys.cloudSecretPartition(tenantId), SK: `SECRET#${encoded(name)}` };
  },
  /**
   * A cloud secret's list view: its summary (never its value) under its name as the API takes it
   * (letters, digits, `_ . -`), so the list pages by name and a name prefix is a key range.
   */
  cloudSecretView(tenantId: string, name: string): ItemKey {
    return { PK: keys.cloudSecretPartition(tenantId), SK: `${keys.cloudSecretViewPrefix}${part(name)}` };
  },
  cloudSecretViewPrefix: 'SECRETN#',
  /** What the end user gave at one step, in the instance's partition. */
  instanceUserData(tenantId: string, id: string, activityId: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}PI#${part(id)}`, SK: `USERDATA#${part(activityId)}` };
  },
  /** A device a Switch Device step gave the journey to, by the SHA-256 (hex) of its capability, in the instance's partition. */
  instanceDevice(tenantId: string, id: string, capabilityHash: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}PI#${part(id)}`, SK: `DEVICE#${part(capabilityHash)}` };
  },
  /** An active liveness challenge of a Capture Face Image step, by the SHA-256 (base64url) of its nonce, in the instance's partition. */
  instanceLivenessChallenge(tenantId: string, id: string, nonceHash: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}PI#${part(id)}`, SK: `LIVENESS#${part(nonceHash)}` };
  },
  /** A Rekognition Face Liveness session of a Capture Face Image step, by its id, in the instance's partition. */
  instanceFaceLivenessSession(tenantId: string, id: string, sessionId: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}PI#${part(id)}`, SK: `FLSESSION#${part(sessionId)}` };
  },
  /** How many Face Liveness sessions a step of the instance has started (each is a paid check). */
  instanceFaceLivenessCount(tenantId: string, id: string, activityId: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}PI#${part(id)}`, SK: `FLCOUNT#${part(activityId)}` };
  },
  /** A liveness frame's SHA-256 (hex), remembered tenant-wide so that no frame is taken twice. */
  livenessFrame(tenantId: string, sha256: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}LVFRAME#${part(sha256)}`, SK: 'LVFRAME' };
  },
  /** A Switch Device step's link, by the SHA-256 (base64url) of its secret, in the instance's partition. */
  instanceSwitchLink(tenantId: string, id: string, secretHash: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}PI#${part(id)}`, SK: `SWITCHLINK#${part(secretHash)}` };
  },
  /** The user step an instance waits at: its own item, so the instance item stays small whatever the session. */
  instanceStep(tenantId: string, id: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}PI#${part(id)}`, SK: 'PISTEP' };
  },
  /**
   * An instance's slim list views, in its own partition: `T` (every instance, by creation time),
   * `S` (by status), `D` (by definition name), and its term views (`W`, below). Each is listed on GSI1 under its own partition
   * (see instanceViewIndexPartition), sorted by `{createdAt}#{id}`.
   */
  instanceView(tenantId: string, id: string, kind: InstanceViewKind): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}PI#${part(id)}`, SK: `VIEW#${kind}` };
  },
  /**
   * A term view: the instance's slim view once more per search term (see
   * functions/shared/search-terms.ts), listed on GSI1 under `PIV#W#{term}`, so the instances with
   * a word are one Query, in creation order like the other views.
   */
  instanceTermView(tenantId: string, id: string, term: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}PI#${part(id)}`, SK: `${keys.instanceTermViewPrefix}${encoded(term)}` };
  },
  /** Every term view of an instance: the sort keys in its partition that begin with this. */
  instanceTermViewPrefix: 'VIEW#W#',
  /** The item of an instance's view in one index partition (a cursor starts after it). */
  instanceViewItem(tenantId: string, id: string, view: InstanceViewPartition): ItemKey {
    return view.kind === 'W' ? keys.instanceTermView(tenantId, id, view.term) : keys.instanceView(tenantId, id, view.kind);
  },
  /**
   * A view's GSI1 partition: one of INSTANCE_VIEW_SHARDS per list (`PIV#T#{nn}`, ...), the shard
   * the instance's (so all views of an instance are in the same shard of each list); without a
   * shard, the list's one partition from before shards, which lists read too until
   * `operator backfill-views` (or each instance's next status change) has moved its views.
   */
  instanceViewIndexPartition(tenantId: string, view: InstanceViewPartition, shard?: number): string {
    const suffix = shard === undefined ? '' : `#${shardLabel(shard)}`;
    if (view.kind === 'T') return `${tenantPrefix(tenantId)}PIV#T${suffix}`;
    if (view.kind === 'S') return `${tenantPrefix(tenantId)}PIV#S#${part(view.status)}${suffix}`;
    if (view.kind === 'W') return `${tenantPrefix(tenantId)}PIV#W#${encoded(view.term)}${suffix}`;
    return `${tenantPrefix(tenantId)}PIV#D#${encoded(view.name)}${suffix}`;
  },
  /** The shard of an instance's views. */
  instanceViewShard(id: string): number {
    return shardOf(id, INSTANCE_VIEW_SHARDS);
  },
  /** Every GSI1 partition of one list: its shards, then its partition from before shards. */
  instanceViewIndexPartitions(tenantId: string, view: InstanceViewPartition): string[] {
    return [...Array.from({ length: INSTANCE_VIEW_SHARDS }, (_, s) => keys.instanceViewIndexPartition(tenantId, view, s)), keys.instanceViewIndexPartition(tenantId, view)];
  },
  instanceViewIndexSort(createdAt: string, id: string): string {
    return `${createdAt}#${part(id)}`;
  },
  /**
   * One version of an instance's session (the execution's state keeps only a reference to it),
   * zero-padded so versions sort in order.
   */
  instanceSession(tenantId: string, id: string, v: number): ItemKey {
    if (!Number.isInteger(v) || v < 0) throw new Error('invalid session version for a key');
    return { PK: `${tenantPrefix(tenantId)}PI#${part(id)}`, SK: `SESSION#${String(v).padStart(9, '0')}` };
  },
  /** The instance item and its waiting step: the sort keys that begin with this (views and user data do not). */
  instanceRecordPrefix: 'PI',
  /** A user step's submission being handed to Step Functions (see StepClaim), in the instance's partition. */
  instanceStepClaim(tenantId: string, id: string, activityId: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}PI#${part(id)}`, SK: `STEPCLAIM#${part(activityId)}` };
  },
  /** A tenant's face watchlists: one partition, an item each. */
  watchlistPartition(tenantId: string): string {
    return `${tenantPrefix(tenantId)}WATCHLISTS`;
  },
  /** How many watchlists the tenant has (kept with each create and delete). */
  watchlistCount(tenantId: string): ItemKey {
    return { PK: keys.watchlistPartition(tenantId), SK: 'COUNT' };
  },
  watchlist(tenantId: string, id: string): ItemKey {
    return { PK: keys.watchlistPartition(tenantId), SK: `WL#${part(id)}` };
  },
  /** A watchlist's members: its own partition. */
  watchlistMemberPartition(tenantId: string, watchlistId: string): string {
    return `${tenantPrefix(tenantId)}WL#${part(watchlistId)}`;
  },
  watchlistMember(tenantId: string, watchlistId: string, memberId: string): ItemKey {
    return { PK: keys.watchlistMemberPartition(tenantId, watchlistId), SK: `M#${part(memberId)}` };
  },
  /** An activity's failed attempts in an instance (External Source Face Match v1's Max Attempts). */
  instanceAttempts(tenantId: string, id: string, activityId: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}PI#${part(id)}`, SK: `ATTEMPTS#${part(activityId)}` };
  },
  instancePartition(tenantId: string, id: string): string {
    return `${tenantPrefix(tenantId)}PI#${part(id)}`;
  },
  instanceUserDataPrefix: 'USERDATA#',
  /** The tenant and id of an instance's main item key; undefined for any other item. */
  parseInstance(key: ItemKey): { tenantId: string; processInstanceId: string } | undefined {
    const m = /^TNT#([^#]+)#PI#([^#]+)$/.exec(key.PK);
    return m && key.SK === 'PI' ? { tenantId: m[1]!, processInstanceId: m[2]! } : undefined;
  },
  idempotency(tenantId: string, key: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}IDEMP#${encoded(key)}`, SK: 'IDEMP' };
  },
  definitionTagSortPrefix: 'PDEFTAG#',

  /** A tenant's identity stores share one partition: listing them is one Query. */
  identityStorePartition(tenantId: string): string {
    return `${tenantPrefix(tenantId)}IDSTORES`;
  },
  identityStore(tenantId: string, storeName: string): ItemKey {
    return { PK: keys.identityStorePartition(tenantId), SK: `STORE#${part(storeName)}` };
  },
  identityStoreSortPrefix: 'STORE#',
  /** A user's partition: the user item, its passcodes and its passkeys. */
  identityUserPartition(tenantId: string, storeName: string, userId: string): string {
    return `${tenantPrefix(tenantId)}IDS#${part(storeName)}#U#${part(userId)}`;
  },
  identityUser(tenantId: string, storeName: string, userId: string): ItemKey {
    return { PK: keys.identityUserPartition(tenantId, storeName, userId), SK: 'USER' };
  },
  /** Makes an external id unique in its store; holds the user id it belongs to. */
  identityUserExternalId(tenantId: string, storeName: string, externalId: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}IDS#${part(storeName)}#EXT#${encoded(externalId)}`, SK: 'EXT' };
  },
  /** One item per passcode policy the user has a passcode under (verifier, salt, history). */
  identityPasscode(tenantId: string, storeName: string, userId: string, policyName: string): ItemKey {
    return { PK: keys.identityUserPartition(tenantId, storeName, userId), SK: `PASSCODE#${part(policyName)}` };
  },
  identityPasscodeSortPrefix: 'PASSCODE#',
  /** A passcode registration in progress (its id is `algorithmInfo.parameters.i`), with a TTL. */
  passcodeRegistration(tenantId: string, storeName: string, sessionId: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}IDS#${part(storeName)}#PCREG#${part(sessionId)}`, SK: 'PCREG' };
  },
  /** A passcode authentication (SRP login) in progress, with a TTL. */
  passcodeLogin(tenantId: string, storeName: string, sessionId: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}IDS#${part(storeName)}#PCLOGIN#${part(sessionId)}`, SK: 'PCLOGIN' };
  },
  /** A WebAuthn ceremony in progress (its challenge), with a TTL. */
  passkeySession(tenantId: string, storeName: string, sessionId: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}IDS#${part(storeName)}#PKSESS#${part(sessionId)}`, SK: 'PKSESS' };
  },
  /** The user's newest pending passkey registration (for the `sessions` read). */
  passkeyPendingRegistration(tenantId: string, storeName: string, userId: string): ItemKey {
    return { PK: keys.identityUserPartition(tenantId, storeName, userId), SK: 'PKPENDING' };
  },
  passkey(tenantId: string, storeName: string, userId: string, passkeyId: string): ItemKey {
    return { PK: keys.identityUserPartition(tenantId, storeName, userId), SK: `PASSKEY#${part(passkeyId)}` };
  },
  passkeySortPrefix: 'PASSKEY#',
  /** Makes a WebAuthn credential id unique in its store; names the passkey it belongs to. */
  passkeyCredential(tenantId: string, storeName: string, credentialId: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}IDS#${part(storeName)}#CRED#${encoded(credentialId)}`, SK: 'CRED' };
  },
  /** One authentication of a user, in the user's partition, by time. */
  userAuthentication(tenantId: string, storeName: string, userId: string, at: string, id: string): ItemKey {
    return { PK: keys.identityUserPartition(tenantId, storeName, userId), SK: `AUTHN#${at}#${part(id)}` };
  },
  userAuthenticationSortPrefix: 'AUTHN#',
  /** The identity store event log: one partition per tenant, sorted by time. */
  identityEventPartition(tenantId: string): string {
    return `${tenantPrefix(tenantId)}IDSEVENTS`;
  },
  identityEvent(tenantId: string, at: string, eventId: string): ItemKey {
    return { PK: keys.identityEventPartition(tenantId), SK: `${at}#${part(eventId)}` };
  },
  /**
   * The outbox: every event the service sends out, sorted by time in OUTBOX_SHARDS partitions
   * per tenant, `TNT#{tenantId}#S{nn}#EVENTS`, the shard a hash of the event's subject (so a
   * subject's events stay in one partition, and one stream shard, in the order written). The
   * shard goes before `EVENTS` so that every outbox partition still ends in `#EVENTS`, which the
   * IAM grants on outbox items match (`TNT#*#EVENTS`), old partition and new alike. The table
   * stream's consumer takes the items whose sort key starts with `EVT#` (no other item's does),
   * so the prefix is part of the contract with lib/constructs/events.ts.
   */
  outboxPartition(tenantId: string, shard: number): string {
    return `${tenantPrefix(tenantId)}S${shardLabel(shard)}#EVENTS`;
  },
  /** Every outbox partition of a tenant: the shards, then the one partition from before shards. */
  outboxPartitions(tenantId: string): string[] {
    return [...Array.from({ length: OUTBOX_SHARDS }, (_, s) => keys.outboxPartition(tenantId, s)), keys.legacyOutboxPartition(tenantId)];
  },
  /**
   * The outbox's one partition per tenant from before shards: written no more, read until its
   * last events expire (30 days after the deploy that brought shards).
   */
  legacyOutboxPartition(tenantId: string): string {
    return `${tenantPrefix(tenantId)}EVENTS`;
  },
  /** The shard of a subject's events. */
  outboxShard(subjectId: string): number {
    return shardOf(subjectId, OUTBOX_SHARDS);
  },
  outboxEvent(tenantId: string, timestamp: string, eventId: string, subjectId: string): ItemKey {
    return { PK: keys.outboxPartition(tenantId, keys.outboxShard(subjectId)), SK: keys.outboxSort(timestamp, eventId) };
  },
  /** An event's key in the partition from before shards. */
  legacyOutboxEvent(tenantId: string, timestamp: string, eventId: string): ItemKey {
    return { PK: keys.legacyOutboxPartition(tenantId), SK: keys.outboxSort(timestamp, eventId) };
  },
  outboxSort(timestamp: string, eventId: string): string {
    return `${keys.outboxSortPrefix}${timestamp}#${part(eventId)}`;
  },
  outboxSortPrefix: OUTBOX_SORT_PREFIX,
  /**
   * An instance's events on GSI1 (sparse: only the outbox items of instance events carry these
   * keys, written in the same Put as the event), in the order they were made: reading an
   * instance's events is one Query of the instance's own index partition, never a filter over its
   * outbox shard. `PIEVT#{instanceId}`; events written before the index have no entry (they are
   * kept 30 days, and not backfilled).
   */
  instanceEventIndex(tenantId: string, instanceId: string, timestamp: string, eventId: string): { GSI1PK: string; GSI1SK: string } {
    return { GSI1PK: keys.instanceEventIndexPartition(tenantId, instanceId), GSI1SK: keys.outboxSort(timestamp, eventId) };
  },
  instanceEventIndexPartition(tenantId: string, instanceId: string): string {
    return `${tenantPrefix(tenantId)}PIEVT#${part(instanceId)}`;
  },
  /** The tenant of an outbox item's key (as the table's stream names it), sharded or not; undefined for any other key. */
  parseOutboxEvent(key: ItemKey): { tenantId: string } | undefined {
    const m = /^TNT#([^#]+)#(?:S\d{2}#)?EVENTS$/.exec(key.PK);
    return m && key.SK.startsWith(keys.outboxSortPrefix) ? { tenantId: m[1]! } : undefined;
  },
  /** A tenant's webhooks and their count share one partition: listing is one Query. */
  webhookPartition(tenantId: string): string {
    return `${tenantPrefix(tenantId)}WEBHOOKS`;
  },
  webhook(tenantId: string, id: string): ItemKey {
    return { PK: keys.webhookPartition(tenantId), SK: `WH#${part(id)}` };
  },
  webhookCount(tenantId: string): ItemKey {
    return { PK: keys.webhookPartition(tenantId), SK: 'COUNT' };
  },
  /**
   * A webhook's deliveries, by the event's time, in WEBHOOK_DELIVERY_SHARDS partitions per
   * webhook (`WHDLV#{webhookId}#{nn}`), the shard a hash of the event's subject; without a shard,
   * the webhook's one partition from before shards, read until its deliveries expire (30 days).
   * Every partition still starts `WHDLV#{webhookId}`, which the IAM grants match (`TNT#*#WHDLV#*`).
   */
  webhookDeliveryPartition(tenantId: string, webhookId: string, shard?: number): string {
    return `${tenantPrefix(tenantId)}WHDLV#${part(webhookId)}${shard === undefined ? '' : `#${shardLabel(shard)}`}`;
  },
  /** Every delivery partition of a webhook: its shards, then the one from before shards. */
  webhookDeliveryPartitions(tenantId: string, webhookId: string): string[] {
    return [
      ...Array.from({ length: WEBHOOK_DELIVERY_SHARDS }, (_, s) => keys.webhookDeliveryPartition(tenantId, webhookId, s)),
      keys.webhookDeliveryPartition(tenantId, webhookId),
    ];
  },
  /** The shard of a subject's deliveries, subject line and due-index entries. */
  webhookDeliveryShard(subjectId: string): number {
    return shardOf(subjectId, WEBHOOK_DELIVERY_SHARDS);
  },
  webhookDelivery(tenantId: string, webhookId: string, eventTimestamp: string, eventId: string, shard?: number): ItemKey {
    return { PK: keys.webhookDeliveryPartition(tenantId, webhookId, shard), SK: keys.webhookDeliverySort(eventTimestamp, eventId) };
  },
  webhookDeliverySort(eventTimestamp: string, eventId: string): string {
    return `${part(eventTimestamp)}#${part(eventId)}`;
  },
  /**
   * The due index (GSI3, sparse): a PENDING delivery, by when the sweeper may take it for one
   * whose message was lost (`sweepAt`). WEBHOOK_DELIVERY_SHARDS partitions per tenant
   * (`WHDUE#{nn}`, the delivery's shard; `WHDUE` before shards): the sweeper Scans the index, so
   * no reader names a partition. The sort key starts with the time, so what is due sorts first.
   */
  webhookDeliveryDue(tenantId: string, sweepAt: string, webhookId: string, eventTimestamp: string, eventId: string, shard?: number): { GSI3PK: string; GSI3SK: string } {
    return {
      GSI3PK: `${tenantPrefix(tenantId)}WHDUE${shard === undefined ? '' : `#${shardLabel(shard)}`}`,
      GSI3SK: `${part(sweepAt)}#${part(webhookId)}#${part(eventTimestamp)}#${part(eventId)}`,
    };
  },
  /**
   * The delivery a due-index entry names (from its GSI3SK and table key: the shard is the table
   * partition's, none for a delivery from before shards), or undefined for another item.
   */
  parseWebhookDeliveryDue(item: { PK: string; SK: string; GSI3SK?: string }):
    | { tenantId: string; webhookId: string; eventTimestamp: string; eventId: string; sweepAt: string; shard?: number }
    | undefined {
    const pk = /^TNT#([^#]+)#WHDLV#([^#]+)(?:#(\d{2}))?$/.exec(item.PK);
    const sk = /^([^#]+)#([^#]+)$/.exec(item.SK);
    const due = item.GSI3SK?.split('#');
    if (!pk || !sk || !due || due.length !== 4) return undefined;
    return { tenantId: pk[1]!, webhookId: pk[2]!, eventTimestamp: sk[1]!, eventId: sk[2]!, sweepAt: due[0]!, ...(pk[3] ? { shard: Number(pk[3]) } : {}) };
  },
  /**
   * A webhook's held subjects: one item per delivery waiting in a subject's line (the holder in
   * retry, and those parked behind it), sorted by subject, then when each joined. In the
   * subject's delivery shard (`WHHOLD#{webhookId}#{nn}`), so a line is one partition and one
   * Query; without a shard, the webhook's one partition from before shards (lines begun before
   * shards, read until they empty). The subject id is URI-encoded, so no id can put a `#` into the key.
   */
  webhookHoldPartition(tenantId: string, webhookId: string, shard?: number): string {
    return `${tenantPrefix(tenantId)}WHHOLD#${part(webhookId)}${shard === undefined ? '' : `#${shardLabel(shard)}`}`;
  },
  webhookHoldSubjectPrefix(subjectId: string): string {
    return `${encodeURIComponent(subjectId)}#`;
  },
  /** A place in a subject's line: in the subject's shard, or (`beforeShards`) in the partition from before shards. */
  webhookHold(tenantId: string, webhookId: string, subjectId: string, at: string, eventTimestamp: string, eventId: string, beforeShards = false): ItemKey {
    return {
      PK: keys.webhookHoldPartition(tenantId, webhookId, beforeShards ? undefined : keys.webhookDeliveryShard(subjectId)),
      SK: `${keys.webhookHoldSubjectPrefix(subjectId)}${part(at)}#${part(eventTimestamp)}#${part(eventId)}`,
    };
  },
  /** A webhook's endpoint health (failures in a row), beside the webhook: not under `WH#`, so not listed as a webhook. */
  webhookHealth(tenantId: string, webhookId: string): ItemKey {
    return { PK: keys.webhookPartition(tenantId), SK: `HEALTH#${part(webhookId)}` };
  },
  /** A started event query (its filters and page size), with a TTL. */
  identityEventQuery(tenantId: string, executionId: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}IDSQUERY#${part(executionId)}`, SK: 'QUERY' };
  },

  /** An asynchronous export job (an archive or a CSV file), with a TTL: the tenant's own partition, one item. */
  exportJob(tenantId: string, exportId: string): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}EXPORT#${part(exportId)}`, SK: 'EXPORT' };
  },

  /**
   * One tenant's request count in one second (epoch seconds). Every window of a tenant is in one
   * partition, `TNT#{tenantId}#RATE`, which is all the rate limit's IAM grant reaches.
   */
  rateWindow(tenantId: string, epochSecond: number, window: RateWindow = 'requests'): ItemKey {
    // `S#`: the tenant's requests; `T#`: its token issues, a budget of their own.
    return { PK: `${tenantPrefix(tenantId)}${RATE_PARTITION}`, SK: `${window === 'tokenIssue' ? 'T' : 'S'}#${epochSecond}` };
  },
  /**
   * A tenant's webhook replays in one window (from `windowStart`, epoch seconds): the count of
   * its replayed deliveries and each webhook's count of replay calls, one item, in the rate
   * windows' partition.
   */
  webhookReplayWindow(tenantId: string, windowStart: number): ItemKey {
    return { PK: `${tenantPrefix(tenantId)}${RATE_PARTITION}`, SK: `R#${windowStart}` };
  },
};

/**
 * The service's own items, which belong to no tenant: the only keys that do not start with
 * `TNT#{tenantId}#`. A state machine is shared by every tenant whose definitions compile alike,
 * so what counts its users cannot live in one tenant's partitions.
 */
export const serviceKeys = {
  /**
   * A state machine's reference item: how many DEPLOYED_ACTIVE versions, of all tenants, use it
   * (functions/store/state-machine-refs.ts). One partition per state machine, so activations of
   * different journeys never contend.
   */
  stateMachineRef(name: string): ItemKey {
    if (!/^[A-Za-z0-9_-]{1,80}$/.test(name)) throw new Error('invalid state machine name for a key');
    return { PK: `${SERVICE_PREFIX}SM#${name}`, SK: 'SM' };
  },
  /** The state machine janitor's checkpoint and lease: one item. */
  janitorCheckpoint(): ItemKey {
    return { PK: `${SERVICE_PREFIX}JANITOR`, SK: 'CHECKPOINT' };
  },
};

/** The start of every service key (an IAM condition on the leading key names it). */
export const SERVICE_PREFIX = 'SVC#';

/** What a rate window counts: a tenant's requests, or its token issues. */
export type RateWindow = 'requests' | 'tokenIssue';

/** The partition suffix of the rate windows (an IAM condition on the leading key names it). */
export const RATE_PARTITION = 'RATE';

/**
 * S3 object keys of an instance's images: `tenants/{tenantId}/instances/{id}/`, so one prefix
 * holds (and one prefix deletion removes) everything an instance stored, and a tenant's prefix
 * is the only place its images can be.
 */
export const objectKeys = {
  instancePrefix(tenantId: string, id: string): string {
    tenantPrefix(tenantId);
    return `tenants/${tenantId}/instances/${safeSegment(part(id))}/`;
  },
  faceCapture(tenantId: string, id: string, faceKey: string, captureId: string, extension: 'jpg' | 'png'): string {
    return `${objectKeys.instancePrefix(tenantId, id)}faces/${encoded(faceKey)}/${safeSegment(captureId)}.${extension}`;
  },
  /** A face template made of a capture (Face Template Generation), beside it: `.../faces/{faceKey}/{captureId}.template`. */
  faceTemplate(tenantId: string, id: string, faceKey: string, captureId: string): string {
    return `${objectKeys.instancePrefix(tenantId, id)}faces/${encoded(faceKey)}/${safeSegment(captureId)}.template`;
  },
  /** A captured side of an identity document (Capture Document Image): `.../documents/{docKey}/{captureId}.{ext}`. */
  documentCapture(tenantId: string, id: string, docKey: string, captureId: string, extension: 'jpg' | 'png'): string {
    return `${objectKeys.instancePrefix(tenantId, id)}documents/${encoded(docKey)}/${safeSegment(captureId)}.${extension}`;
  },
  /** A page (or PDF) of an additional document (Capture Additional Document v3). */
  additionalDocument(tenantId: string, id: string, addDocKey: string, documentId: string, captureId: string, extension: 'jpg' | 'png' | 'pdf'): string {
    return `${objectKeys.instancePrefix(tenantId, id)}additional/${encoded(addDocKey)}/${encoded(documentId)}/${safeSegment(captureId)}.${extension}`;
  },
  /** A face image uploaded from outside the journey (processInstanceInit.externalSources.faceUploads). */
  faceUpload(tenantId: string, id: string, imageKey: string, captureKey: string, extension: 'jpg' | 'png'): string {
    return `${objectKeys.instancePrefix(tenantId, id)}uploads/${encoded(imageKey)}/${safeSegment(captureKey)}.${extension}`;
  },
  /** An export's file in the exports bucket: `tenants/{tenantId}/exports/{exportId}/{file}`. */
  exportObject(tenantId: string, exportId: string, file: string): string {
    tenantPrefix(tenantId);
    if (!/^[A-Za-z0-9._-]+$/.test(file)) throw new Error('an export file name must be plain');
    return `tenants/${tenantId}/exports/${safeSegment(part(exportId))}/${file}`;
  },
  /**
   * A theme's asset: `tenants/{tenantId}/themes/{themeId}/{secret}.{extension}`. The secret is
   * the asset's own (its public URL carries it), so a replaced asset is a new object.
   */
  themeAsset(tenantId: string, themeId: string, secret: string, extension: string): string {
    tenantPrefix(tenantId);
    if (!/^[a-z0-9]{1,8}$/.test(extension)) throw new Error('an asset extension must be plain');
    return `tenants/${tenantId}/themes/${safeSegment(part(themeId))}/${safeSegment(secret)}.${extension}`;
  },
  /**
   * A custom page version's files in the pages bucket, under a random secret of the version
   * (128 bits, hex) so that its URL cannot be guessed: `tenants/{t}/custom-pages/{pageId}/{secret}/`.
   * The pages origin serves this prefix (and only it) to anyone without a token.
   */
  customPagePrefix(tenantId: string, pageId: string, servingSecret?: string): string {
    tenantPrefix(tenantId);
    return customPageFolder(tenantId, safeSegment(part(pageId)), servingSecret);
  },
  /** An archive PUT through a pre-signed URL, waiting for its create: never served. */
  customPageUpload(tenantId: string, uploadId: string): string {
    tenantPrefix(tenantId);
    return `tenants/${tenantId}/custom-page-uploads/${safeSegment(part(uploadId))}.bin`;
  },
  /** Every object key of the service starts with this. */
  root: 'tenants/',
};

function safeSegment(value: string): string {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(value)) throw new Error('invalid object key segment');
  return value;
}

/** Free text (names, tags) inside a key: encoded so it can hold no separator. */
function encoded(value: string): string {
  return Buffer.from(value, 'utf8').toString('base64url');
}

/** What `encoded` encoded; undefined for anything it cannot have made. */
function decoded(part: string): string | undefined {
  const value = Buffer.from(part, 'base64url').toString('utf8');
  return encoded(value) === part ? value : undefined;
}
