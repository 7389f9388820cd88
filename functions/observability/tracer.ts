/**
 * X-Ray tracing of the AWS SDK clients (Powertools Tracer), where each client is made.
 *
 * On only when POWERTOOLS_TRACE_ENABLED=true, which the CDK stack sets (with active tracing and
 * the Tracer layer) when it is deployed with tracing; otherwise, and locally, the clients are
 * used as made and Tracer is never loaded. Tracer (with the X-Ray SDK, about 125 KB) is not in
 * the bundles: like the AWS SDK it is loaded at the first client (lib/bundling.ts).
 */
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { log } from './logger.js';

export function tracingEnabled(): boolean {
  return process.env.POWERTOOLS_TRACE_ENABLED === 'true';
}

let tracer: Promise<Tracer | undefined> | undefined;

/** `client`, its calls recorded as X-Ray subsegments when tracing is on. Tracing never fails a request: without Tracer the client is used as is. */
export async function traced<C>(client: C): Promise<C> {
  if (!tracingEnabled()) return client;
  tracer ??= import('@aws-lambda-powertools/tracer').then(
    ({ Tracer }) => new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'arthr' }),
    (err: unknown) => {
      log().warn('tracing is on but Powertools Tracer could not be loaded; AWS calls go untraced', { error: err as Error });
      return undefined;
    },
  );
  const t = await tracer;
  return t ? t.captureAWSv3Client(client) : client;
}
