/**
 * Call counters for the AWS-call section. Every count goes to the tallies of the async context
 * it was made in (AsyncLocalStorage), so work that runs concurrently — a journey's activities,
 * an execution's end, the bench's own polling — is attributed to what set it off, not to
 * whichever handler call happens to be running at the time.
 *
 * A request's tally closes when the handler returns; anything its context does later (the
 * execution it started running activities, the execution's end being recorded) goes to the
 * tally's `after` companion. Counts made outside every open tally go to `background`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { round } from './stats.js';

export type Counts = Record<string, number>;

export interface Tally {
  label: string;
  open: boolean;
  /** DynamoDB SDK commands, by the SDK's command name (`GetItemCommand`). */
  dynamodb: Counts;
  /** DynamoDB commands by operation and the item they address (`GetItem processToken`). */
  dynamodbItems: Counts;
  /** HTTP requests that reached the DynamoDB endpoint, by X-Amz-Target operation (retries included). */
  http: Counts;
  /** Orchestrator calls, named as the Step Functions API calls they are on AWS. */
  stepFunctions: Counts;
  /** Event publisher calls (EventBridge PutEvents on AWS). */
  events: Counts;
  /** Activity function invocations by the engine (a Lambda invoke by Step Functions on AWS). */
  lambda: Counts;
  /** `signer.sign` calls: one KMS Sign each on AWS. */
  signatures: number;
  /** Where this tally's context counts once it is closed (asynchronous work it set off). */
  after?: Tally;
}

export function newTally(label: string, opts: { after?: boolean } = {}): Tally {
  const t: Tally = { label, open: true, dynamodb: {}, dynamodbItems: {}, http: {}, stepFunctions: {}, events: {}, lambda: {}, signatures: 0 };
  if (opts.after) t.after = newTally(`${label} (after)`);
  return t;
}

export function bump(counts: Counts, key: string, by = 1): void {
  counts[key] = (counts[key] ?? 0) + by;
}

export const sum = (c: Counts) => Object.values(c).reduce((a, b) => a + b, 0);

const scope = new AsyncLocalStorage<Tally[]>();

/** Counts made outside every open tally (none is expected once the bench's own work has its tally). */
export const background = newTally('background');

/** Every count, whoever it went to: a window's counts are the difference of two snapshots. */
export const everything = newTally('everything');

function targets(): Tally[] {
  const out: Tally[] = [];
  for (const t of scope.getStore() ?? []) {
    const dest = t.open ? t : t.after;
    if (dest?.open && !out.includes(dest)) out.push(dest);
  }
  return out.length ? out : [background];
}

type CountField = 'dynamodb' | 'dynamodbItems' | 'http' | 'stepFunctions' | 'events' | 'lambda';

export function count(field: CountField, key: string): void {
  for (const t of targets()) bump(t[field], key);
  bump(everything[field], key);
}

export function countSignature(): void {
  for (const t of targets()) t.signatures++;
  everything.signatures++;
}

const FIELDS: CountField[] = ['dynamodb', 'dynamodbItems', 'http', 'stepFunctions', 'events', 'lambda'];

/** A copy of a tally's counts. */
export function snapshot(t: Tally): Tally {
  const copy = newTally(t.label);
  for (const f of FIELDS) copy[f] = { ...t[f] };
  copy.signatures = t.signatures;
  copy.open = t.open;
  return copy;
}

/** The counts a tally gained since `before` (a snapshot of it). */
export function since(t: Tally, before: Tally): Tally {
  const out = newTally(`${t.label} (window)`);
  for (const f of FIELDS) {
    for (const [k, v] of Object.entries(t[f])) {
      const d = v - (before[f][k] ?? 0);
      if (d) out[f][k] = d;
    }
  }
  out.signatures = t.signatures - before.signatures;
  return out;
}

/** Runs `fn` with `tallies` as the context's tallies (replacing, not adding to, the current ones). */
export function within<T>(tallies: Tally[], fn: () => Promise<T>): Promise<T> {
  return scope.run(tallies, fn);
}

/**
 * Runs `fn` as work set off by the current context (an activity the engine invokes): a request's
 * tally is replaced by its `after` companion even while the request is still running, so a
 * request's own figures never include its journey's work.
 */
export function asAsyncWork<T>(fn: () => Promise<T>): Promise<T> {
  const store = (scope.getStore() ?? []).map((t) => t.after ?? t);
  return scope.run(store, fn);
}

// --- DynamoDB item classification --------------------------------------------------------------

const SK_KINDS: [RegExp, string][] = [
  [/^APIKEY#/, 'apiKey'],
  [/^PTOKEN#/, 'processToken'],
  [/^PTNAME#/, 'processTokenName'],
  [/^PDEFNV#/, 'definitionNameVersion'],
  [/^PDEFTAG#/, 'definitionTag'],
  [/^PDEF#/, 'definition'],
  [/^PI$/, 'instance'],
  [/^IDEMP$/, 'idempotency'],
  [/^TENANT$/, 'tenant'],
];

function skOf(key: unknown): string | undefined {
  const sk = (key as { SK?: unknown } | undefined)?.SK;
  if (typeof sk === 'string') return sk;
  const s = (sk as { S?: unknown } | undefined)?.S;
  return typeof s === 'string' ? s : undefined;
}

function kindOf(key: unknown): string {
  const sk = skOf(key);
  if (sk === undefined) return '?';
  return SK_KINDS.find(([re]) => re.test(sk))?.[1] ?? sk.split('#')[0]!;
}

/** `GetItem processToken`, `TransactWriteItems [Update processToken + Put instance]`, `Query`. */
export function describeCommand(commandName: string, input: unknown): string {
  const op = commandName.replace(/Command$/, '');
  const i = (input ?? {}) as { Key?: unknown; Item?: unknown; TransactItems?: Record<string, { Key?: unknown; Item?: unknown }>[] };
  if (i.TransactItems) {
    const parts = i.TransactItems.map((item) => {
      const [kind, body] = Object.entries(item)[0] ?? ['?', {}];
      return `${kind} ${kindOf(body.Key ?? body.Item)}`;
    });
    return `${op} [${parts.join(' + ')}]`;
  }
  if (i.Key !== undefined || i.Item !== undefined) return `${op} ${kindOf(i.Key ?? i.Item)}`;
  return op;
}

export const READ_COMMANDS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
export const WRITE_COMMANDS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

/** The SDK command name without its `Command` suffix. */
export const opName = (commandName: string) => commandName.replace(/Command$/, '');

/** Counts merged over several tallies, divided by `n` (means per call). */
export function meanCounts(list: Counts[], n: number): Counts {
  const out: Counts = {};
  for (const c of list) for (const [k, v] of Object.entries(c)) bump(out, k, v);
  for (const k of Object.keys(out)) out[k] = round(out[k]! / n, 2);
  return out;
}

export const fmtCounts = (c: Counts) =>
  Object.entries(c)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || 'none';
