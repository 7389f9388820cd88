/**
 * Cloud functions and cloud secrets: tenant-written JavaScript that journeys run (the Execute
 * Cloud Function v2 step), kept by name and version as the family keeps them, and the secrets
 * those functions may be given, write-only.
 */
import type { VersionedStore, VersionedSummary } from '../process-manager/model.js';
import type { KeyedSource } from '../shared/keyed-list.js';

/** How the function was uploaded: one JavaScript module, or a zip of modules. */
export const CLOUD_FUNCTION_FORMATS = ['JAVASCRIPT', 'ZIP'] as const;
export type CloudFunctionFormat = (typeof CLOUD_FUNCTION_FORMATS)[number];

/** What a versions page lists of a function version: everything but its modules. */
export interface CloudFunctionSummary extends VersionedSummary {
  format: CloudFunctionFormat;
  /** The module whose `handler` export runs. */
  entryPoint: string;
  /** The modules' paths, in order. */
  files: string[];
  /** SHA-256 (hex) of the modules as stored, to tell versions apart. */
  sha256: string;
  /** The run's limits, within the service's maximums. */
  timeoutSeconds: number;
  memoryMb: number;
}

export interface CloudFunctionRecord extends CloudFunctionSummary {
  tenantId: string;
  /** Path → ES module source (UTF-8). */
  modules: Record<string, string>;
}

export type CloudFunctionStore = VersionedStore<CloudFunctionRecord, CloudFunctionSummary>;

/** A secret as reads show it: never its value. */
export interface CloudSecretSummary {
  name: string;
  description: string;
  /** 1 at creation, one more at each rotation. */
  version: number;
  createdDtm: string;
  createdBy: string;
  lastUpdatedDtm: string;
  lastUpdatedBy: string;
}

export interface CloudSecretRecord extends CloudSecretSummary {
  tenantId: string;
  /** The value sealed with the secrets key (KMS on AWS), bound to the tenant, name and version. */
  sealed: string;
}

export type CloudSecretWrite = { outcome: 'written' } | { outcome: 'exists' } | { outcome: 'changed' } | { outcome: 'gone' };

export interface CloudSecretStore {
  /** `exists` when the tenant has a secret of that name. */
  create(record: CloudSecretRecord): Promise<CloudSecretWrite>;
  get(tenantId: string, name: string): Promise<CloudSecretRecord | undefined>;
  /** Several at once (the secrets a step lists); absent names are left out. */
  getMany(tenantId: string, names: string[]): Promise<CloudSecretRecord[]>;
  /** Replaces a secret whose stored version is still `fromVersion` (`changed` otherwise, `gone` when deleted). */
  replace(record: CloudSecretRecord, fromVersion: number): Promise<CloudSecretWrite>;
  /** False when there was no such secret. */
  delete(tenantId: string, name: string): Promise<boolean>;
  /** Every secret's summary (the whole partition): only for a tenant whose secrets have no list views yet (`viewed`). */
  list(tenantId: string): Promise<CloudSecretSummary[]>;
  /** Whether every secret of the tenant has its list view (a tenant made since views exist, or backfilled). */
  viewed(tenantId: string): Promise<boolean>;
  /** The summaries of the secrets whose name begins with `namePrefix`, by name, as a paged list of their views (a page is one Query). */
  byName(tenantId: string, namePrefix?: string): KeyedSource<CloudSecretSummary>;
  /** Writes every secret's list view, then marks the list viewed (`operator backfill-lists`). Idempotent. */
  backfillViews(tenantId: string): Promise<{ items: number; views: number }>;
}

/** What a secret is sealed for: its tenant, name and version (the KMS encryption context). */
export interface CloudSecretRef {
  tenantId: string;
  name: string;
  version: number;
}

export interface CloudSecretSealer {
  seal(plain: string, ref: CloudSecretRef): Promise<string>;
  unseal(sealed: string, ref: CloudSecretRef): Promise<string>;
}

/** A run's console output, kept per instance and step ("Report Log"), secret values masked. */
export interface CloudFunctionLogRecord {
  tenantId: string;
  processInstanceId: string;
  activityId: string;
  /** When the run started; with the step, the log's key. */
  at: string;
  functionName: string;
  functionVersion: number;
  /** The step's Rule Execution Name, when it has one. */
  ruleExecutionName?: string;
  outcome: 'SUCCEEDED' | 'FAILED';
  error: { name: string; message: string } | null;
  durationMs: number;
  lines: { level: 'debug' | 'info' | 'warn' | 'error'; message: string; at: string }[];
  truncated: boolean;
  /** The instance's expiry (epoch seconds): the log goes with the instance's data. */
  expiresAt: number;
}

export interface CloudFunctionLogStore {
  put(record: CloudFunctionLogRecord): Promise<void>;
  list(tenantId: string, processInstanceId: string, now: Date): Promise<CloudFunctionLogRecord[]>;
}

export type { LogLine, RunRequest, RunResult } from './contract.js';

/**
 * Runs a function version in the sandbox, away from the service: the runner Lambda on AWS (its
 * role grants nothing), a child process locally. Rejects only when the runner itself failed
 * (it could not be reached, or died): what the function did is always a RunResult.
 */
export interface FunctionRunner {
  run(request: import('./contract.js').RunRequest): Promise<import('./contract.js').RunResult>;
}
