/**
 * X-Ray tracing of the AWS SDK clients (Powertools Tracer), where each client is made.
 *
 * On only when POWERTOOLS_TRACE_ENABLED=true, which the CDK stack sets on every function along
 * with active tracing; locally (and in tests) the clients are used as made and Tracer is never
 * loaded. Tracer (with the X-Ray SDK, about 125 KB) is not bundled: like the AWS SDK it is loaded
 * at the first client, from the layer the stack gives every function (lib/bundling.ts).
 */
import type { Tracer } from '@aws-lambda-powertools/tracer';

export function tracingEnabled(): boolean {
  return process.env.POWERTOOLS_TRACE_ENABLED === 'true';
}

let tracer: Promise<Tracer> | undefined;

/** `client`, its calls recorded as X-Ray subsegments when tracing is on. */
export async function traced<C>(client: C): Promise<C> {
  if (!tracingEnabled()) return client;
  tracer ??= import('@aws-lambda-powertools/tracer').then(({ Tracer }) => new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'arthr' }));
  return (await tracer).captureAWSv3Client(client);
}
