import { pageHandler } from './page-handler.js';
import { pickLanguage } from './messages/index.js';
import { journeyRoutes as routes } from './journey-routes.js';
import { journeyUrl } from './screen-context.js';
import { resumeJourney, ResumeNotReadyError } from './resume.js';
import { resumeDeps } from './resume-step.js';
import { renderWaiting } from './screens/waiting.js';
import { relyingPartyOf } from './refusal-chrome.js';

/** The relying party's chrome for the page of a resume that proved itself. */
const chromeOfRefusal = (err: unknown) => relyingPartyOf(err);

/**
 * The resume URL, opened (by the end user's browser, or by the relying party's backend): the
 * journey goes on, once, and the browser to its page with a capability of its own.
 */
export const handler = pageHandler(routes.resumeJourney, async ({ tenantId, path, query, headers, now }) => {
  const lang = pickLanguage(query.lang, headers['accept-language']);
  try {
    const { record, capability } = await resumeJourney(resumeDeps, { tenantId, processInstanceId: path.processInstanceId }, { secret: query.r }, now);
    return { status: 303, headers: { location: journeyUrl(record, capability, lang) } };
  } catch (err) {
    // Not there yet (the steps after the pause still run): a page that opens the same link again in a moment.
    if (err instanceof ResumeNotReadyError) {
      return { status: 409, headers: err.headers, raw: { contentType: 'text/html; charset=utf-8', body: renderWaiting(lang, chromeOfRefusal(err)) } };
    }
    throw err;
  }
});
