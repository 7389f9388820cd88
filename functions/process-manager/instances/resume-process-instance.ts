import { actorOf, apiHandler } from '../../http/wrapper.js';
import { resumeJourney } from '../../journey/resume.js';
import { resumeDeps } from '../../journey/resume-step.js';
import { instanceView, redirectUrl } from './instances.js';
import { instanceRoutes as routes } from './instance-routes.js';

/** The resume API: what the resume URL does, for a relying party's backend, answered with the instance and a journey link. */
export const handler = apiHandler(routes.resumeProcessInstance, async ({ tenantId, path, auth, now, origin }) => {
  const { record, capability } = await resumeJourney(resumeDeps, { tenantId, processInstanceId: path.processInstanceId }, { actor: actorOf(auth) }, now);
  return { status: 200, body: { ...instanceView(record, now), redirectUrl: redirectUrl(origin, record, capability) } };
});
