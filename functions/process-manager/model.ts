/**
 * The process manager's model: what it stores (definitions, tokens, instances and what an
 * instance keeps of its steps), the storage it needs (implemented over DynamoDB and S3 in
 * `store/`), and the orchestrator port (Step Functions, or the local engine). Types and plain
 * constants only: `store/` imports this file, and must get no domain logic with it.
 */
import type { ProcessDefinition } from '../../statemachines/definition.js';
import type { Presentation } from '../../statemachines/presentation.js';
import type { StepProgress } from '../../statemachines/progress.js';
import type { PROCESS_TOKEN_STATUSES, PROCESS_TOKEN_TYPES } from './tokens/token-schemas.js';
import type { EventEnvelope } from '../shared/events.js';
import type { KeyedSource } from '../shared/keyed-list.js';
import type { ResolvedPalette } from '../theme-server/palette.js';

// ---------------------------------------------------------------------------------------------
// Definitions

/**
 * A definition version's lifecycle, as the family's deployment tools drive it: published, then
 * `POST .../status/DEPLOYED_ACTIVE`. Only an active version takes new process tokens and starts
 * instances; ARCHIVED is final. EDITABLE is the family's name for a draft: a version created
 * EDITABLE is a draft exactly as a DRAFT one is (lifecycle.ts), and keeps the name the client
 * gave it until it moves on.
 */
export const DEPLOYMENT_STATUSES = ['DRAFT', 'EDITABLE', 'DEPLOYED_ACTIVE', 'DEPLOYED_INACTIVE', 'ARCHIVED'] as const;
/** What a version may be created as (never ARCHIVED): a draft under either name, or deployed. */
export const CREATE_STATUSES = ['DRAFT', 'EDITABLE', 'DEPLOYED_ACTIVE', 'DEPLOYED_INACTIVE'] as const;
export type CreateStatus = (typeof CREATE_STATUSES)[number];
/** The lifecycle every versioned, deployed thing shares (definitions, data forms): see lifecycle.ts. */
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];
export const DEFINITION_STATUSES = DEPLOYMENT_STATUSES;
export type DefinitionStatus = DeploymentStatus;

/** What a version's name + version lock item holds: its id and status, so a token finds both in one read. */
export interface DefinitionVersionRef {
  processDefinitionId: string;
  status: DefinitionStatus;
}

/** How a version was published: the service's JSON format, or the family's BPMN upload (base64 in `resources.bpmn.data`). */
export type DefinitionFormat = 'JSON' | 'BPMN';

/**
 * Where a stored document (the definition's JSON, the uploaded BPMN) is: gzip-compressed and cut
 * into `chunks` items beside the version's item, written in the same transaction. `sha256` is of
 * the compressed bytes, checked on every read.
 */
export interface StoredBlobRef {
  chunks: number;
  /** Compressed length in bytes. */
  bytes: number;
  /** Length of the document itself, in bytes. */
  size: number;
  sha256: string;
}

/** A version's metadata: what its item holds, and all that tokens, instances and lists read. */
export interface ProcessDefinitionRecord {
  tenantId: string;
  id: string;
  name: string;
  version: number;
  description: string;
  retentionDays: number;
  /** What its journeys' pages show beside the steps (made when the version is published); absent on versions published before. */
  pages?: JourneyPages;
  /**
   * The state machine its journeys start on, set when the version becomes DEPLOYED_ACTIVE (made
   * then, or found: every version of every tenant that compiles alike shares one). Absent on a
   * DRAFT that was never active.
   */
  stateMachineArn?: string;
  /**
   * The name of that state machine, whose reference item counts this version among its users
   * while it is DEPLOYED_ACTIVE (StateMachineRef). Absent on versions activated before state
   * machines were counted: the janitor judges theirs by their tenant tag.
   */
  stateMachineName?: string;
  /**
   * The session paths its compiled state machine keeps in the execution's state (the compiler's
   * `keep`): an instance starts with its session in the table and this projection of it. Absent on
   * versions published before: their executions carry the whole session.
   */
  sessionKeep?: string[];
  /** Absent on versions published before the lifecycle existed: those are DEPLOYED_ACTIVE. */
  status?: DefinitionStatus;
  statusUpdatedDtm?: string;
  statusUpdatedBy?: string;
  /** Absent on versions published before BPMN uploads existed: those are JSON. */
  format?: DefinitionFormat;
  /** The family's upload fields, kept as uploaded (null when absent or for the JSON format; a `themeId` the JSON format may give too). */
  serverType?: string | null;
  processDefinitionType?: string | null;
  attributes?: Record<string, unknown> | null;
  themeId?: string | null;
  /** The stored documents (see StoredBlobRef); absent on versions stored before, which hold `definition` inline. */
  blobs?: { definition: StoredBlobRef; bpmn?: StoredBlobRef };
  /** Versions stored before the blobs: the definition inline. Read it through `DefinitionStore.getContent`. */
  definition?: ProcessDefinition;
  createdDtm: string;
  createdBy: string;
}

/**
 * What the journey pages show beside a step: how they present the relying party (the
 * definition's `presentation`) and each user step's place in the journey (statemachines/progress.ts).
 */
export interface JourneyPages {
  presentation?: Presentation;
  progress?: StepProgress;
  /**
   * The definition's theme as the pages paint it, snapshotted when the instance is created (on
   * instances only: a journey keeps the look it started with, as it keeps its definition version,
   * and its pages read no theme). The shape of theme-server's ResolvedTheme, URLs origin-relative.
   */
  theme?: JourneyTheme;
}

/** A theme resolved for the pages (functions/theme-server/resolved-theme.ts), as an instance keeps it. */
export interface JourneyTheme {
  id: string;
  name: string;
  version: number;
  palette: ResolvedPalette;
  fontFamily: string | null;
  fonts: { family: string; url: string; format: string }[];
  logo: { name: string; url: string; contentType: string } | null;
}

/** A version's documents, read apart from its metadata (they may be megabytes). */
export interface ProcessDefinitionContent {
  /** The validated definition, defaults applied. */
  definition: ProcessDefinition;
  /** The BPMN file as uploaded, byte for byte (BPMN uploads only). */
  bpmn?: Buffer;
}

export interface DefinitionTagRecord {
  tenantId: string;
  name: string;
  processDefinitionId: string;
  processDefinitionName: string;
  processDefinitionVersion: number;
  createdDtm: string;
  createdBy: string;
}

/**
 * One state machine as the table knows it: its reference item, shared by all tenants (it holds a
 * name and counts, nothing of any tenant). Every version that becomes DEPLOYED_ACTIVE on it raises
 * `users`, in the transaction that changes the version's status; leaving DEPLOYED_ACTIVE lowers
 * it. The janitor deletes a state machine only after claiming this item while `users` is 0.
 */
export interface StateMachineRef {
  name: string;
  /** DEPLOYED_ACTIVE versions that start their journeys on it, of every tenant together. */
  users: number;
  /** When `users` last changed (ISO 8601). */
  changedAt?: string;
  /**
   * Raised by each claim of the janitor: a version's change written with the generation read
   * before its CreateStateMachine fails when the janitor claimed the state machine in between.
   */
  generation: number;
  /** Set while the janitor deletes it (ISO 8601, when it claimed it); a claim past CLAIM_STALE_MS is a run that died. */
  deletingSince?: string;
}

/**
 * A janitor's claim older than this is a run that died (the janitor's function times out after 15
 * minutes, lib/constructs/journey-functions.ts): an activation takes the state machine back, and
 * another run may claim it again.
 */
export const STATE_MACHINE_CLAIM_STALE_MS = 20 * 60_000;

/**
 * What a version records of the state machine it becomes DEPLOYED_ACTIVE on, written with its
 * status change (or its creation, for a version active at once) together with the raise of the
 * state machine's `users`.
 */
export interface StateMachineUse {
  name: string;
  arn: string;
  /** The compiler's `keep` for this ASL (ProcessDefinitionRecord.sessionKeep). */
  sessionKeep: string[];
  /** The reference item's generation read before creating the state machine (0: there was none). */
  generation: number;
  /** A janitor's claim set before this instant (ISO 8601) is a run that died: the write takes the state machine back. */
  staleClaimBefore: string;
}

/** How a version's write with its state machine's use went. */
export type DefinitionWriteOutcome =
  | { outcome: 'written' }
  /** create: the tenant has this name + version already; setStatus: the status changed meanwhile. */
  | { outcome: 'conflict' }
  /** The janitor claimed the state machine since its generation was read: read it and create it again. */
  | { outcome: 'stateMachineClaimed' };

/** A name + version as the definitions list reads it: its name + version item alone. */
export interface DefinitionVersionListRef extends DefinitionVersionRef {
  name: string;
  version: number;
}

export interface DefinitionStore {
  /**
   * Writes a version with its documents in one transaction, so a half-written version is never
   * visible; with `use` (a version active at once) the version records its state machine and the
   * state machine counts it, in the same transaction. `conflict` when the tenant already has this
   * name + version (a published version is immutable).
   */
  create(record: ProcessDefinitionRecord, content: ProcessDefinitionContent, use?: StateMachineUse): Promise<DefinitionWriteOutcome>;
  get(tenantId: string, id: string): Promise<ProcessDefinitionRecord | undefined>;
  /** The documents of a version read with `get` (its definition, and the uploaded BPMN if any). */
  getContent(record: ProcessDefinitionRecord): Promise<ProcessDefinitionContent>;
  getByNameVersion(tenantId: string, name: string, version: number): Promise<ProcessDefinitionRecord | undefined>;
  /** The id and status of a name + version, from its lock item alone (one read). */
  versionRef(tenantId: string, name: string, version: number): Promise<DefinitionVersionRef | undefined>;
  /**
   * The next version number of a name, taken for good: two callers never get the same one, and
   * it is above every version the name has (whichever way it was published). A publication that
   * then fails leaves a gap.
   */
  allocateVersion(tenantId: string, name: string): Promise<number>;
  /**
   * Moves a version to `to`, written only over the status read (`from`; undefined for a version
   * published before the lifecycle), on the version and its lock item together, and on the
   * reference items of the state machines it stops or starts using: to DEPLOYED_ACTIVE it takes
   * `use` (required then), recorded on the version and counted on the state machine; from
   * DEPLOYED_ACTIVE the state machine it recorded (`stateMachineName`) counts it no more.
   * `conflict` when the status changed meanwhile.
   */
  setStatus(
    record: ProcessDefinitionRecord,
    from: DefinitionStatus | undefined,
    to: DefinitionStatus,
    at: { now: Date; by: string },
    use?: StateMachineUse,
  ): Promise<DefinitionWriteOutcome>;
  list(tenantId: string): Promise<ProcessDefinitionRecord[]>;
  /**
   * One name's versions as a paged list in version order: a page reads its name + version items
   * (`Limit`) and then the page's definitions (one BatchGetItem); a walk (`projection`) and the
   * count read only the small name + version items.
   */
  versionsOf(tenantId: string, name: string): KeyedSource<ProcessDefinitionRecord>;
  /**
   * Every name + version of the tenant, from the small name + version items alone (no
   * definition is read), at most `cap`; `more` when there are more.
   */
  versionRefs(tenantId: string, cap: number): Promise<{ refs: DefinitionVersionListRef[]; more: boolean }>;
  /** The definitions of these ids, in this order (an id with none is left out): BatchGetItem. */
  getMany(tenantId: string, ids: readonly string[]): Promise<ProcessDefinitionRecord[]>;
  getTag(tenantId: string, tag: string): Promise<DefinitionTagRecord | undefined>;
  /** Writes the tag onto its definition, moving it off any other one. */
  putTag(record: DefinitionTagRecord): Promise<void>;
  listTags(tenantId: string): Promise<DefinitionTagRecord[]>;
}

/** Where the janitor's pass over the account's state machines is (one item, shared by its runs). */
export interface JanitorCheckpoint {
  /** The ListStateMachines token of the page being swept; absent: the first page. */
  pageToken?: string;
  /** The last state machine of that page already judged. */
  lastArn?: string;
  /** When the pass under way began (ISO 8601); absent when none is under way. */
  passStartedAt?: string;
  /** When the last complete pass ended (ISO 8601). */
  passCompletedAt?: string;
}

/** The state machines' reference items, and the janitor's checkpoint (items of no tenant). */
export interface StateMachineRefStore {
  get(name: string): Promise<StateMachineRef | undefined>;
  /**
   * The janitor's claim before it deletes a state machine: written only while no version uses it
   * (`users` 0 or no item), none has since `unusedBefore` and no other run holds a claim younger
   * than `staleClaimBefore`; it raises the generation, so an activation racing with it writes
   * nothing and tries again. False when the condition failed.
   */
  claim(name: string, at: { now: Date; unusedBefore: Date; staleClaimBefore: Date }): Promise<boolean>;
  /** Ends a claim (the state machine is deleted, or runs executions after all), if it is still `claimedAt`'s. */
  release(name: string, claimedAt: Date): Promise<void>;
  /**
   * Takes the janitor's lease until `until` and reads the checkpoint; undefined when another run
   * holds an unexpired lease (a duplicate delivery of the schedule: that run does nothing).
   */
  acquireJanitor(runId: string, now: Date, until: Date): Promise<JanitorCheckpoint | undefined>;
  /** Saves the checkpoint while `runId` holds the lease; false when it lost it. */
  saveJanitor(runId: string, checkpoint: JanitorCheckpoint): Promise<boolean>;
  /** Gives the lease up. */
  releaseJanitor(runId: string): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Data forms (by name and version, in the family's format)

export const CUSTOM_DATA_FORM_STATUSES = DEPLOYMENT_STATUSES;
export type CustomDataFormStatus = DeploymentStatus;

/**
 * What the versions page of an artifact kept by name and version (data forms, cloud functions)
 * lists of one version: everything but its content.
 */
export interface VersionedSummary {
  id: string;
  name: string;
  version: number;
  description: string;
  status: DeploymentStatus;
  createdDtm: string;
  createdBy: string;
  lastUpdatedDtm: string;
  lastUpdatedBy: string;
}

export type VersionedStatusOutcome = { outcome: 'updated' } | { outcome: 'changed' } | { outcome: 'gone' };

/** Versions of an artifact by name (the family's name / versions / id / status pattern). */
export interface VersionedStore<R extends S & { tenantId: string }, S extends VersionedSummary> {
  /** False when the tenant already has this name + version (a version is immutable). */
  create(record: R): Promise<boolean>;
  get(tenantId: string, id: string): Promise<R | undefined>;
  /** One version of a name (without its content), or undefined when the tenant has no such version. */
  getVersion(tenantId: string, name: string, version: number): Promise<S | undefined>;
  /** The highest version of a name, or undefined when the name has none. */
  latestVersion(tenantId: string, name: string): Promise<number | undefined>;
  /** Every version of a name, in version order. */
  /** One name's versions in version order, as a paged list of their summary items (a page is one Query). */
  versionsOf(tenantId: string, name: string): KeyedSource<S>;
  /** Sets the status of a version whose stored status is still `from` (`changed` otherwise). */
  setStatus(record: R, from: DeploymentStatus, to: DeploymentStatus, by: { actor: string; now: Date }): Promise<VersionedStatusOutcome>;
}

/** What a versions page lists of a form version: everything but its resource. */
export interface CustomDataFormSummary extends VersionedSummary {
  creationOption: string | null;
}

export interface CustomDataFormRecord extends CustomDataFormSummary {
  tenantId: string;
  /** The form as the client sent it (a JSON string), kept byte for byte; validated on the way in. */
  resource: string;
}

export type CustomDataFormStore = VersionedStore<CustomDataFormRecord, CustomDataFormSummary>;

// ---------------------------------------------------------------------------------------------
// Tokens

export type ProcessTokenType = (typeof PROCESS_TOKEN_TYPES)[number];
export type ProcessTokenStatus = (typeof PROCESS_TOKEN_STATUSES)[number];

/** What a test-mode token forces (functions/process-manager/sandbox.ts): checks by their key, and the decision. */
export interface Sandbox {
  checks?: Record<string, 'PASS' | 'FAIL' | 'REVIEW'>;
  decision?: 'PASS' | 'FAIL' | 'REVIEW';
}

export interface ProcessTokenRecord {
  tenantId: string;
  id: string;
  name: string;
  description: string;
  status: ProcessTokenStatus;
  type: ProcessTokenType;
  maxCount: number | null;
  /**
   * Instances created so far; raised by the same conditional write that creates an instance. As
   * read, the sum of the token's use shards and what its own item counted before shards.
   */
  counter: number;
  /**
   * The store's own: how many use shards count the token's uses (functions/store/process-tokens.ts);
   * absent on a token made before shards, which counts on its own item. Never on the wire.
   */
  useShards?: number;
  validFromDtm: string | null;
  validToDtm: string | null;
  processDefnName: string | null;
  processDefnVersion: string | null;
  processDefnTag: string | null;
  /** The definition a name + version token is bound to (versions are immutable); null for a tag. */
  processDefnId: string | null;
  uiUrl: string;
  parameters: Record<string, string>;
  processInstanceInit: { externalSources: { faceUploads: Record<string, { imageFormat: 'JPEG' | 'PNG' }> } } | null;
  maxProcessDuration: string | null;
  createdDtm: string;
  createdBy: string;
  /** Test mode (functions/process-manager/sandbox.ts): present only on a test-mode token. */
  forTest?: true;
  /** What a test-mode token forces. */
  sandbox?: Sandbox;
}

export interface ProcessTokenStore {
  /** False when the name is taken in the tenant (names are unique, enforced by a lock item). */
  create(record: ProcessTokenRecord): Promise<boolean>;
  /**
   * The token, its `counter` summed from its use shards; with `counted: false` as its own item
   * has it, one read (an instance creation, whose conditional write decides whether a use is left).
   */
  get(tenantId: string, id: string, options?: { counted?: boolean }): Promise<ProcessTokenRecord | undefined>;
  /** Every live token (the whole partition): only for a tenant whose tokens have no list views yet (`viewed`). */
  list(tenantId: string): Promise<ProcessTokenRecord[]>;
  /** Whether every token of the tenant has its list view (a tenant made since views exist, or backfilled). */
  viewed(tenantId: string): Promise<boolean>;
  /**
   * The live tokens by creation time, a page at a time: a page reads its list views (`Limit`)
   * and then its tokens (BatchGetItem); walks, filters by name and counts read the small views alone.
   */
  byCreation(tenantId: string, now: Date): KeyedSource<ProcessTokenRecord>;
  /**
   * Moves a token made before use shards (its uses counted on its own item) onto shards, exactly:
   * its count so far stays, the shards share what is left of `maxCount`. False when it has
   * shards already, is gone, or was used meanwhile.
   */
  shardUses(tenantId: string, id: string): Promise<boolean>;
  /** Writes every token's list view, then marks the list viewed (`operator backfill-lists`). Idempotent. */
  backfillViews(tenantId: string): Promise<ListBackfill>;
}

/** What a list's backfill did: the items it read, the views it wrote. */
export interface ListBackfill {
  items: number;
  views: number;
}

// ---------------------------------------------------------------------------------------------
// Instances

export const INSTANCE_STATUSES = [
  'PENDING',
  'ACTIVE',
  // A Pause Instance step paused the journey: it waits for its resume (not final).
  'PAUSED',
  'COMPLETED_ENDED_SUCCESS',
  'COMPLETED_ENDED_ERROR',
  'COMPLETED_PROCESS_ERROR',
  'COMPLETED_TERMINATED',
  'REVIEW',
] as const;
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

/** The statuses an instance ends in: its journey is over, and the status never changes again. */
export const FINAL_INSTANCE_STATUSES: readonly InstanceStatus[] = [
  'COMPLETED_ENDED_SUCCESS',
  'COMPLETED_ENDED_ERROR',
  'COMPLETED_PROCESS_ERROR',
  'COMPLETED_TERMINATED',
  'REVIEW',
];

/** The family's labels of instance statuses (its reads' `statusMapped`, its back office's words). */
export const STATUS_MAPPED_VALUES = ['Pending', 'In Progress', 'Accepted', 'Declined', 'Error', 'Abandoned', 'Review'] as const;
export type StatusMapped = (typeof STATUS_MAPPED_VALUES)[number];

/**
 * Every status's label, as the service family maps them: PENDING (created, not yet opened) is
 * Pending; ACTIVE (running: the end user opened it) and PAUSED (a Pause Instance step, until its
 * resume) are In Progress, as in the family; the ends are Accepted (ended as
 * designed, PASS), Declined (FAIL, an error end), Error (the process failed), Abandoned
 * (terminated: a step timed out, the execution was stopped) and Review. A status added to
 * INSTANCE_STATUSES fails the type check here until it has its label.
 */
const STATUS_MAPPED: Readonly<Record<InstanceStatus, StatusMapped>> = {
  PENDING: 'Pending',
  ACTIVE: 'In Progress',
  PAUSED: 'In Progress',
  COMPLETED_ENDED_SUCCESS: 'Accepted',
  COMPLETED_ENDED_ERROR: 'Declined',
  COMPLETED_PROCESS_ERROR: 'Error',
  COMPLETED_TERMINATED: 'Abandoned',
  REVIEW: 'Review',
};

/** An instance status's label (`statusMapped` on instance reads and list rows). */
export function statusMappedOf(status: InstanceStatus): StatusMapped {
  return STATUS_MAPPED[status];
}

/** Token parameters copied onto the instance read (and its list views), as the service family returns them. */
export const CONTACT_PARAMETERS = ['firstName', 'lastName', 'email', 'phoneNumber'] as const;

export interface ProcessInstanceRecord {
  tenantId: string;
  id: string;
  processDefnId: string;
  processDefnName: string;
  processDefnVersion: number;
  processTokenId: string;
  status: InstanceStatus;
  createdAt: string;
  lastUpdatedAt: string;
  /**
   * When its status became final (written with that status change, never again); absent while it
   * runs, and on instances that ended before it was kept (their `lastUpdatedAt` stands in).
   */
  completedAt?: string;
  retentionDays: number;
  /** Its definition version's `pages`, copied when the instance is created: the journey pages read them with the instance. */
  pages?: JourneyPages;
  /** createdAt + retentionDays; after it reads answer 404 and DynamoDB TTL deletes the items. */
  expiringDtm: string;
  /** The same instant in epoch seconds: the table's TTL attribute. */
  expiresAt: number;
  parameters: Record<string, string>;
  /** SHA-256 of the end user's capability; the capability itself is only in the redirect URL. */
  capabilityHash: string;
  stateMachineArn: string;
  createdBy: string;
  /** The user step the journey waits at, if any. */
  currentStep?: WaitingStep;
  /**
   * While the instance has no final status: when the reconciler next asks Step Functions about
   * its execution (executions/reconcile.ts). Gone once the status is final, which takes the instance off
   * the reconciler's index.
   */
  reconcileAt?: string;
  /** How many times the reconciler found the execution still running (its backoff). */
  reconcileChecks?: number;
  /** The user step finished last (its result reached Step Functions): how a repeated submission is recognised. */
  lastStep?: { activityId: string; digest?: string; at: string };
  /** Where a Redirect User step sent the end user last (functions/activities/redirect-user-v2.ts). */
  redirect?: InstanceRedirect;
  /** A review: required by the journey (Review Required), then a reviewer's decision (process-manager/instances/review.ts). */
  review?: InstanceReview;
  /**
   * The tenant's origin the instance was created on (`https://{tenant}.{region}.{domain}`, its
   * journey link's): where links the journey makes later point (Pause Instance's resume URL).
   * Absent on instances created before it was kept.
   */
  origin?: string;
  /** The journey's last pause (Pause Instance), which one resume ends. */
  pause?: InstancePause;
  /**
   * SHA-256 of the capability the resume gave the end user (a journey link of its own, for the
   * device the resume URL was opened on); accepted beside `capabilityHash`.
   */
  resumeCapabilityHash?: string;
  /** The device that holds the journey since a Switch Device step moved it; absent: the instance's own link. */
  holder?: JourneyHolder;
  /** Test mode, from its token (functions/process-manager/sandbox.ts): present only on a test-mode instance. */
  forTest?: true;
  /** What its token forces; only with forTest. */
  sandbox?: Sandbox;
}

/**
 * A redirect a journey recorded: the URL its step built (an absolute http(s) URL, checked by the
 * rule `_redirectUrl` follows), when, and by which step. The journey page sends the browser there
 * while the journey has no step the end user acts on, until a later step is finished.
 */
export interface InstanceRedirect {
  url: string;
  at: string;
  activityId: string;
}

/** What a reviewer decides: the journey's decision PASS, FAIL or REVIEW. */
export const REVIEW_DECISIONS = ['APPROVE', 'REJECT', 'REVIEW'] as const;
export type ReviewDecision = (typeof REVIEW_DECISIONS)[number];

/**
 * An instance's review. PENDING from the moment the journey requires one until a reviewer
 * decides; then the decision, its comment, who made it and when. `id` is new with every write:
 * a decision is written only over the review it read.
 */
export interface InstanceReview {
  status: 'PENDING' | ReviewDecision;
  id: string;
  /** When the journey required it (Review Required), if it did. */
  requiredAt?: string;
  comment?: string;
  /** The actor, as audit fields name it (`apikey:{id}`). */
  reviewedBy?: string;
  reviewedAt?: string;
}

/**
 * A Pause Instance step's pause (functions/process-manager/instances/pause.ts): what lets one
 * resume continue the journey at its Waiting for Resume step. Kept on the instance item, so the
 * resume's conditional write makes it happen once.
 */
export interface InstancePause {
  /** The Pause Instance step that paused the journey. */
  activityId: string;
  /** SHA-256 (hex) of the resume secret; the secret itself is only in the resume URL, never stored here. */
  secretHash: string;
  pausedAt: string;
  /**
   * The Waiting for Resume step that began to wait for this pause, and when (its waiting step's
   * `since`): the resume completes that very step, and once it no longer waits the pause can no
   * longer be resumed.
   */
  waitingAt?: { activityId: string; since: string };
  /** Set once, by the resume that used the pause. */
  resumedAt?: string;
  /** Who resumed: `link` (the resume URL) or the API's caller (`apikey:{id}`). */
  resumedBy?: string;
  /** SHA-256 of the task token of the step that resume completes: a resume whose hand-over was cut short may be sent again. */
  resumedTask?: string;
}

/**
 * Pausing and resuming an instance (functions/store/instance-pauses.ts): each write is one
 * conditional transaction on the instance item, with its status's views and events.
 */
export interface InstancePauseStore {
  /** The instance item alone, unless it is past its retention (getLiveRecord). */
  getRecord(tenantId: string, id: string, now: Date): Promise<Omit<ProcessInstanceRecord, 'currentStep'> | undefined>;
  /**
   * Pause Instance: the status PAUSED (from `record.status`, which must still be stored) and a new
   * pause over any earlier one, with `events` and, when the status changes, its views. False when
   * the status changed meanwhile.
   */
  pause(record: Omit<ProcessInstanceRecord, 'currentStep'>, pause: InstancePause, now: Date, events: readonly EventEnvelope[]): Promise<boolean>;
  /** Waiting for Resume began (its step and `since`): the pause, if there is one not yet resumed, records it. False otherwise. */
  markWaiting(tenantId: string, id: string, waiting: { activityId: string; since: string }): Promise<boolean>;
  /**
   * The resume, once: the pause marked resumed (only while its secret hash is `mark.secretHash`
   * and it is unresumed), the status `to` (from `record.status`, which must still be stored) with
   * `events` and its views, and the resumed end user's capability hash. False when any condition failed.
   */
  resume(
    record: ProcessInstanceRecord,
    mark: { secretHash: string; resumedAt: string; resumedBy: string; resumedTask: string },
    to: InstanceStatus,
    capabilityHash: string,
    now: Date,
    events: readonly EventEnvelope[],
  ): Promise<boolean>;
  /** A resume sent again after its hand-over was cut short: a new capability hash, only while the pause names that task. */
  redrive(tenantId: string, id: string, resumedTask: string, capabilityHash: string): Promise<boolean>;
}

/**
 * Which of the end user's devices holds a journey after a Switch Device step moved it
 * (functions/journey/devices.ts): the others see where it went, not its steps.
 */
export interface JourneyHolder {
  /** SHA-256 (hex) of the holding device's capability: a phone's own, or the instance's. */
  capabilityHash: string;
  /** The same of the device it took the journey from. */
  from: string;
  /** A phone opened the step's switch link (`to-mobile`), or the device it came from took it back (`to-desktop`). */
  via: 'to-mobile' | 'to-desktop';
  /** The Switch Device step that moved it, and which visit of that step (SHA-256 of its task token, base64url). */
  activityId: string;
  step: string;
  since: string;
}

/** The answer kept for an Idempotency-Key, so a retried creation answers the same. */
export interface IdempotentResult {
  fingerprint: string;
  status: number;
  body: Record<string, unknown>;
}

export interface WaitingStep {
  activityId: string;
  activityType: string;
  /** The step's inputs with references resolved (what the page shows). */
  inputs: Record<string, unknown>;
  /** The session data when the step began; the submission resumes from it. */
  state: Record<string, unknown>;
  /**
   * The stored session version the step began at and the paths the execution's state keeps
   * (functions/shared/session-state.ts); absent for executions that carry the whole session.
   */
  ref?: { v: number; keep: string[] };
  /** The step's output parameters (process variable → JUEL expression), applied when it completes. */
  outputs?: Record<string, string>;
  taskToken: string;
  since: string;
  /** How many submissions of this step were refused so far (a data form's Max Attempts counts them). */
  refusals?: number;
  /** The last refused submission of this visit of the step, which its page shows (the page after a refused post). */
  refused?: StepRefusal;
  /**
   * A submission was accepted for this step and is being handed to Step Functions (its StepClaim
   * item holds what): every later submission hands over that one rather than being judged anew.
   */
  claim?: { at: string; outcome: 'complete' | 'fail'; digest?: string };
}

/**
 * A refused submission as its step's page shows it again: a stable code (why, for logs and
 * tests), each refused field's message by its key, what was entered (never a secret: passcodes
 * never reach the service, and a file is never kept), and the attempts left under Max Attempts.
 */
export interface StepRefusal {
  code: string;
  errors: Record<string, string>;
  values?: Record<string, string>;
  attemptsLeft?: number;
  at: string;
}

/**
 * A user step's accepted submission, from the moment it is accepted until Step Functions has
 * taken it (SendTaskSuccess or SendTaskFailure): kept in its own item of the instance, so that a
 * throttled or interrupted hand-over is repeated with the very same result, and only then is the
 * step taken off the instance and what the end user gave recorded.
 */
export interface StepClaim {
  activityId: string;
  /** The waiting step's task token (the claim is for that step, not for a later visit of the activity). */
  taskToken: string;
  at: string;
  /** Recognises the same submission sent again (an HMAC keyed by the journey link's capability). */
  digest?: string;
  outcome:
    | { complete: { result: Record<string, unknown>; data: StepUserData } }
    | { fail: { error: string; cause: string } };
}

/** What the end user gave at one user step. */
export interface StepUserData {
  activityId: string;
  activityType: string;
  /** Where the step keeps its result in the session (a data form's `Form data Key`). */
  dataKey: string;
  submittedAt: string;
  values: Record<string, unknown>;
  /** The step's check, when it makes one (a face capture does). */
  check?: CheckRecord;
  /** Images the step stored in S3 (their bytes are there, not here). */
  images?: ImageRecord[];
}

/** NOT_ASSESSED: a check no engine of this service judges, which the definition accepted; BYPASSED: a check its definition turned off (a threshold of -1). */
export type CheckResult = 'PASS' | 'FAIL' | 'REVIEW' | 'NOT_ASSESSED' | 'BYPASSED';

/** A check result, as `_checks.{key}` in the session and `userdata/checks` show it. */
export interface CheckRecord {
  checkId: string;
  activityId: string;
  checkType: string;
  result: CheckResult;
  /** Human readable; not for application logic (the spec's CheckResponse). */
  displayName: string;
  description: string;
  moreinfo?: string;
  checkedAt: string;
  reports: { name: string; result: CheckResult; description: string; reportType?: string }[];
}

/** An image an instance stored; the bytes are in S3 at `objectKey`. */
export interface ImageRecord {
  imageKey: string;
  captureId: string;
  /**
   * A face capture (imageKey: its Face Key), a side of an identity document (imageKey: its Doc
   * Key), or a page or PDF of an additional document (imageKey: its Add Doc Key).
   */
  kind: 'FACE' | 'DOCUMENT' | 'ADDITIONAL_DOCUMENT';
  /** A document's side. */
  side?: 'FRONT' | 'BACK';
  /** An additional document's id (its configuration's key), its page (1 for a PDF) and a PDF's page count. */
  documentId?: string;
  page?: number;
  pages?: number;
  /** A Rekognition Face Liveness audit image: the captureId of the capture (the session's reference image) it goes with. */
  auditOf?: string;
  /** PDF: an additional document's file (width and height 0: not rendered). */
  format: 'JPEG' | 'PNG' | 'PDF';
  contentType: string;
  width: number;
  height: number;
  bytes: number;
  sha256: string;
  objectKey: string;
  capturedAt: string;
}

/**
 * What a list shows of an instance: its slim view (three copies, one per index partition),
 * never its session or its token's other parameters. `parameters` holds the contact ones only.
 */
export interface InstanceView {
  tenantId: string;
  id: string;
  processDefnId: string;
  processDefnName: string;
  processDefnVersion: number;
  processTokenId: string;
  status: InstanceStatus;
  createdAt: string;
  /** As of the last status change (step writes stamp the instance item only). */
  lastUpdatedAt: string;
  retentionDays: number;
  expiringDtm: string;
  expiresAt: number;
  parameters: Record<string, string>;
  /** Test mode: present only on a test-mode instance's views. */
  forTest?: true;
}

/** Which index partition a query reads: every instance, one status, one definition name, or one search term. */
export type InstanceViewPartition = { kind: 'T' } | { kind: 'S'; status: string } | { kind: 'D'; name: string } | { kind: 'W'; term: string };

/** One Query over one view partition, in creation order, with what is left as filters. */
export interface InstanceViewQuery {
  partition: InstanceViewPartition;
  /** Creation range, inclusive (ISO instants). */
  from?: string | undefined;
  to?: string | undefined;
  direction: 'asc' | 'desc';
  /** Start right after this item (a cursor). */
  after?: { createdAt: string; id: string } | undefined;
  statuses?: readonly string[] | undefined;
  processDefnId?: string | undefined;
  processDefnName?: string | undefined;
  /** Search terms (functions/shared/search-terms.ts) the instance must also be indexed under (with a `W` partition). */
  terms?: readonly string[] | undefined;
  now: Date;
}

/** How an instance's creation ended: made, or which of its conditions refused it. */
export type CreateOutcome = { outcome: 'created' } | { outcome: 'tokenRefused' } | { outcome: 'idempotencyKeyTaken' };

/**
 * An instance's session, kept in the table by version (SESSION#{v} in its partition, with its
 * TTL) while the execution's state carries only a reference to it (functions/shared/session-state.ts).
 */
export interface SessionStore {
  /** The version, or undefined when it is not there (never written, cleaned up, or past its TTL). */
  get(tenantId: string, processInstanceId: string, v: number, now: Date): Promise<{ session: Record<string, unknown>; expiresAt: number } | undefined>;
  /**
   * Writes version `v` (over any earlier write of the same version: a retried attempt's) and
   * deletes version `v - 2`, so the two latest stay. With a `writer` (a user step's submission),
   * only over a write of the same writer: false when someone else (the activity of a route the
   * execution took meanwhile, a timer's) wrote the version, which is then left as it is.
   */
  put(tenantId: string, processInstanceId: string, v: number, session: Record<string, unknown>, expiresAt: number, writer?: string): Promise<boolean>;
}

export interface ProcessInstanceStore {
  /**
   * One transaction: the token's use (a conditional counter increment that also checks its
   * status and validity window), the instance, its `created` event, and the idempotency record if any.
   */
  createWithToken(
    record: ProcessInstanceRecord,
    token: ProcessTokenRecord,
    now: Date,
    event: EventEnvelope,
    idempotency?: { key: string; result: IdempotentResult },
    /** The journey's first session version (v0), written in the same transaction. */
    session?: Record<string, unknown>,
  ): Promise<CreateOutcome>;
  /**
   * Up to `limit` matching views in the query's order, and whether more match (eventually
   * consistent: an instance made a moment ago may show a moment later). Reads only the slim views
   * of the key range, a page at a time, and stops once it has `limit` + 1.
   */
  queryViews(tenantId: string, query: InstanceViewQuery, limit: number): Promise<{ views: InstanceView[]; more: boolean }>;
  /**
   * How many views match, counting no further than `cap` matches and reading no more than
   * `readBudget` index items; `exhausted` when the budget ran out first (then `count` is a lower bound).
   */
  countViews(tenantId: string, query: InstanceViewQuery, cap: number, readBudget: number): Promise<{ count: number; exhausted: boolean }>;
  /**
   * A page of stored instance items (one tenant's, or every tenant's without one), for the
   * operator's backfill: a Scan, read once per backfill. `next` continues it.
   */
  scanInstances(tenantId: string | undefined, cursor?: string): Promise<{ records: ProcessInstanceRecord[]; next?: string }>;
  /**
   * Writes the instance's list views and term views as the code now derives them and deletes the
   * term views it no longer derives, in one transaction that holds only while the instance still
   * has the status read (false otherwise: a status change raced, and wrote the views itself).
   */
  rewriteViews(record: ProcessInstanceRecord): Promise<boolean>;
  /** The instance unless it is past its retention: expired instances are gone for every reader. */
  getLive(tenantId: string, id: string, now: Date): Promise<ProcessInstanceRecord | undefined>;
  /**
   * As getLive, without the step the journey waits at (`currentStep` is absent): one GetItem,
   * for readers that never show the step (the API's instance reads).
   */
  getLiveRecord(tenantId: string, id: string, now: Date): Promise<Omit<ProcessInstanceRecord, 'currentStep'> | undefined>;
  /** The instance whatever its retention (the execution's end is recorded even late). */
  get(tenantId: string, id: string): Promise<ProcessInstanceRecord | undefined>;
  /** The answer kept for an Idempotency-Key, unless it has expired. */
  getIdempotent(tenantId: string, key: string, now: Date): Promise<IdempotentResult | undefined>;
  /** The step and its event in one transaction with the instance's `lastUpdatedAt`. False when the instance is gone. */
  setWaitingStep(record: ProcessInstanceRecord, step: WaitingStep, event: EventEnvelope): Promise<boolean>;
  /**
   * Accepts a submission for the waiting step with the claim's task token: marks the step claimed
   * and keeps the claim, in one transaction. False when the instance no longer waits at that step
   * or another submission claimed it first.
   */
  claimStep(tenantId: string, id: string, claim: StepClaim, expiresAt: number): Promise<boolean>;
  /** The claim kept for an activity of the instance, if any. */
  getStepClaim(tenantId: string, id: string, activityId: string): Promise<StepClaim | undefined>;
  /**
   * Step Functions took the claim: the claim goes, what the end user gave (a completion's data)
   * is kept with the instance's TTL, `lastStep` is set, and the waiting step comes off if it is
   * still this one (the execution may already wait at the next). False when the claim was
   * already finished.
   */
  finishStep(tenantId: string, id: string, claim: StepClaim, expiresAt: number, now: Date): Promise<boolean>;
  /** Step Functions refused the claim for its rate (it took nothing): the step is waiting and unclaimed again. */
  releaseClaim(tenantId: string, id: string, claim: StepClaim): Promise<void>;
  /** One more refused submission of the waiting step with this token: the new count, or undefined when it no longer waits. */
  countRefusal(tenantId: string, id: string, taskToken: string): Promise<number | undefined>;
  /** Keeps a refused submission on the waiting step (only while it waits with `taskToken`): false when it no longer does. */
  noteRefusal(tenantId: string, id: string, taskToken: string, refusal: StepRefusal): Promise<boolean>;
  listUserData(tenantId: string, id: string): Promise<StepUserData[]>;
  /** What a service step recorded (a face match's check and images), over its earlier visit's, expiring with the instance. */
  putUserData(tenantId: string, id: string, data: StepUserData, expiresAt: number): Promise<void>;
  /** Records where a Redirect User step sends the end user, over any earlier one; false when the instance is gone. */
  setRedirect(tenantId: string, id: string, redirect: InstanceRedirect): Promise<boolean>;
  /**
   * One more failed attempt of an activity, counted once per `attemptId` (a retried run of the
   * same attempt does not count again): the number of failed attempts so far.
   */
  countFailedAttempt(tenantId: string, id: string, activityId: string, attemptId: string, expiresAt: number): Promise<number>;
  /**
   * The status and its events in one transaction. False when the stored status is no longer
   * `from` (and nothing is written). A `final` status also takes the instance off the
   * reconciler's index (its execution's end is recorded).
   */
  setStatus(record: ProcessInstanceRecord, from: string, to: string, now: Date, final: boolean, events: readonly EventEnvelope[]): Promise<boolean>;
  /**
   * Open instances (no final status yet) whose `reconcileAt` is at or before `now`, across
   * tenants, a page at a time (`cursor` is the last page's `next`). Eventually consistent.
   */
  dueForReconcile(now: Date, cursor?: string): Promise<{ due: { tenantId: string; processInstanceId: string }[]; next?: string }>;
  /**
   * The reconciler found the execution still running: ask again at `at` (the `checks`-th time).
   * Only while the status is still `status` and the instance open; false otherwise.
   */
  deferReconcile(record: ProcessInstanceRecord, at: string, checks: number): Promise<boolean>;
}

/**
 * An instance's review as the review steps and the reviewer's decision write it: apart from the
 * instance store, so the journey pages and the other instance routes do not carry it.
 */
export interface ReviewStore {
  /**
   * The journey requires a review: `review` (PENDING) is the instance's, over none or a decided
   * one (a new round), never over one pending: a retried step writes nothing. False when nothing
   * was written (pending already, or the instance is gone).
   */
  requireReview(tenantId: string, id: string, review: InstanceReview): Promise<boolean>;
  /**
   * A reviewer's decision, in one transaction: the review, the status `to` (final: off the
   * reconciler's index; its views moved when it changes) and the events. Written only over what
   * was read: the status `from` and the review (none, or its `id`). False when either changed,
   * and nothing is written.
   */
  decideReview(record: ProcessInstanceRecord, change: { from: string; to: string; review: InstanceReview }, now: Date, events: readonly EventEnvelope[]): Promise<boolean>;
}

/** The images of process instances (S3, under `tenants/{tenantId}/instances/{id}/`). */
export interface InstanceImageStore {
  put(objectKey: string, bytes: Uint8Array, contentType: string, sha256: string): Promise<void>;
  /** Undefined when absent. */
  get(tenantId: string, processInstanceId: string, objectKey: string): Promise<Buffer | undefined>;
  /**
   * An image no larger than `maxBytes` (one the relying party uploaded with a pre-signed PUT,
   * which cannot cap its size): its bytes, 'tooLarge' (having read at most one byte more), or
   * undefined when absent.
   */
  getAtMost(tenantId: string, processInstanceId: string, objectKey: string, maxBytes: number): Promise<Buffer | 'tooLarge' | undefined>;
  /** A pre-signed GET of an instance's image, good for `expiresIn` seconds. */
  url(tenantId: string, processInstanceId: string, objectKey: string, expiresIn: number): Promise<string>;
  /**
   * A pre-signed PUT of an instance's image, good for `expiresIn` seconds: the URL and the
   * headers it was signed with, which the upload must send exactly (a `Content-Type` other than
   * `contentType` fails the signature).
   */
  uploadUrl(
    tenantId: string,
    processInstanceId: string,
    objectKey: string,
    contentType: string,
    expiresIn: number,
  ): Promise<{ url: string; headers: Record<string, string> }>;
  /** Deletes everything an instance stored; how many objects went. */
  deleteInstance(tenantId: string, processInstanceId: string): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// The orchestrator port

/**
 * The seam between the API and whatever runs journeys: Step Functions on AWS, the local engine
 * (aws-local-stepfunctions) on one machine.
 */
export interface Orchestrator {
  /**
   * The name of the state machine an ASL runs on: a hash of what runs, the ASL and this
   * deployment's settings for it (executions/state-machine-names.ts), the same for every tenant
   * and every version that compiles alike. Nothing of a tenant goes into it.
   */
  stateMachineName(asl: object): string;
  /**
   * Creates the state machine of an ASL under that name, or finds it if it exists (Step Functions
   * answers an identical CreateStateMachine with the existing one): its ARN. Made when a version
   * becomes DEPLOYED_ACTIVE (definitions/activation.ts), shared by every version that uses it.
   */
  publishStateMachine(input: { asl: object }): Promise<string>;
  /** Starts a journey; the execution is named after the instance, so a retry cannot start two. */
  startExecution(input: { stateMachineArn: string; name: string; input: object }): Promise<{ executionArn: string }>;
  /** Resumes a journey waiting at a user step with the step's output. */
  sendTaskSuccess(taskToken: string, output: object): Promise<void>;
  /** Fails a journey's user step with an ASL error name (its error boundary event's `Catch` routes it). */
  sendTaskFailure(taskToken: string, error: string, cause: string): Promise<void>;
  /**
   * An execution as DescribeExecution tells it (input and output parsed; they are always
   * included in the API's answer), or undefined when there is no such execution (it never
   * started, or its history is gone: Step Functions keeps a closed execution 90 days).
   */
  describeExecution(executionArn: string): Promise<ExecutionDescription | undefined>;
}

/** Step Functions' execution statuses (PENDING_REDRIVE: a failed execution being redriven). */
export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED' | 'PENDING_REDRIVE';

export interface ExecutionDescription {
  status: ExecutionStatus;
  input?: unknown;
  output?: unknown;
  /** Set for FAILED, TIMED_OUT and ABORTED executions: the error name (`States.Timeout`, an activity's). */
  error?: string;
}

/**
 * An instance's execution: named after the instance, in the state machine it was started on
 * (`arn:...:stateMachine:{name}` → `arn:...:execution:{name}:{instance id}`).
 */
export function executionArnOf(record: Pick<ProcessInstanceRecord, 'stateMachineArn' | 'id'>): string {
  const parts = record.stateMachineArn.split(':');
  if (parts.length !== 7 || parts[5] !== 'stateMachine') throw new Error(`not a state machine ARN: ${record.stateMachineArn}`);
  parts[5] = 'execution';
  return `${parts.join(':')}:${record.id}`;
}


/** A CSV export answers up to this many rows inline; more go to an export job. */
export const CSV_INLINE_MAX_ROWS = 1_000;
/** An export job's CSV holds at most this many rows (narrow the filters for more). */
export const CSV_EXPORT_MAX_ROWS = 100_000;
