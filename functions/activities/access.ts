import type { TableAction } from '../http/route.js';
import type { ActivityAccess } from './contract.js';
import { ACCESS } from './index.generated.js';

/**
 * Every user step records where the journey waits (an UpdateItem on the instance) and publishes
 * the step change, whatever the step.
 */
const USER_STEP_ACCESS = { table: ['UpdateItem'], events: 'publish' } as const satisfies ActivityAccess;

/**
 * The activity function's AWS access: the union of what the activity modules declare, with the
 * user steps' own. The CDK stack grants exactly this, and the integration suite checks it
 * against what the function used.
 */
export function activityFunctionAccess(): { table: TableAction[]; events: boolean; images: string[] } {
  const all: ActivityAccess[] = [USER_STEP_ACCESS, ...Object.values(ACCESS)];
  const table = new Set<TableAction>(all.flatMap((a) => a.table ?? []));
  const order: TableAction[] = ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'];
  return {
    table: order.filter((a) => table.has(a)),
    events: all.some((a) => a.events === 'publish'),
    images: [...new Set(all.flatMap((a) => a.images ?? []))],
  };
}
