import { createHash } from 'node:crypto';
import { apiError, ServiceUnavailableError, ValidationError, type ErrorDetail } from '../errors.js';
import { addVersion, getVersioned, setVersionedStatus, versionsPage, type NewVersion, type VersionedKindOf } from '../process-manager/versioned.js';
import type { DeploymentStatus } from '../process-manager/model.js';
import { isPythonType, type CloudFunctionRecord, type CloudFunctionStore, type CloudFunctionSummary, type CloudFunctionType, type FunctionRunner, type PythonCheck } from './model.js';

export class CloudFunctionExistsError extends apiError('CLOUD_FUNCTION_EXISTS') {
  constructor(name: string, version: number) {
    super(`Cloud function "${name}" version ${version} already exists; a version is immutable, add the next one instead.`);
  }
}

export class CloudFunctionNotFoundError extends apiError('CLOUD_FUNCTION_NOT_FOUND') {
  constructor(id: string) {
    super(`Cloud function ${id} was not found.`);
  }
}

/**
 * The code of one version, as stored: UTF-8 module sources by path. Within a DynamoDB item
 * (400 KB) with room for the summary; a zip may hold more files but not more code.
 */
export const MAX_CODE_BYTES = 300 * 1024;
/** A zip upload, before it is unpacked (base64 in the JSON body). */
export const MAX_ZIP_BYTES = 256 * 1024;
export const MAX_FILES = 100;
/** A Python function's script, in characters (code points), as the family limits it. */
export const MAX_PYTHON_CHARS = 20_000;
/** The one file a Python function is, as its modules name it. */
export const PYTHON_FILE = 'function.py';
/** The run's limits a version may ask for (the sandbox's own maximums, functions/cloud-functions/contract.ts). */
export const TIMEOUT_SECONDS = { min: 1, max: 60, default: 30 } as const;
export const MEMORY_MB = { min: 16, max: 128, default: 64 } as const;

/** A module path in a zip: relative, `/`-separated, no `..`, ending `.js` or `.mjs` (or `.json` data). */
const MODULE_PATH = /^(?=.{1,255}$)(?!\/)(?!.*(?:^|\/)\.\.?(?:\/|$))[A-Za-z0-9_.@-]+(?:\/[A-Za-z0-9_.@-]+)*\.(?:m?js|json)$/;

export const CLOUD_FUNCTION_SORTABLE = ['version', 'status', 'createdDtm', 'lastUpdatedDtm'] as const;

export function cloudFunctionSummary(r: CloudFunctionSummary) {
  return {
    id: r.id,
    name: r.name,
    version: r.version,
    description: r.description,
    status: r.status,
    type: r.type ?? 'JAVASCRIPT',
    format: r.format,
    entryPoint: r.entryPoint,
    files: r.files,
    sha256: r.sha256,
    timeoutSeconds: r.timeoutSeconds,
    memoryMb: r.memoryMb,
    createdDtm: r.createdDtm,
    createdBy: r.createdBy,
    lastUpdatedDtm: r.lastUpdatedDtm,
    lastUpdatedBy: r.lastUpdatedBy,
  };
}

/** A version with its code: its modules, and (one file: a Python script, one JavaScript module) that file as `resource`, as the family reads it. */
export function cloudFunctionView(r: CloudFunctionRecord) {
  const single = r.format !== 'ZIP' ? r.modules[r.entryPoint] : undefined;
  return { ...cloudFunctionSummary(r), modules: r.modules, ...(single !== undefined ? { resource: single } : {}) };
}

const FUNCTIONS: VersionedKindOf<CloudFunctionRecord, CloudFunctionSummary, ReturnType<typeof cloudFunctionSummary>> = {
  noun: 'cloud function',
  exists: (name, version) => new CloudFunctionExistsError(name, version),
  notFound: (id) => new CloudFunctionNotFoundError(id),
  summary: cloudFunctionSummary,
  sortable: CLOUD_FUNCTION_SORTABLE,
};

export interface NewCloudFunction extends NewVersion {
  /** JAVASCRIPT when absent. */
  type?: CloudFunctionType | null | undefined;
  /** The family's field for the code: a Python script, or (JAVASCRIPT) one ES module as `source`. */
  resource?: string | null | undefined;
  /** One ES module (its `handler` export runs), or: */
  source?: string | null | undefined;
  /** A zip of modules, base64, with `entryPoint` naming the one whose `handler` runs. */
  zip?: string | null | undefined;
  entryPoint?: string | null | undefined;
  timeoutSeconds?: number | null | undefined;
  memoryMb?: number | null | undefined;
}

/** Compiles a Python script without running it (the runner's check). */
export type PythonChecker = (script: string) => Promise<PythonCheck>;

/**
 * The runner's check, for an upload: the runner not answering (its Lambda throttled or failing,
 * the local child gone) is the service's trouble, not the script's: 503, the same upload can be
 * sent again.
 */
export function checkedBy(runner: Pick<FunctionRunner, 'checkPython'>): PythonChecker {
  return async (script) => {
    try {
      return await runner.checkPython(script);
    } catch (err) {
      throw new ServiceUnavailableError('The Python checker did not answer; send the same upload again in a moment.', undefined, { cause: err });
    }
  };
}

/**
 * A Python function's one file, checked: given as `resource` (or `source`), at most 20,000
 * characters, and compiling (the runner compiles it; a SyntaxError is refused with its line,
 * column and CPython's message).
 */
async function pythonScriptOf(input: NewCloudFunction, check: PythonChecker): Promise<{ format: 'PYTHON'; modules: Record<string, string>; entryPoint: string }> {
  const refuse = (details: ErrorDetail[]) => new ValidationError('The function code is not valid.', details);
  const given = (v: unknown) => v !== undefined && v !== null;
  if (given(input.zip) || given(input.entryPoint)) {
    throw refuse([{ location: given(input.zip) ? 'body.zip' : 'body.entryPoint', message: `a ${input.type} function is one script, given as resource` }]);
  }
  if (given(input.resource) && given(input.source)) throw refuse([{ location: 'body.source', message: 'give the script once, as resource' }]);
  const script = input.resource ?? input.source;
  const location = given(input.resource) ? 'body.resource' : 'body.source';
  if (!given(script)) throw refuse([{ location: 'body.resource', message: `a ${input.type} function needs its script, as resource` }]);
  const chars = [...script!].length;
  if (chars > MAX_PYTHON_CHARS) throw refuse([{ location, message: `the script is ${chars} characters; at most ${MAX_PYTHON_CHARS}` }]);
  const checked = await check(script!);
  if (!checked.ok) throw refuse([{ location, message: `line ${checked.line}, column ${checked.column}: ${checked.message}` }]);
  return { format: 'PYTHON', modules: { [PYTHON_FILE]: script! }, entryPoint: PYTHON_FILE };
}

/** The modules of an upload, checked: paths, count, total size, and the entry point among them. */
export async function modulesOf(input: NewCloudFunction): Promise<{ format: 'JAVASCRIPT' | 'ZIP'; modules: Record<string, string>; entryPoint: string }> {
  const refuse = (details: ErrorDetail[]) => new ValidationError('The function code is not valid.', details);
  const given = (v: string | null | undefined) => v !== undefined && v !== null;
  // The family's field for the code: one module here.
  if (given(input.resource)) {
    if (given(input.source)) throw refuse([{ location: 'body.source', message: 'give the module once, as source or as resource' }]);
    input = { ...input, source: input.resource };
  }
  if (given(input.source) === given(input.zip)) {
    throw refuse([{ location: 'body', message: 'give the code as exactly one of source (one JavaScript module) or zip (base64 of a zip of modules)' }]);
  }
  let modules: Record<string, string>;
  let format: 'JAVASCRIPT' | 'ZIP';
  if (given(input.source)) {
    format = 'JAVASCRIPT';
    const entry = input.entryPoint ?? 'index.js';
    if (!MODULE_PATH.test(entry)) throw refuse([{ location: 'body.entryPoint', message: 'must be a relative module path ending .js or .mjs' }]);
    modules = { [entry]: input.source! };
  } else {
    format = 'ZIP';
    modules = await unzip(input.zip!, refuse);
  }
  const entryPoint = input.entryPoint ?? (Object.hasOwn(modules, 'index.js') ? 'index.js' : Object.keys(modules).length === 1 ? Object.keys(modules)[0]! : 'index.js');
  if (!Object.hasOwn(modules, entryPoint) || entryPoint.endsWith('.json')) {
    throw refuse([{ location: 'body.entryPoint', message: `names no JavaScript module of the upload (it has ${Object.keys(modules).slice(0, 10).join(', ') || 'none'})` }]);
  }
  const bytes = Object.entries(modules).reduce((n, [path, src]) => n + Buffer.byteLength(path) + Buffer.byteLength(src), 0);
  if (bytes > MAX_CODE_BYTES) throw refuse([{ location: input.zip ? 'body.zip' : 'body.source', message: `the code is ${bytes} bytes; at most ${MAX_CODE_BYTES}` }]);
  return { format, modules, entryPoint };
}

async function unzip(base64: string, refuse: (details: ErrorDetail[]) => Error): Promise<Record<string, string>> {
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.toString('base64') !== base64.replace(/\s+/g, '')) throw refuse([{ location: 'body.zip', message: 'is not base64' }]);
  if (bytes.length > MAX_ZIP_BYTES) throw refuse([{ location: 'body.zip', message: `the zip is ${bytes.length} bytes; at most ${MAX_ZIP_BYTES}` }]);
  const { ZipReader, Uint8ArrayReader, TextWriter } = await import('@zip.js/zip.js');
  let entries: Awaited<ReturnType<InstanceType<typeof ZipReader>['getEntries']>>;
  try {
    entries = await new ZipReader(new Uint8ArrayReader(new Uint8Array(bytes)), { useWebWorkers: false }).getEntries();
  } catch {
    throw refuse([{ location: 'body.zip', message: 'is not a zip file' }]);
  }
  const files = entries.filter((e) => !e.directory);
  if (files.length === 0) throw refuse([{ location: 'body.zip', message: 'holds no file' }]);
  if (files.length > MAX_FILES) throw refuse([{ location: 'body.zip', message: `holds ${files.length} files; at most ${MAX_FILES}` }]);
  const modules: [string, string][] = [];
  let total = 0;
  for (const entry of files) {
    if (!MODULE_PATH.test(entry.filename)) {
      throw refuse([{ location: 'body.zip', message: `${JSON.stringify(entry.filename.slice(0, 100))} is not a relative path of a .js, .mjs or .json file` }]);
    }
    if (entry.encrypted) throw refuse([{ location: 'body.zip', message: `${entry.filename} is encrypted` }]);
    // Before unpacking: a small zip can claim (and inflate to) a great deal.
    total += entry.uncompressedSize;
    if (total > MAX_CODE_BYTES) throw refuse([{ location: 'body.zip', message: `unpacks to more than ${MAX_CODE_BYTES} bytes` }]);
    let text: string;
    try {
      text = await entry.getData!(new TextWriter());
    } catch {
      throw refuse([{ location: 'body.zip', message: `${entry.filename} cannot be read` }]);
    }
    modules.push([entry.filename, text]);
  }
  return Object.fromEntries(modules.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Adds a function version (the next of its name unless `version` is given). */
export async function addCloudFunction(
  store: Pick<CloudFunctionStore, 'create' | 'latestVersion'>,
  input: NewCloudFunction,
  ctx: { tenantId: string; actor: string; now: Date; checkPython: PythonChecker },
): Promise<CloudFunctionRecord> {
  const type = input.type ?? 'JAVASCRIPT';
  const { format, modules, entryPoint } = isPythonType(type) ? await pythonScriptOf({ ...input, type }, ctx.checkPython) : await modulesOf(input);
  const sha256 = createHash('sha256').update(JSON.stringify(modules)).digest('hex');
  return addVersion(
    FUNCTIONS,
    store,
    input,
    {
      type,
      format,
      entryPoint,
      files: Object.keys(modules),
      sha256,
      timeoutSeconds: input.timeoutSeconds ?? TIMEOUT_SECONDS.default,
      memoryMb: input.memoryMb ?? MEMORY_MB.default,
      modules,
    },
    ctx,
  );
}

export function getCloudFunction(store: Pick<CloudFunctionStore, 'get'>, tenantId: string, id: string): Promise<CloudFunctionRecord> {
  return getVersioned(FUNCTIONS, store, tenantId, id);
}

export function setCloudFunctionStatus(
  store: Pick<CloudFunctionStore, 'get' | 'setStatus'>,
  input: { tenantId: string; id: string; status: DeploymentStatus; actor: string; now: Date },
): Promise<CloudFunctionRecord> {
  return setVersionedStatus(FUNCTIONS, store, input);
}

export function cloudFunctionVersionsPage(
  store: Pick<CloudFunctionStore, 'versionsOf'>,
  tenantId: string,
  name: string,
  query: { page: number; size: number; sort: string[]; cursor?: string | undefined },
) {
  return versionsPage(FUNCTIONS, store, tenantId, name, query);
}

/**
 * The version a journey step runs: the one named, or (no version, or one not given as a number)
 * the latest DEPLOYED_ACTIVE one. A named version runs unless ARCHIVED; undefined when there is
 * none to run.
 */
export async function functionToRun(
  store: Pick<CloudFunctionStore, 'get' | 'getVersion' | 'versionsOf'>,
  tenantId: string,
  name: string,
  version: number | undefined,
): Promise<CloudFunctionRecord | undefined> {
  let summary: CloudFunctionSummary | undefined;
  if (version !== undefined) {
    summary = await store.getVersion(tenantId, name, version);
    if (summary?.status === 'ARCHIVED') return undefined;
  } else {
    // Newest first, a page at a time, up to the first active one (usually the first read).
    const versions = store.versionsOf(tenantId, name);
    let after: string | undefined;
    for (let done = false; !summary && !done; ) {
      const page = await versions.read({ after, limit: 25, descending: true });
      summary = page.rows.find((r) => r.record.status === 'DEPLOYED_ACTIVE')?.record;
      after = page.rows.at(-1)?.at;
      done = page.done || after === undefined;
    }
  }
  return summary ? store.get(tenantId, summary.id) : undefined;
}
