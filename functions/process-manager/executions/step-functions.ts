import type { SFNClient } from '@aws-sdk/client-sfn';
import { getConfig, type Config } from '../../config.js';
import { QuotaExceededError, ServiceUnavailableError } from '../../errors.js';
import { traced } from '../../observability/tracer.js';
import type { ExecutionStatus, Orchestrator } from '../model.js';
import { stateMachineName, type StateMachineSettings } from './state-machine-names.js';

/**
 * How every state machine is published (from the configuration the stack gives):
 * - logging of errors only (failed, timed-out and aborted executions, failed tasks) to the stack's
 *   log group, never with execution data: inputs and outputs hold what end users entered, which
 *   must not be copied into logs that outlive the instance's retention;
 * - X-Ray tracing when the deployment traces (`-c tracing=true`).
 */
export function stateMachineSettings(config: Pick<Config, 'STATE_MACHINE_LOG_GROUP_ARN' | 'STATE_MACHINE_TRACING'>): StateMachineSettings {
  return {
    ...(config.STATE_MACHINE_LOG_GROUP_ARN
      ? {
          loggingConfiguration: {
            level: 'ERROR',
            includeExecutionData: false,
            destinations: [{ cloudWatchLogsLogGroup: { logGroupArn: config.STATE_MACHINE_LOG_GROUP_ARN } }],
          },
        }
      : {}),
    tracingConfiguration: { enabled: config.STATE_MACHINE_TRACING === 'true' },
  };
}

/** Step Functions Standard workflows: one state machine per distinct compiled definition, shared by every tenant. */
export function stepFunctionsOrchestrator(): Orchestrator {
  let client: Promise<{ sfn: SFNClient; sdk: typeof import('@aws-sdk/client-sfn') }> | undefined;
  const sfn = () =>
    (client ??= import('@aws-sdk/client-sfn').then(async (sdk) => ({ sfn: await traced(new sdk.SFNClient({})), sdk })));

  return {
    stateMachineName(asl) {
      const config = getConfig();
      return stateMachineName(config.SERVICE_REGION, JSON.stringify(asl), stateMachineSettings(config));
    },
    async publishStateMachine({ asl }) {
      const config = getConfig();
      const roleArn = config.STATE_MACHINE_ROLE_ARN;
      if (!roleArn) throw new Error('STATE_MACHINE_ROLE_ARN is not configured');
      const { sfn: c, sdk } = await sfn();
      const definition = JSON.stringify(asl);
      const settings = stateMachineSettings(config);
      try {
        // Named by what it is: creating an identical state machine again answers with the
        // existing one, so a retried activation, or any version of any tenant compiling to the
        // same ASL, shares it. Not tagged: it belongs to no tenant and to no one definition (tags
        // of a later call would be ignored anyway); its reference item counts its users.
        const out = await c.send(
          new sdk.CreateStateMachineCommand({
            name: stateMachineName(config.SERVICE_REGION, definition, settings),
            type: 'STANDARD',
            roleArn,
            definition,
            ...(settings.loggingConfiguration ? { loggingConfiguration: settings.loggingConfiguration as never } : {}),
            ...(settings.tracingConfiguration ? { tracingConfiguration: settings.tracingConfiguration as never } : {}),
          }),
        );
        return out.stateMachineArn!;
      } catch (err) {
        // The account's quota of state machines (10,000 per region by default) is used up: not
        // the caller's fault, and over once unused state machines are deleted (the janitor) or
        // the quota is raised. The alarm on this stack's 5xx tells the operators.
        if ((err as Error).name === 'StateMachineLimitExceeded') {
          throw new QuotaExceededError(
            'The deployment has reached its quota of state machines, so the definition cannot be activated now. Retry later.',
            undefined,
            { cause: err },
          );
        }
        // The janitor deleted it (no active version used it) and Step Functions is still removing
        // it: a moment later the same call makes it anew.
        if ((err as Error).name === 'StateMachineDeleting') {
          throw new ServiceUnavailableError('The state machine of this journey is being deleted; send the same request again in a moment.', undefined, { cause: err });
        }
        throw err;
      }
    },
    async startExecution({ stateMachineArn, name, input }) {
      const { sfn: c, sdk } = await sfn();
      const out = await c.send(new sdk.StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }));
      return { executionArn: out.executionArn! };
    },
    async sendTaskSuccess(taskToken, output) {
      const { sfn: c, sdk } = await sfn();
      await c.send(new sdk.SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) }));
    },
    async sendTaskFailure(taskToken, error, cause) {
      const { sfn: c, sdk } = await sfn();
      // Step Functions caps the error at 256 characters and the cause at 32,768.
      await c.send(new sdk.SendTaskFailureCommand({ taskToken, error: error.slice(0, 256), cause: cause.slice(0, 32_768) }));
    },
    async describeExecution(executionArn) {
      const { sfn: c, sdk } = await sfn();
      try {
        const out = await c.send(new sdk.DescribeExecutionCommand({ executionArn }));
        // An API answer always includes input and output (their `included` is true for API calls).
        return {
          status: out.status as ExecutionStatus,
          ...(out.input !== undefined ? { input: JSON.parse(out.input) as unknown } : {}),
          ...(out.output !== undefined ? { output: JSON.parse(out.output) as unknown } : {}),
          ...(out.error !== undefined ? { error: out.error } : {}),
        };
      } catch (err) {
        if (err instanceof sdk.ExecutionDoesNotExist) return undefined;
        throw err;
      }
    },
  };
}
