/**
 * Which AWS errors say "not now" rather than "no": throttles, timeouts, a service's 5xx, a dropped
 * connection. The lists are the AWS SDK's own (`@smithy/service-error-classification`, which
 * its retry strategy uses), restated here so the service decides the same way after the SDK has
 * used up its own retries, without a direct dependency on an SDK internal.
 */

const THROTTLING_NAMES = new Set([
  'BandwidthLimitExceeded',
  'EC2ThrottledException',
  'LimitExceededException',
  'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TransactionInProgressException',
]);
const TIMEOUT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);
const TRANSIENT_STATUS = new Set([500, 502, 503, 504]);
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);

interface SdkErrorShape {
  name?: unknown;
  code?: unknown;
  $retryable?: { throttling?: boolean };
  $metadata?: { httpStatusCode?: number };
  CancellationReasons?: { Code?: string }[];
}

function shape(err: unknown): SdkErrorShape | undefined {
  return typeof err === 'object' && err !== null ? (err as SdkErrorShape) : undefined;
}

/**
 * The service refused the request for its rate (nothing was done): 429, a throttling error name,
 * or a DynamoDB transaction cancelled for an item's throughput (reason `ThrottlingError`), which
 * writes none of its items.
 */
export function isThrottlingError(err: unknown): boolean {
  const e = shape(err);
  if (!e) return false;
  if (e.name === 'TransactionCanceledException') {
    const codes = (e.CancellationReasons ?? []).map((r) => r.Code);
    return codes.includes('ThrottlingError') && !codes.includes('ConditionalCheckFailed');
  }
  return e.$metadata?.httpStatusCode === 429 || THROTTLING_NAMES.has(String(e.name)) || e.$retryable?.throttling === true;
}

/**
 * Worth trying again later: a throttle, a timeout, a 5xx, a dropped connection, or a DynamoDB
 * transaction cancelled only because another one held an item. Whether the request took effect
 * is unknown for all but throttles.
 */
export function isTransientError(err: unknown): boolean {
  const e = shape(err);
  if (!e) return false;
  if (isThrottlingError(err) || TIMEOUT_NAMES.has(String(e.name)) || NETWORK_CODES.has(String(e.code ?? ''))) return true;
  if (TRANSIENT_STATUS.has(e.$metadata?.httpStatusCode ?? 0)) return true;
  if (e.name === 'TransactionCanceledException') {
    const codes = (e.CancellationReasons ?? []).map((r) => r.Code);
    return codes.includes('TransactionConflict') && !codes.includes('ConditionalCheckFailed');
  }
  return false;
}
