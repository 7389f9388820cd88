/**
 * `npm start`'s terminal log (LOG_FORMAT=text, its default): one short line per request, as the
 * local gateway answered it, and one line per other record, so the start banner stays in sight.
 * `LOG_FORMAT=json` keeps Powertools' JSON lines, as on AWS (the integration tests read those).
 *
 * Nothing here adds to what a record holds; the request line adds the path, never its query
 * (journey capabilities `c=`, switch `s=`, resume `r=` and process tokens travel there), and a
 * path segment long enough to be a secret (an API key or a token pasted in by mistake) is masked.
 */
import type { LogSink, RecordLevel } from '../../functions/observability/logger.js';

/** One request as the local gateway answered it. */
export interface RequestRecord {
  method: string;
  /** The request target as received (`/path?query`); only its path is shown. */
  url: string;
  status: number;
  /** The error body's `code`, for a refusal that has one. */
  errorCode?: string;
  durationMs: number;
}

/** Scope keys every record of a request carries: the request line already stands for them. */
const SCOPE_KEYS = new Set(['requestId', 'correlationId', 'operationId', 'cold_start']);

/** A path segment this long (a UUID is 36) is a key, a token or a capability, not an id. */
const SECRET_LIKE = /^[A-Za-z0-9._~%+=-]{40,}$/;

function clock(now: Date): string {
  return now.toTimeString().slice(0, 8);
}

/** The path of a request target, without its query, secret-like segments masked, at most 200 characters. */
export function shownPath(url: string): string {
  const path = new URL(url, 'http://localhost').pathname;
  const masked = path
    .split('/')
    .map((segment) => (SECRET_LIKE.test(segment) || segment.startsWith('ak_') ? '***' : segment))
    .join('/');
  return masked.length > 200 ? `${masked.slice(0, 199)}…` : masked;
}

/** `12:03:04 GET /api/arthr/apiKeys 200 12 ms`, the error code after the status of a refusal. */
export function requestLine(r: RequestRecord, now = new Date()): string {
  return `${clock(now)} ${r.method} ${shownPath(r.url)} ${r.status}${r.errorCode ? ` ${r.errorCode}` : ''} ${Math.round(r.durationMs)} ms`;
}

function value(v: unknown): string {
  if (v instanceof Error) return JSON.stringify(`${v.name}: ${v.message}`);
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  if (typeof v === 'object' && v !== null) {
    // Powertools-shaped errors (name, message, stack) as the logger hands them on.
    const e = v as { name?: unknown; message?: unknown };
    if (typeof e.name === 'string' && typeof e.message === 'string') return JSON.stringify(`${e.name}: ${e.message}`);
    return JSON.stringify(v);
  }
  return String(v);
}

/**
 * One record as a line: `12:03:04 WARN  message key=value ...`, without the request scope; an
 * event of the local bus as its type and subject; an ERROR's stack below it, indented.
 */
export function recordLine(level: RecordLevel, message: string, record: Record<string, unknown>, now = new Date()): string {
  const event = message === 'event' ? (record.event as { type?: string; subject?: { type?: string; id?: string }; tenantId?: string } | undefined) : undefined;
  if (event?.type) {
    return `${clock(now)} event ${event.type} ${event.subject?.type ?? ''} ${event.subject?.id ?? ''}${event.tenantId ? ` tenant=${event.tenantId}` : ''}`;
  }
  const fields = Object.entries(record)
    .filter(([k]) => !SCOPE_KEYS.has(k))
    .map(([k, v]) => `${k}=${value(v)}`);
  const line = `${clock(now)} ${level.padEnd(5)} ${message}${fields.length ? ` ${fields.join(' ')}` : ''}`;
  const stack = level === 'ERROR' ? (record.error as { stack?: unknown } | undefined)?.stack : undefined;
  return typeof stack === 'string' ? `${line}\n${stack.split('\n').slice(1).map((l) => `    ${l.trim()}`).join('\n')}` : line;
}

/**
 * The sink for the logger, and the request log for the gateway, writing to the terminal. The
 * handler's own access record ('request') and the gateway's refusal record are left out: the
 * gateway's request line says the same, with the path, for every request.
 */
export function textLog(out: { write(s: string): unknown } = process.stdout, err: { write(s: string): unknown } = process.stderr): {
  sink: LogSink;
  request: (r: RequestRecord) => void;
} {
  return {
    sink: (level, message, record) => {
      if (message === 'request' || message === 'gateway refusal') return;
      (level === 'ERROR' ? err : out).write(`${recordLine(level, message, record)}\n`);
    },
    request: (r) => out.write(`${requestLine(r)}\n`),
  };
}
