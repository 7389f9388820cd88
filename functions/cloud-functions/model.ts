/**
 * Cloud functions and cloud secrets: tenant-written JavaScript that journeys run (the Execute
 * Cloud Function v2 step), kept by name and version as the family keeps them, and the secrets
 * those functions may be given, write-only.
 */
import type { VersionedStore, VersionedSummary } from '../process-manager/model.js';
import type { KeyedSource } from '../shared/keyed-list.js';

/** How the function was uploaded: one JavaScript module, a zip of modules, or one Python script. */
export const CLOUD_FUNCTION_FORMATS = ['JAVASCRIPT', 'ZIP', 'PYTHON'] as const;
export type CloudFunctionFormat = (typeof CLOUD_FUNCTION_FORMATS)[number];

/**
 * What runs the function: JavaScript (this service's `handler` contract), or a Python script in
 * the family's contract (`params` in, `results` out). The family names its Python 3.9
 * environment PYTHON39V1; PYTHON312V2 is its Python 3.12 one (Execute Cloud Function v2 only).
 * Both run on the same CPython 3.12 here (docs/cloud-functions.md says what differs from 3.9).
 */
export const CLOUD_FUNCTION_TYPES = ['JAVASCRIPT', 'PYTHON39V1', 'PYTHON312V2'] as const;
export type CloudFunctionType = (typeof CLOUD_FUNCTION_TYPES)[number];
export const isPythonType = (type: CloudFunctionType | undefined): type is 'PYTHON39V1' | 'PYTHON312V2' => type === 'PYTHON39V1' || type === 'PYTHON312V2';

/** What a versions page lists of a function version: everything but its modules. */
export interface CloudFunctionSummary extends VersionedSummary {
  /** Absent on versions stored before Python functions: JAVASCRIPT. */
  type?: CloudFunctionType;
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

export type { LogLine, PythonCheck, PythonRunRequest, RunnerPayload, RunRequest, RunResult } from './contract.js';

/**
 * Runs a function version in the sandbox, away from the service: the runner Lambda on AWS (its
 * role grants nothing), a child process locally. Rejects only when the runner itself failed
 * (it could not be reached, or died): what the function did is always a RunResult.
 */
export interface FunctionRunner {
  run(request: import('./contract.js').RunRequest | import('./contract.js').PythonRunRequest): Promise<import('./contract.js').RunResult>;
  /** Compiles a Python script without running it (an upload's check). Rejects only when the runner failed. */
  checkPython(script: string): Promise<import('./contract.js').PythonCheck>;
}
