import type { SFNClient } from '@aws-sdk/client-sfn';
import { traced } from '../../observability/tracer.js';
import type { StateMachineInventory } from './state-machine-janitor.js';

/** The janitor's view of Step Functions: list, read the tenant tag, look for running executions, delete. */
export function stepFunctionsInventory(): StateMachineInventory {
  let client: Promise<{ sfn: SFNClient; sdk: typeof import('@aws-sdk/client-sfn') }> | undefined;
  const sfn = () =>
    (client ??= import('@aws-sdk/client-sfn').then(async (sdk) => ({ sfn: await traced(new sdk.SFNClient({})), sdk })));
  return {
    async *list(prefix) {
      const { sfn: c, sdk } = await sfn();
      let nextToken: string | undefined;
      do {
        // ListStateMachines takes no name filter: every page is read, this deployment's kept.
        const out = await c.send(new sdk.ListStateMachinesCommand({ maxResults: 1000, ...(nextToken ? { nextToken } : {}) }));
        for (const m of out.stateMachines ?? []) {
          if (m.name?.startsWith(prefix) && m.stateMachineArn && m.creationDate) yield { arn: m.stateMachineArn, name: m.name, createdAt: m.creationDate };
        }
        nextToken = out.nextToken;
      } while (nextToken);
    },
    async tenantOf(arn) {
      const { sfn: c, sdk } = await sfn();
      const out = await c.send(new sdk.ListTagsForResourceCommand({ resourceArn: arn }));
      return out.tags?.find((t) => t.key === 'arthr:tenant')?.value;
    },
    async hasRunningExecutions(arn) {
      const { sfn: c, sdk } = await sfn();
      const out = await c.send(new sdk.ListExecutionsCommand({ stateMachineArn: arn, statusFilter: 'RUNNING', maxResults: 1 }));
      return (out.executions?.length ?? 0) > 0;
    },
    async delete(arn) {
      const { sfn: c, sdk } = await sfn();
      await c.send(new sdk.DeleteStateMachineCommand({ stateMachineArn: arn }));
    },
  };
}
