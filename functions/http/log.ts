import { Logger } from '@aws-lambda-powertools/logger';

let logger: Logger | undefined;

/**
 * Structured JSON logs. What goes in is chosen field by field in the wrapper: never headers,
 * bodies, secrets or tokens, so nothing sensitive can reach a log by accident.
 */
export function log(): Logger {
  logger ??= new Logger({
    serviceName: 'arthr',
    logLevel: (process.env.LOG_LEVEL as 'INFO' | undefined) ?? 'INFO',
  });
  return logger;
}
