/**
 * Structured JSON logs through Powertools Logger: one line per record on stdout (errors on
 * stderr), with the service name, the X-Ray trace id on AWS, and, for every record written while
 * a request is handled, that request's scope (request id, correlation id, tenant, operation, cold
 * start). What else goes in is chosen field by field by the callers: never headers, bodies,
 * secrets or tokens, so nothing sensitive can reach a log by accident.
 *
 * The request scope is kept in an AsyncLocalStorage rather than with `appendKeys()`: the local
 * runtime runs every handler in one process with requests in flight at once, and Logger's keys
 * are the process's, so one request's tenant would land on another's records.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** What every record written for one request carries; the HTTP chain fills it in as it learns it. */
export interface LogScope {
  requestId?: string;
  /** The caller's `x-correlation-id`, or the request id: follows one piece of work across functions. */
  correlationId?: string;
  tenantId?: string;
  operationId?: string;
  cold_start?: boolean;
}

const scopes = new AsyncLocalStorage<LogScope>();

/** Runs `fn` with `scope` on every record it writes (also from code it awaits). */
export function withLogScope<T>(scope: LogScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

type Level = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
const LEVELS: readonly Level[] = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'];

/** A record's level, as a sink gets it. */
export type RecordLevel = Exclude<Level, 'SILENT'>;

/** Where records go in place of Powertools' JSON lines; the record holds the scope and the fields. */
export type LogSink = (level: RecordLevel, message: string, record: Record<string, unknown>) => void;

let sink: LogSink | undefined;

/**
 * Sends every record (at or above LOG_LEVEL) to `to` instead of Powertools' JSON lines. Only the
 * local runtime's entry point installs one (bin/local.ts: a terminal's short lines); a Lambda
 * never does, so logs on AWS stay JSON.
 */
export function installLogSink(to: LogSink | undefined): void {
  sink = to;
  logger = undefined;
}

/** LOG_LEVEL as the logger reads it (INFO when unset or unknown). */
export function logLevel(): Level {
  const wanted = (process.env.LOG_LEVEL ?? 'INFO').toUpperCase() as Level;
  return LEVELS.includes(wanted) ? wanted : 'INFO';
}

function make(): Logger {
  const level = logLevel();
  const to = sink;
  const logger = to
    ? undefined
    : new PowertoolsLogger({
        serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'arthr',
        logLevel: level,
      });
  const write = (method: 'debug' | 'info' | 'warn' | 'error') => (message: string, fields: Record<string, unknown> = {}) => {
    const record: Record<string, unknown> = {};
    for (const [k, v] of Object.entries({ ...scopes.getStore(), ...fields })) if (v !== undefined) record[k] = v;
    if (logger) logger[method](message, record);
    else if (LEVELS.indexOf(method.toUpperCase() as Level) >= LEVELS.indexOf(level)) to!(method.toUpperCase() as RecordLevel, message, record);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

let logger: Logger | undefined;

/** The process's logger (made at first use, so LOG_LEVEL set by a test before it counts). */
export function log(): Logger {
  logger ??= make();
  return logger;
}
