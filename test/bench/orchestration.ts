/**
 * The journey side of the AWS-call section: the local engine as lib/local/runtime.ts wires it
 * (activities run by `runActivity` in process), behind counting wrappers of the orchestrator and
 * the event bus, the two seams that are Step Functions and EventBridge on AWS.
 */
import { EventEmitter } from 'node:events';
import { LocalStepFunctions, type ExecutionResult } from '../../lib/local/engine.js';
import { localOrchestrator } from '../../lib/local/orchestrator.js';
import type { Orchestrator } from '../../functions/process-manager/executions/orchestrator.js';
import type { EventBus } from '../../functions/events/bus.js';
import type { EventEnvelope } from '../../functions/shared/events.js';
import { localFunctions } from '../../lib/local/functions.js';
import { asAsyncWork, count } from './counters.js';

/** The engine, keeping each execution's `done` by execution name (the instance id). */
export class TrackingEngine extends LocalStepFunctions {
  readonly started = new Map<string, Promise<ExecutionResult>>();

  override startExecution(
    stateMachineArn: string,
    input: unknown = {},
    opts: { name?: string } = {},
  ): { executionArn: string; done: Promise<ExecutionResult> } {
    const out = super.startExecution(stateMachineArn, input, opts);
    this.started.set(opts.name ?? out.executionArn.split(':').pop()!, out.done);
    return out;
  }
}

export function benchEngine(): TrackingEngine {
  // The activity function, and the execution-end function the last state invokes.
  const invoke = localFunctions();
  return new TrackingEngine({
    // As lib/local/runtime.ts: the activity function the state machines invoke on AWS, in process.
    invoke: (arn, payload) =>
      asAsyncWork(async () => {
        count('lambda', 'Invoke');
        return invoke(arn, payload);
      }),
  });
}

/** The real local orchestrator, each call counted under the Step Functions API call it is on AWS. */
export function countingOrchestrator(engine: LocalStepFunctions): Orchestrator {
  const inner = localOrchestrator(engine);
  return {
    stateMachineName(asl) {
      return inner.stateMachineName(asl);
    },
    publishStateMachine(input) {
      count('stepFunctions', 'CreateStateMachine');
      return inner.publishStateMachine(input);
    },
    startExecution(input) {
      count('stepFunctions', 'StartExecution');
      return inner.startExecution(input);
    },
    sendTaskSuccess(taskToken, output) {
      count('stepFunctions', 'SendTaskSuccess');
      return inner.sendTaskSuccess(taskToken, output);
    },
    sendTaskFailure(taskToken, error, cause) {
      count('stepFunctions', 'SendTaskFailure');
      return inner.sendTaskFailure(taskToken, error, cause);
    },
    describeExecution(executionArn) {
      count('stepFunctions', 'DescribeExecution');
      return inner.describeExecution(executionArn);
    },
  };
}

/**
 * The bus the outbox relay puts events on, counting each PutEvents (one per call, up to 10
 * events), and letting the bench wait for an instance's event.
 */
export class CountingBus implements EventBus {
  readonly published: EventEnvelope[] = [];
  private readonly bus = new EventEmitter();

  async put(events: readonly EventEnvelope[]): Promise<undefined> {
    count('events', 'PutEvents');
    for (const event of events) {
      this.published.push(event);
      this.bus.emit('event', event);
    }
    return undefined;
  }

  /** Resolves with the first event (already relayed or to come) about the instance that `match`es. */
  waitFor(processInstanceId: string, match: (e: EventEnvelope) => boolean, timeoutMs: number): Promise<EventEnvelope | undefined> {
    const test = (e: EventEnvelope) => e.subject.id === processInstanceId && match(e);
    const seen = this.published.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const onEvent = (e: EventEnvelope) => {
        if (!test(e)) return;
        clearTimeout(timer);
        this.bus.off('event', onEvent);
        resolve(e);
      };
      const timer = setTimeout(() => {
        this.bus.off('event', onEvent);
        resolve(undefined);
      }, timeoutMs);
      this.bus.on('event', onEvent);
    });
  }
}
