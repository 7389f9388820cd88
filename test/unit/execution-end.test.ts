import { DescribeExecutionCommand, ExecutionDoesNotExist, SFNClient } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { executionArnOf } from '../../functions/process-manager/model.js';
import { stepFunctionsOrchestrator } from '../../functions/process-manager/executions/step-functions.js';
import { onExecutionStatusChange, recordOutcome, type ExecutionEndDeps } from '../../functions/process-manager/instances/status.js';
import { LocalStepFunctions } from '../../lib/local/engine.js';
import { statusChangeDetail, MAX_EVENT_BYTES } from '../../lib/local/orchestrator.js';
import { compileDefinition } from '../../statemachines/compile.js';
import { FakeInstances, openInstance, sessionOf } from '../support/instances-fake.js';

const sfn = mockClient(SFNClient);
const now = new Date('2026-06-01T13:00:00.000Z');
let instances: FakeInstances;
let deps: ExecutionEndDeps;

beforeEach(() => {
  sfn.reset();
  instances = new FakeInstances();
  // The AWS orchestrator: DescribeExecution through the SDK client, mocked.
  const orchestrator = stepFunctionsOrchestrator();
  deps = { instances, orchestrator: async () => orchestrator };
});

const record = openInstance('i1');
const executionArn = executionArnOf(record);

function describes(out: { status: string; input?: unknown; output?: unknown; error?: string }) {
  sfn.on(DescribeExecutionCommand, { executionArn }).resolves({
    executionArn,
    stateMachineArn: record.stateMachineArn,
    status: out.status as never,
    startDate: new Date(),
    ...(out.input !== undefined ? { input: JSON.stringify(out.input) } : {}),
    ...(out.output !== undefined ? { output: JSON.stringify(out.output) } : {}),
    ...(out.error !== undefined ? { error: out.error } : {}),
  });
}

describe('executionArnOf', () => {
  it('names the execution after the instance, in the state machine it was started on', () => {
    expect(executionArn).toBe('arn:aws:states:eu-west-1:123456789012:execution:arthr-d1:i1');
    expect(() => executionArnOf({ ...record, stateMachineArn: 'arthr-d1' })).toThrow(/not a state machine ARN/);
  });
});

describe('recordOutcome (the journey\'s last state)', () => {
  it('records the decision the session holds, once, and publishes the change once', async () => {
    instances.put(record);
    expect(await recordOutcome(deps, sessionOf(record, { _decision: 'FAIL' }), now)).toBe('COMPLETED_ENDED_ERROR');
    expect(instances.record('acme', 'i1')).toMatchObject({ status: 'COMPLETED_ENDED_ERROR' });
    // Off the reconciler's index: the end is recorded.
    expect(instances.record('acme', 'i1')!.reconcileAt).toBeUndefined();
    // A retried invocation (the state's Retry) changes nothing.
    await recordOutcome(deps, sessionOf(record, { _decision: 'PASS' }), now);
    expect(instances.record('acme', 'i1')!.status).toBe('COMPLETED_ENDED_ERROR');
    expect(instances.events.filter((e) => e.type === 'process-instance.status-changed').map((e) => e.data.status)).toEqual(['COMPLETED_ENDED_ERROR']);
  });

  it('records REVIEW, an error end event, and success without a decider', async () => {
    for (const [id, extra, status] of [
      ['r', { _decision: 'REVIEW' }, 'REVIEW'],
      ['e', { _end: { endEvent: 'End_declined', errorCode: 'declined' } }, 'COMPLETED_ENDED_ERROR'],
      ['s', {}, 'COMPLETED_ENDED_SUCCESS'],
    ] as const) {
      const r = openInstance(id);
      instances.put(r);
      expect(await recordOutcome(deps, sessionOf(r, extra), now)).toBe(status);
    }
  });

  it('does nothing for an instance that is gone, and refuses a session that names none', async () => {
    expect(await recordOutcome(deps, sessionOf(record, { _decision: 'PASS' }), now)).toBeUndefined();
    await expect(recordOutcome(deps, { vars: {} }, now)).rejects.toThrow(/names no process instance/);
  });
});

describe('onExecutionStatusChange (the EventBridge fallback)', () => {
  const event = (status: string, extra: { input?: string | null; output?: string | null } = {}) => ({
    executionArn,
    status,
    input: JSON.stringify(sessionOf(record)),
    ...extra,
  });

  it('records the decision of a succeeded execution whose event came without its output (too large to include)', async () => {
    instances.put(record);
    describes({ status: 'SUCCEEDED', input: sessionOf(record), output: sessionOf(record, { _decision: 'REVIEW' }) });
    // Read as "no output, so no decision" this was COMPLETED_ENDED_SUCCESS.
    expect(await onExecutionStatusChange(deps, event('SUCCEEDED', { output: null }), now)).toBe('REVIEW');
    expect(instances.record('acme', 'i1')!.status).toBe('REVIEW');
    expect(sfn.commandCalls(DescribeExecutionCommand)).toHaveLength(1);
  });

  it('finds the instance through DescribeExecution when the event has neither input nor output', async () => {
    instances.put(record);
    describes({ status: 'SUCCEEDED', input: sessionOf(record), output: sessionOf(record, { _decision: 'FAIL' }) });
    expect(await onExecutionStatusChange(deps, { executionArn, status: 'SUCCEEDED', input: null, output: null }, now)).toBe('COMPLETED_ENDED_ERROR');
    // One call serves both.
    expect(sfn.commandCalls(DescribeExecutionCommand)).toHaveLength(1);
  });

  it('takes the decision from the event when it is there, asking Step Functions nothing', async () => {
    instances.put(record);
    expect(await onExecutionStatusChange(deps, event('SUCCEEDED', { output: JSON.stringify(sessionOf(record, { _decision: 'FAIL' })) }), now)).toBe(
      'COMPLETED_ENDED_ERROR',
    );
    expect(sfn.commandCalls(DescribeExecutionCommand)).toHaveLength(0);
  });

  it('maps a failed execution by the error DescribeExecution names, since the event names none', async () => {
    instances.put(record);
    describes({ status: 'FAILED', input: sessionOf(record), error: 'States.Timeout' });
    expect(await onExecutionStatusChange(deps, event('FAILED'), now)).toBe('COMPLETED_TERMINATED');
    const other = openInstance('i2');
    instances.put(other);
    sfn.on(DescribeExecutionCommand, { executionArn: executionArnOf(other) }).resolves({ status: 'FAILED', error: 'ActivityUnavailable' } as never);
    expect(await onExecutionStatusChange(deps, { executionArn: executionArnOf(other), status: 'FAILED', input: JSON.stringify(sessionOf(other)) }, now)).toBe(
      'COMPLETED_PROCESS_ERROR',
    );
  });

  it('maps a stopped or timed-out execution to COMPLETED_TERMINATED from the status alone', async () => {
    for (const [id, status] of [['a', 'ABORTED'], ['t', 'TIMED_OUT']] as const) {
      const r = openInstance(id);
      instances.put(r);
      expect(await onExecutionStatusChange(deps, { executionArn: executionArnOf(r), status, input: JSON.stringify(sessionOf(r)) }, now)).toBe('COMPLETED_TERMINATED');
    }
    expect(sfn.commandCalls(DescribeExecutionCommand)).toHaveLength(0);
  });

  it('changes and asks nothing when the journey already recorded its outcome', async () => {
    instances.put({ ...record, status: 'REVIEW' });
    expect(await onExecutionStatusChange(deps, event('SUCCEEDED', { output: null }), now)).toBe('REVIEW');
    expect(sfn.commandCalls(DescribeExecutionCommand)).toHaveLength(0);
    expect(instances.events).toEqual([]);
  });

  it('fails (so the event is retried, then dead-lettered) rather than guess the outcome of a succeeded execution', async () => {
    instances.put(record);
    sfn.on(DescribeExecutionCommand).rejects(new ExecutionDoesNotExist({ message: 'gone', $metadata: {} }));
    await expect(onExecutionStatusChange(deps, event('SUCCEEDED', { output: null }), now)).rejects.toThrow(/No output/);
    expect(instances.record('acme', 'i1')!.status).toBe('ACTIVE');
  });

  it('ignores a status that is not an end', async () => {
    instances.put(record);
    expect(await onExecutionStatusChange(deps, event('RUNNING'), now)).toBeUndefined();
    expect(instances.record('acme', 'i1')!.status).toBe('ACTIVE');
  });
});

describe('stepFunctionsOrchestrator().describeExecution', () => {
  it('parses input and output, and answers undefined for an execution that does not exist', async () => {
    describes({ status: 'SUCCEEDED', input: { a: 1 }, output: { b: 2 } });
    const o = stepFunctionsOrchestrator();
    expect(await o.describeExecution(executionArn)).toEqual({ status: 'SUCCEEDED', input: { a: 1 }, output: { b: 2 } });
    sfn.on(DescribeExecutionCommand, { executionArn: `${executionArn}x` }).rejects(new ExecutionDoesNotExist({ message: 'no', $metadata: {} }));
    expect(await o.describeExecution(`${executionArn}x`)).toBeUndefined();
    sfn.on(DescribeExecutionCommand, { executionArn: `${executionArn}y` }).rejects(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }));
    await expect(o.describeExecution(`${executionArn}y`)).rejects.toThrow('slow down');
  });
});

describe('the local status-change event', () => {
  it('leaves the output out, then the input, when the event would be over 256 KB, as Step Functions does', () => {
    const result = {
      executionArn,
      status: 'SUCCEEDED' as const,
      output: { big: 'x'.repeat(200 * 1024) },
      transitions: 3,
      startDate: now,
      stopDate: now,
    };
    const small = statusChangeDetail({ ...result, output: { ok: true } }, record.stateMachineArn, 'i1', { a: 1 });
    expect(small).toMatchObject({ status: 'SUCCEEDED', input: '{"a":1}', output: '{"ok":true}' });
    const large = statusChangeDetail(result, record.stateMachineArn, 'i1', { a: 'y'.repeat(100 * 1024) });
    expect(large.output).toBeNull();
    expect(large.input).not.toBeNull();
    const huge = statusChangeDetail(result, record.stateMachineArn, 'i1', { a: 'y'.repeat(MAX_EVENT_BYTES) });
    expect(huge.input).toBeNull();
    expect(huge).not.toHaveProperty('error');
  });
});

describe('a journey whose execution-end event is lost', () => {
  it('has its final status all the same: its last state recorded it', async () => {
    const END = 'arn:aws:lambda:eu-west-1:123456789012:function:arthr-execution-end';
    const asl = compileDefinition(
      {
        name: 'decide',
        version: 1,
        startActivityId: 'decide',
        activities: { decide: { type: 'SIMPLE_DECIDER', rules: [{ when: { variable: 'vars.score', equals: 1 }, outcome: 'REVIEW' }], default: 'PASS' } },
      } as never,
      { activityFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:arthr-activities', executionEndFunctionArn: END },
    );
    // The engine with the execution-end function only; nobody listens for the execution's end.
    const engine = new LocalStepFunctions({
      invoke: async (arn, payload) => {
        if (arn !== END) throw new Error(`unexpected function ${arn}`);
        await recordOutcome(deps, (payload as { session: unknown }).session, new Date());
        return null;
      },
    });
    try {
      const { stateMachineArn } = engine.createStateMachine('arthr-d1', asl);
      instances.put(record);
      const done = await engine.startExecution(stateMachineArn, sessionOf(record, { vars: { score: 1 } }), { name: 'i1' }).done;
      expect(done.status).toBe('SUCCEEDED');
      expect(instances.record('acme', 'i1')!.status).toBe('REVIEW');
      expect(instances.events.map((e) => [e.type, e.data.status])).toEqual([
      ['process-instance.status-changed', instances.record('acme', 'i1')!.status],
      ['process-instance.completed', instances.record('acme', 'i1')!.status],
    ]);
    } finally {
      await engine.shutdown();
    }
  });

  it('succeeds with its session as output when the outcome cannot be recorded, for the event or the reconciler to record', async () => {
    const END = 'arn:aws:lambda:eu-west-1:123456789012:function:arthr-execution-end';
    const asl = compileDefinition(
      { name: 'one', version: 1, startActivityId: 'decide', activities: { decide: { type: 'SIMPLE_DECIDER', rules: [{ when: { variable: 'vars.x', isPresent: true }, outcome: 'PASS' }], default: 'FAIL' } } } as never,
      { activityFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:arthr-activities', executionEndFunctionArn: END },
    );
    // Retries shortened for the test (the compiled ones take about two minutes in all).
    const record = asl.States['Record outcome'] as { Retry: { IntervalSeconds: number; MaxAttempts: number; MaxDelaySeconds?: number }[] };
    record.Retry[0] = { ...record.Retry[0]!, IntervalSeconds: 0.01, MaxAttempts: 2, MaxDelaySeconds: 0.02 } as never;
    let attempts = 0;
    const engine = new LocalStepFunctions({
      invoke: async () => {
        attempts++;
        throw Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' });
      },
    });
    try {
      const { stateMachineArn } = engine.createStateMachine('arthr-d2', asl);
      const done = await engine.startExecution(stateMachineArn, { vars: {} }, { name: 'i9' }).done;
      expect(attempts).toBe(3);
      expect(done.status).toBe('SUCCEEDED');
      expect((done.output as { _decision: string })._decision).toBe('FAIL');
    } finally {
      await engine.shutdown();
    }
  });
});
