import { pauseInstance } from '../process-manager/instances/pause.js';
import { activityError, TransientActivityError, withVar, type ActivityAccess, type ServiceRun } from './contract.js';
import { keepStepData } from './service-user-data.js';
import { spec } from './specs/pause-instance.js';

/**
 * Reads the instance, then one transaction: its status PAUSED with the pause (the secret's hash)
 * and the status's views and event; and the step's user data.
 */
export const aws = { table: ['GetItem', 'UpdateItem', 'PutItem'] } as const satisfies ActivityAccess;

const WHY: Record<'gone' | 'ended' | 'noOrigin', string> = {
  gone: 'the instance is past its retention',
  ended: 'the instance has ended',
  noOrigin: 'the instance was created before instances kept the host their journey link is on, so no resume URL can be made',
};

/**
 * Pauses the instance (PAUSED) with a fresh resume secret, and sets the resume URL as `resumeUrl`,
 * the variable the family's output parameter copies (`_resumeUrl` = `${resumeUrl}`), and as
 * `_resumeUrl` itself, so a definition without that mapping has it too. The URL is also kept in
 * the step's user data (`resumeUrl`), where the relying party reads it with the user data API.
 *
 * A retried run pauses again with a new secret: the URL the session and the user data end up with
 * is always the one whose hash the instance keeps (the last write of each wins, in this order).
 */
export const run: ServiceRun<typeof spec> = async (ctx) => {
  const { session, activityId, tenantId, now, deps } = ctx;
  const outcome = await pauseInstance(deps, { tenantId, processInstanceId: session.instance.processInstanceId, activityId }, now);
  if ('refused' in outcome) throw activityError(spec, 'InstanceNotPausable', `${activityId} cannot pause the journey: ${WHY[outcome.refused]}.`);
  // Its status kept changing under the step (a page visit, a racing resume): the Task retries it.
  if ('retry' in outcome) throw new TransientActivityError(`${activityId}: the instance's status kept changing; pause again.`);
  const url = outcome.paused.url;
  await keepStepData(ctx, { activityType: spec.type, dataKey: 'resumeUrl', values: { resumeUrl: url } });
  return withVar(withVar(session, 'resumeUrl', url), '_resumeUrl', url);
};
