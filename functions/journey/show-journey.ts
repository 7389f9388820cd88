import { pageHandler } from './page-handler.js';
import { changeStatus } from '../process-manager/instances/status.js';
import { instances } from '../process-manager/deps.js';
import { openJourney } from './access.js';
import { otherDevicePage } from './devices.js';
import { journeyPage, journeyScreens } from './pages.js';
import { SCREENS } from '../activities/index.generated.js';
import { pickLanguage } from './messages/index.js';
import { identityStores } from '../identity-store/deps.js';
import { journeyRoutes as routes } from './journey-routes.js';
import { withTestModeBanner } from './layout.js';
import { recordedFrame } from '../activities/custom-page.js';
import { PAGE_CSP } from '../http/wrapper.js';
import { isFinal } from '../process-manager/instances/status.js';
import { faceLivenessAvailable, faceLivenessCsp } from '../faces/liveness-service.js';

/** The activities' screens and the stores they name, registered here where the page's entry point is assembled. */
const screens = journeyScreens(SCREENS, { identityStores });

export const handler = pageHandler(routes.showJourney, async ({ tenantId, path, query, headers, now, origin }) => {
  const lang = pickLanguage(query.lang, headers['accept-language']);
  const record = await openJourney(tenantId, path.processInstanceId, query.c, now);
  // The first visit: the end user has the journey in hand.
  if (record.status === 'PENDING' && (await changeStatus({ instances }, record, 'ACTIVE', now))) record.status = 'ACTIVE';
  // A device the journey moved away from (Switch Device) follows it rather than showing its steps.
  const body = (await otherDevicePage(record, query.c, lang, now)) ?? (await journeyPage(screens, record, query.c, lang, origin));
  // A custom page step's page frames the relying party's page: from its origin, and no other.
  const frame = !isFinal(record.status) && record.currentStep ? recordedFrame(record.currentStep) : undefined;
  const step = !isFinal(record.status) ? record.currentStep : undefined;
  // A Face Liveness capture streams its video to Rekognition, from Amazon's component (functions/faces/liveness-service.ts).
  const liveness = step?.activityType === 'CAPTURE_FACE_IMAGE' && step.inputs['Liveness Check'] === 'REKOGNITION' && faceLivenessAvailable();
  const base = liveness ? faceLivenessCsp(PAGE_CSP, process.env.AWS_REGION ?? '') : PAGE_CSP;
  const csp = frame ? { 'content-security-policy': `${base}; frame-src ${frame.origin}` } : liveness ? { 'content-security-policy': base } : undefined;
  return { status: 200, ...(csp ? { headers: csp } : {}), raw: { contentType: 'text/html; charset=utf-8', body: record.forTest ? withTestModeBanner(body, lang) : body } };
});
