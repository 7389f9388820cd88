/**
 * Business metrics as CloudWatch Embedded Metric Format lines (Powertools Metrics): what
 * operators watch, counted where it happens. Each count is written at once as its own EMF line
 * (`singleMetric()`), so nothing waits for an end-of-invocation flush and, in the local runtime,
 * requests in flight at once never share a buffer.
 *
 * On AWS (AWS_LAMBDA_FUNCTION_NAME set) metrics are on unless POWERTOOLS_METRICS_DISABLED=true;
 * elsewhere they are off unless POWERTOOLS_METRICS_DISABLED=false, which prints the EMF lines.
 * Powertools Metrics is loaded at the first count, so a handler's cold import does not pay for
 * it, and a process with metrics off never loads it.
 */
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { log } from './logger.js';

/** Each metric with the dimensions it is split by. Tenants are metadata (in the EMF line, searchable), not a dimension: one per tenant would multiply the metrics billed. */
export interface MetricDimensions {
  TokensIssued: Record<string, never>;
  InstancesCreated: Record<string, never>;
  /** A journey's end, by the instance's final status (COMPLETED_ENDED_SUCCESS, REVIEW, ...). */
  JourneysCompleted: { status: string };
  /** An activity run that failed, by activity type. */
  ActivityErrors: { activityType: string };
  /**
   * An execution's end that neither the journey's last state nor the status-change event had
   * recorded, found and recorded by the reconciler, by the status it recorded. Above zero means
   * a record or an event was lost: worth an alarm.
   */
  ExecutionEndsReconciled: { status: string };
  /** A cloud function run whose step asked for metrics (`Metrics`), by outcome (SUCCEEDED, FAILED). */
  CloudFunctionRuns: { outcome: string };
  /**
   * A Python function's own counter (`results["metrics"]["counters"]`), by its name and outcome
   * (approve, decline, review, na, failed, passed, not_found): only names its step's Metrics list
   * allows, so the tenant's definitions bound how many there are.
   */
  CloudFunctionCounters: { counter: string; outcome: string };
}
export type MetricName = keyof MetricDimensions;

export function metricsEnabled(): boolean {
  const flag = process.env.POWERTOOLS_METRICS_DISABLED;
  if (flag !== undefined) return flag !== 'true';
  return !!process.env.AWS_LAMBDA_FUNCTION_NAME;
}

let metrics: Promise<{ metrics: Metrics; unit: typeof import('@aws-lambda-powertools/metrics').MetricUnit }> | undefined;

function load() {
  metrics ??= import('@aws-lambda-powertools/metrics').then(({ Metrics, MetricUnit }) => ({
    metrics: new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'arthr', serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'arthr' }),
    unit: MetricUnit,
  }));
  return metrics;
}

/**
 * What a count is about: a test-mode instance (docs/sandbox.md) is counted nowhere, so a
 * relying party's tests never show in operators' figures or in what is billed from them.
 */
export interface Counted {
  forTest?: boolean | undefined;
  /** Metadata on the EMF line (not a dimension): which instance the count is about. */
  processInstanceId?: string | undefined;
}

/**
 * Counts one occurrence of `name`. Never throws: a metric that cannot be written is logged and
 * the work it counts goes on.
 */
export async function count<N extends MetricName>(name: N, dimensions: MetricDimensions[N], tenantId?: string, about: Counted = {}): Promise<void> {
  if (about.forTest || !metricsEnabled()) return;
  try {
    const { metrics: base, unit } = await load();
    const single = base.singleMetric();
    for (const [k, v] of Object.entries(dimensions)) single.addDimension(k, v);
    if (tenantId) single.addMetadata('tenantId', tenantId);
    if (about.processInstanceId) single.addMetadata('processInstanceId', about.processInstanceId);
    single.addMetric(name, unit.Count, 1);
  } catch (err) {
    log().warn('metric not written', { metric: name, error: err as Error });
  }
}

/** The typed counters the service uses. */
export const countTokenIssued = (tenantId: string) => count('TokensIssued', {}, tenantId);
export const countInstanceCreated = (tenantId: string, about?: Counted) => count('InstancesCreated', {}, tenantId, about);
export const countJourneyCompleted = (tenantId: string, status: string, about?: Counted) => count('JourneysCompleted', { status }, tenantId, about);
/** The activity function counts every step that fails (functions/activities/run.ts). */
export const countActivityError = (tenantId: string, activityType: string, about?: Counted) => count('ActivityErrors', { activityType }, tenantId, about);
/** The reconciler counts each execution end it had to record (functions/process-manager/executions/reconcile.ts). */
export const countExecutionEndReconciled = (tenantId: string, status: string) => count('ExecutionEndsReconciled', { status }, tenantId);
/** A cloud function step with `Metrics` on counts its run (functions/activities/execute-cloud-function-v2.ts). */
export const countCloudFunctionRun = (tenantId: string, outcome: 'SUCCEEDED' | 'FAILED', about?: Counted) => count('CloudFunctionRuns', { outcome }, tenantId, about);
export const countCloudFunctionCounter = (tenantId: string, counter: string, outcome: string, about?: Counted) =>
  count('CloudFunctionCounters', { counter, outcome }, tenantId, about);
