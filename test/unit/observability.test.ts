import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { countInstanceCreated, countJourneyCompleted, countTokenIssued, metricsEnabled } from '../../functions/observability/metrics.js';
import { installLogSink, log, withLogScope } from '../../functions/observability/logger.js';
import { traced } from '../../functions/observability/tracer.js';

// The logger reads its level when first used, in this file's own module graph.
beforeAll(() => {
  vi.stubEnv('LOG_LEVEL', 'INFO');
});
afterAll(() => {
  vi.unstubAllEnvs();
});

let lines: Record<string, any>[] = [];
beforeEach(() => {
  lines = [];
  const capture = (chunk: unknown) => {
    for (const line of String(chunk).split('\n')) if (line.startsWith('{')) lines.push(JSON.parse(line));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
});
afterEach(() => {
  vi.restoreAllMocks();
  delete process.env.POWERTOOLS_METRICS_DISABLED;
  delete process.env.AWS_LAMBDA_FUNCTION_NAME;
});

describe('metrics', () => {
  it('are off outside Lambda unless asked for, and on in Lambda unless turned off', () => {
    expect(metricsEnabled()).toBe(false);
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'f';
    expect(metricsEnabled()).toBe(true);
    process.env.POWERTOOLS_METRICS_DISABLED = 'true';
    expect(metricsEnabled()).toBe(false);
  });

  it('write nothing when off', async () => {
    await countTokenIssued('acme');
    expect(lines).toEqual([]);
  });

  it('write one EMF line per count, split by its dimension, the tenant as metadata', async () => {
    process.env.POWERTOOLS_METRICS_DISABLED = 'false';
    await countJourneyCompleted('acme', 'REVIEW');
    const emf = lines.find((l) => l._aws)!;
    expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'arthr', Metrics: [{ Name: 'JourneysCompleted', Unit: 'Count' }] });
    expect(emf._aws.CloudWatchMetrics[0].Dimensions[0]).toEqual(expect.arrayContaining(['status']));
    expect(emf).toMatchObject({ JourneysCompleted: 1, status: 'REVIEW', tenantId: 'acme' });
  });
});

describe('metrics of test mode', () => {
  it('count no test-mode instance, and name the instance of every other count', async () => {
    process.env.POWERTOOLS_METRICS_DISABLED = 'false';
    await countInstanceCreated('acme', { forTest: true, processInstanceId: 'test-1' });
    await countJourneyCompleted('acme', 'COMPLETED_ENDED_SUCCESS', { forTest: true, processInstanceId: 'test-1' });
    expect(lines.filter((l) => l._aws)).toEqual([]);
    await countInstanceCreated('acme', { processInstanceId: 'live-1' });
    expect(lines.find((l) => l._aws)).toMatchObject({ InstancesCreated: 1, tenantId: 'acme', processInstanceId: 'live-1' });
  });
});

describe('the logger', () => {
  it('puts the request scope on every record written within it, and only there, even with requests interleaved', async () => {
    const slow = withLogScope({ requestId: 'a', tenantId: 'acme' }, async () => {
      await new Promise((r) => setTimeout(r, 20));
      log().error('from a');
    });
    const fast = withLogScope({ requestId: 'b', tenantId: 'other' }, async () => log().error('from b'));
    await Promise.all([slow, fast]);
    log().error('outside');
    expect(lines.find((l) => l.message === 'from a')).toMatchObject({ requestId: 'a', tenantId: 'acme', service: 'arthr', level: 'ERROR' });
    expect(lines.find((l) => l.message === 'from b')).toMatchObject({ requestId: 'b', tenantId: 'other' });
    expect(lines.find((l) => l.message === 'outside')!.requestId).toBeUndefined();
  });

  it('hands records at or above LOG_LEVEL, with their scope, to an installed sink instead of JSON lines', () => {
    const got: [string, string, Record<string, unknown>][] = [];
    vi.stubEnv('LOG_LEVEL', 'WARN');
    installLogSink((level, message, record) => got.push([level, message, record]));
    try {
      withLogScope({ requestId: 'a', tenantId: 'acme' }, () => {
        log().info('quiet');
        log().warn('loud', { n: 1 });
      });
    } finally {
      installLogSink(undefined);
      vi.stubEnv('LOG_LEVEL', 'INFO');
    }
    expect(got).toEqual([['WARN', 'loud', { requestId: 'a', tenantId: 'acme', n: 1 }]]);
    expect(lines).toEqual([]);
    log().info('json again');
    expect(lines.find((l) => l.message === 'json again')).toMatchObject({ level: 'INFO' });
  });
});

describe('tracing', () => {
  it('leaves a client as made when it is off (locally, and by default)', async () => {
    const client = { send: () => 1 };
    expect(await traced(client)).toBe(client);
  });
});
