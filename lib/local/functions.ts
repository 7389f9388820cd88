import { runActivity } from '../../functions/activities/lambda.js';
import { getConfig } from '../../functions/config.js';
import { handler as executionEnd } from '../../functions/process-manager/executions/on-execution-end.js';
import { asOperation } from './aws-usage.js';
import type { ActivityInvoker } from './engine.js';

/**
 * The Lambdas the compiled state machines invoke, called in process: the execution-end function
 * (the `Record outcome` state, by EXECUTION_END_FUNCTION_ARN) and, for every other task, the
 * activity function. Each is recorded as the function it is on AWS (the activity function per
 * activity type), so the least-privilege check holds each to its own grants.
 */
export function localFunctions(): ActivityInvoker {
  const { EXECUTION_END_FUNCTION_ARN } = getConfig();
  return async (functionArn, payload) => {
    if (functionArn === EXECUTION_END_FUNCTION_ARN) {
      await asOperation('onExecutionEnd', () => executionEnd(payload as never));
      // A Lambda handler that returns nothing answers null.
      return null;
    }
    return asOperation(`activities:${String((payload as { activityType?: unknown }).activityType)}`, () =>
      runActivity(payload as Record<string, unknown>, new Date()),
    );
  };
}
