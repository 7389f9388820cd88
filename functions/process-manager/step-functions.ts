import type { SFNClient } from '@aws-sdk/client-sfn';
import { getConfig } from '../config.js';
import { traced } from '../observability/tracer.js';
import { stateMachineName, type Orchestrator } from './model.js';

/** Step Functions Standard workflows: one state machine per definition version. */
export function stepFunctionsOrchestrator(): Orchestrator {
  let client: Promise<{ sfn: SFNClient; sdk: typeof import('@aws-sdk/client-sfn') }> | undefined;
  const sfn = () =>
    (client ??= import('@aws-sdk/client-sfn').then(async (sdk) => ({ sfn: await traced(new sdk.SFNClient({})), sdk })));

  return {
    async publishStateMachine({ tenantId, definitionId, name, version, asl }) {
      const roleArn = getConfig().STATE_MACHINE_ROLE_ARN;
      if (!roleArn) throw new Error('STATE_MACHINE_ROLE_ARN is not configured');
      const { sfn: c, sdk } = await sfn();
      // Creating an identical state machine again returns the existing one, so a retried
      // publication is safe.
      const out = await c.send(
        new sdk.CreateStateMachineCommand({
          name: stateMachineName(definitionId),
          type: 'STANDARD',
          roleArn,
          definition: JSON.stringify(asl),
          tags: [
            { key: 'arthr:tenant', value: tenantId },
            { key: 'arthr:definition', value: name.slice(0, 256) },
            { key: 'arthr:version', value: String(version) },
          ],
        }),
      );
      return out.stateMachineArn!;
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
  };
}
