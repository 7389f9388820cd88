import { isoDurationSeconds } from '../../statemachines/bpmn/duration.js';
import { orchestrator } from '../process-manager/executions/orchestrator.js';
import { definitions } from '../process-manager/deps.js';
import type { ProcessInstanceRecord } from '../process-manager/instances/instances.js';
import { openSwitchLink } from './devices.js';
import { pickLanguage } from './messages/index.js';
import { pageHandler } from './page-handler.js';
import { journeyUrl } from './screen-context.js';
import { switchDeviceRoutes as routes } from './switch-routes.js';
import { own } from '../shared/own.js';

/** A step's timer in seconds, from the instance's definition version: the step's timeout when it has one. */
async function timerSeconds(record: ProcessInstanceRecord, activityId: string): Promise<number | undefined> {
  const version = await definitions.get(record.tenantId, record.processDefnId);
  if (!version) return undefined;
  const timer = own((await definitions.getContent(version)).definition.activities, activityId)?.timer;
  const duration = timer ? isoDurationSeconds(timer.duration) : undefined;
  return duration && 'seconds' in duration ? duration.seconds : undefined;
}

/** A Switch Device step's link opened (functions/journey/devices.ts): on to the journey page, as the device that now holds it. */
export const handler = pageHandler(routes.openSwitchLink, async ({ tenantId, path, query, headers, now }) => {
  const lang = pickLanguage(query.lang, headers['accept-language']);
  const { record, capability } = await openSwitchLink(
    { tenantId, processInstanceId: path.processInstanceId, secret: query.s },
    { resumer: await orchestrator(), timerSeconds },
    now,
  );
  return { status: 303, headers: { location: journeyUrl(record, capability, lang) } };
});
