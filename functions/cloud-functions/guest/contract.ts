/**
 * What crosses between the host (sandbox.ts) and the prelude (this folder, run inside QuickJS):
 * types only (nothing here is a value), so both sides agree on the names and shapes and neither
 * loads the other's code.
 *
 * Only strings, numbers, booleans, undefined and ArrayBuffers cross; the host functions are
 * QuickJS functions the host made (`vm.newFunction`), handed to the prelude as arguments and
 * never put on the global object.
 */

/** The host functions the prelude is handed (sandbox.ts, `installPrelude`). */
export interface HostFunctions {
  /** Appends a log line: `message` is already cut to the log budget when `cut` is true. */
  log(level: 'info' | 'warn' | 'error' | 'debug', message: string, cut: boolean): void;
  /**
   * Makes one outbound call. `request` is the JSON of {@link FetchRequest}; the promise resolves
   * to the response's meta (the JSON of {@link FetchResponseMeta}) and body, or rejects with an
   * Error named OutboundRefused, OutboundFailed or TypeError that has a `code`.
   */
  fetch(request: string, body: string | ArrayBufferLike | undefined): Promise<{ meta: string; body: ArrayBuffer }>;
  /** Resolves after `ms` milliseconds (never past the run's deadline); rejects when too many timers wait. */
  sleep(ms: number): Promise<void>;
  /**
   * Parses `input` (against `base`) with the host's WHATWG URL parser, then sets the part `key`
   * to `value` when given; the JSON of {@link UrlParts}, or undefined when the URL is invalid.
   */
  url(input: string, base: string | undefined, key: string | undefined, value: string | undefined): string | undefined;
}

/** The numbers the prelude is handed with the host functions. */
export interface PreludeConfig {
  /** The run's log budget in bytes (`RunLimits.logBytes`): no line longer than this is copied out. */
  logCap: number;
}

/** The prelude's entry points: what the host calls, never reachable from the function's code. */
export interface EntryPoints {
  /** The entry module's handler: its exported `handler`, or its default export, when a function. */
  pickHandler(namespace: Record<string, unknown>): ((input: unknown) => unknown) | undefined;
  /** Calls the handler with the input parsed from its JSON; a promise of what it returns. */
  invoke(handler: (input: unknown) => unknown, inputJson: string): Promise<unknown>;
  /** The returned variables as JSON of at most `maxBytes` bytes of UTF-8; throws FunctionOutputInvalid otherwise. */
  serializeOutput(value: unknown, maxBytes: number): string;
  /** The JSON of `{ name, message }` of a thrown value, read inside the VM. */
  describeError(error: unknown): string;
}

/** What the prelude's fetch asks the host for. */
export interface FetchRequest {
  url: string;
  method: string;
  /** Lower-case names; repeated names joined with ", ". */
  headers: Record<string, string>;
  redirect: 'follow' | 'manual';
}

/** What the host answers a fetch with, besides the body. */
export interface FetchResponseMeta {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  url: string;
  redirected: boolean;
}

/** The parts of a URL the prelude's URL reads and (but for `origin`) sets. */
export type UrlPart = 'href' | 'origin' | 'protocol' | 'username' | 'password' | 'host' | 'hostname' | 'port' | 'pathname' | 'search' | 'hash';
/** A parsed URL, as `host.url` answers it. */
export type UrlParts = Record<UrlPart, string>;
