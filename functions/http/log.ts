/**
 * Structured JSON logs, one line per record on stdout (CloudWatch keeps each line as an event).
 * What goes in is chosen field by field by the callers: never headers, bodies, secrets or tokens,
 * so nothing sensitive can reach a log by accident.
 *
 * Hand-written rather than Powertools Logger: importing that costs about 19 ms per cold start,
 * half of the import budget of a handler, for features (sampling, context injection) unused here.
 */
type Level = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
const RANK: Record<Level | 'SILENT', number> = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40, SILENT: 99 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

function serialise(value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

function make(): Logger {
  const threshold = RANK[(process.env.LOG_LEVEL as Level | 'SILENT' | undefined) ?? 'INFO'] ?? RANK.INFO;
  const write = (level: Level) => (message: string, fields: Record<string, unknown> = {}) => {
    if (RANK[level] < threshold) return;
    const record: Record<string, unknown> = { level, message, timestamp: new Date().toISOString(), service: 'arthr' };
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) record[k] = serialise(v);
    process.stdout.write(`${JSON.stringify(record)}\n`);
  };
  return { debug: write('DEBUG'), info: write('INFO'), warn: write('WARN'), error: write('ERROR') };
}

let logger: Logger | undefined;

export function log(): Logger {
  logger ??= make();
  return logger;
}
