import { clearSession, loadSession } from './session.js';

/** An API refusal, with the service's stable error code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Raised (and announced to the app) when the token is gone or the API no longer takes it. */
export class SessionEndedError extends Error {}

export const SESSION_ENDED = 'console:session-ended';

async function refusal(res: Response): Promise<ApiError> {
  let code = `HTTP_${res.status}`;
  let message = res.statusText || `The service answered ${res.status}.`;
  try {
    const body = (await res.json()) as { code?: string; message?: string };
    if (body.code) code = body.code;
    if (body.message) message = body.message;
  } catch {
    // Not a JSON error body: the status says it.
  }
  return new ApiError(res.status, code, message);
}

export interface CallOptions {
  body?: unknown;
  query?: Record<string, string | number | string[] | undefined>;
  /** `text`: the body as text (the BPMN XML); default JSON. */
  as?: 'json' | 'text';
}

/**
 * One call of the public API, on this page's origin (the tenant's host), with the session's
 * token. A 401 ends the session: the token expired or was refused, and the app asks to sign in.
 */
export async function api<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
  const session = loadSession();
  if (!session) {
    document.dispatchEvent(new CustomEvent(SESSION_ENDED, { detail: 'expired' }));
    throw new SessionEndedError('Your session has ended.');
  }
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(opts.query ?? {})) {
    if (v === undefined || v === '') continue;
    for (const one of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(one));
  }
  const headers: Record<string, string> = { authorization: `Bearer ${session.token}` };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), cache: 'no-store', credentials: 'omit' });
  if (res.status === 401) {
    clearSession();
    document.dispatchEvent(new CustomEvent(SESSION_ENDED, { detail: 'expired' }));
    throw new SessionEndedError('Your session has ended.');
  }
  if (!res.ok) throw await refusal(res);
  if (res.status === 204) return undefined as T;
  return (opts.as === 'text' ? await res.text() : await res.json()) as T;
}

/**
 * The sign-in exchange: the API key for a bearer token (the spec's token issue). The key goes
 * in this one request's header and is kept nowhere.
 */
export async function issueToken(apiKey: string): Promise<string> {
  const res = await fetch('/api/arthr/apiKeys/issue', {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: '{}',
    cache: 'no-store',
    credentials: 'omit',
  });
  if (!res.ok) throw await refusal(res);
  return ((await res.json()) as { token: string }).token;
}

/** A message for an error a screen caught, for the person using it. */
export function explain(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 403) return `This key is not allowed to do that (${err.code}): ${err.message}`;
    return `${err.message} (${err.code})`;
  }
  if (err instanceof SessionEndedError) return err.message;
  if (err instanceof TypeError) return 'The service could not be reached. Check the connection and try again.';
  return err instanceof Error ? err.message : String(err);
}
