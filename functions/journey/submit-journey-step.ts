import { pageHandler } from './page-handler.js';
import { orchestrator } from '../process-manager/orchestrator.js';
import type { DataForm } from '../../statemachines/definition.js';
import { openWaitingStep } from './access.js';
import { validateFormSubmission } from './forms.js';
import { journeyUrl } from './pages.js';
import { pickLanguage, renderDataForm } from './render.js';
import { completeUserStep } from './steps.js';
import { journeyRoutes as routes } from './journey-routes.js';

/**
 * A data form submitted: validated on the server against the step's form. Refused, the page
 * comes back with the messages and what was typed; accepted, the values go to the session under
 * the step's `Form data Key` and the journey resumes.
 */
export const handler = pageHandler(routes.submitJourneyStep, async ({ tenantId, path, query, body, now }) => {
  const lang = pickLanguage(query.lang);
  const { record, step } = await openWaitingStep(tenantId, { ...path, capability: query.c }, ['DATA_FORM'], now);
  const form = step.inputs.Form as DataForm;
  const outcome = validateFormSubmission(form, body, lang, now);
  if (!outcome.ok) {
    const html = renderDataForm({ form, lang, action: journeyUrl(record, query.c, lang, step.activityId), values: outcome.values, errors: outcome.errors });
    return { status: 400, raw: { contentType: 'text/html; charset=utf-8', body: html } };
  }
  const key = String(step.inputs['Form data Key'] ?? step.activityId);
  await completeUserStep(
    { tenantId, processInstanceId: record.id, activityId: step.activityId, result: { vars: { [key]: outcome.values } }, values: outcome.values, dataKey: key, record },
    await orchestrator(),
    now,
  );
  return { status: 303, headers: { location: journeyUrl(record, query.c, lang) } };
});
