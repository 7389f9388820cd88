import type { SFNClient } from '@aws-sdk/client-sfn';
import { traced } from '../../observability/tracer.js';
import type { StateMachineInventory } from './state-machine-janitor.js';

/** The janitor's view of Step Functions: list a page, read a legacy tenant tag, look for running executions, delete. */
export function stepFunctionsInventory(): StateMachineInventory {
  let client: Promise<{ sfn: SFNClient; sdk: typeof import('@aws-sdk/client-sfn') }> | undefined;
  const sfn = () =>
    (client ??= import('@aws-sdk/client-sfn').then(async (sdk) => ({ sfn: await traced(new sdk.SFNClient({})), sdk })));
  return {
    async page(prefix, token) {
      const { sfn: c, sdk } = await sfn();
      // ListStateMachines takes no name filter: every page is read, this deployment's kept.
      const out = await c.send(new sdk.ListStateMachinesCommand({ maxResults: 1000, ...(token ? { nextToken: token } : {}) }));
      const machines = (out.stateMachines ?? []).flatMap((m) =>
        m.name?.startsWith(prefix) && m.stateMachineArn && m.creationDate ? [{ arn: m.stateMachineArn, name: m.name, createdAt: m.creationDate }] : [],
      );
      return { machines, ...(out.nextToken ? { next: out.nextToken } : {}) };
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
      try {
        await c.send(new sdk.DeleteStateMachineCommand({ stateMachineArn: arn }));
      } catch (err) {
        // A duplicate run, or an operator, deleted it first.
        if ((err as Error).name !== 'StateMachineDoesNotExist') throw err;
      }
    },
  };
}
