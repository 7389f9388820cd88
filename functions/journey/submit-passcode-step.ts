import { ApiError } from '../errors.js';
import { apiHandler } from '../http/wrapper.js';
import { orchestrator } from '../process-manager/orchestrator.js';
import { identityStores } from '../identity-store/deps.js';
import { PasscodeReusedError, finishPasscodeLogin, stagePasscodeRegistration } from '../identity-store/passcodes.js';
import type { CheckRecord } from '../process-manager/model.js';
import { openWaitingStep } from './access.js';
import { journeyUrl, passcodeAuthenticationScreen, passcodeLoginRef, passcodeRegistration, passcodeRegistrationScreen, screenOf } from './pages.js';
import { pickLanguage } from './render.js';
import { StepNotWaitingError, completeUserStep } from './steps.js';
import { journeyRoutes as routes } from './journey-routes.js';

const html = (body: string) => ({ status: 400, raw: { contentType: 'text/html; charset=utf-8', body } });

/**
 * A passcode screen's submission. Registration: the verifier (and history proofs) is checked
 * and kept on the registration session, never in the journey's data, and the journey moves on
 * to Complete Passcode Registration. Authentication: the SRP proof is checked; proved or out of
 * attempts, the step ends with its check (PASS or FAIL); otherwise the screen comes back with a
 * fresh challenge.
 */
export const handler = apiHandler(routes.submitPasscodeStep, async ({ tenantId, path, query, body, now }) => {
  const lang = pickLanguage(query.lang);
  const { record, step } = await openWaitingStep(tenantId, { ...path, capability: query.c }, ['PASSCODE_AUTHENTICATION_FORM'], now);
  const ctx = screenOf(record, step, query.c, lang);
  const key = String(step.inputs['Passcode Registration Key'] ?? 'passcodeReg1');
  const formKey = String(step.inputs['Form data Key'] ?? 'passcodeRegForm1');
  const form = { formName: String(step.inputs['Data form name'] ?? ''), formVersion: Number(step.inputs['Data form version'] ?? 1) };
  const finish = async (values: Record<string, unknown>, extra: Record<string, unknown> = {}, check?: CheckRecord) => {
    await completeUserStep(
      {
        tenantId,
        processInstanceId: record.id,
        activityId: step.activityId,
        result: { vars: { [formKey]: values }, ...extra },
        values,
        dataKey: formKey,
        ...(check ? { check } : {}),
        record,
      },
      await orchestrator(),
      now,
    );
    return { status: 303, headers: { location: journeyUrl(record, query.c, lang) } };
  };

  if (ctx.component === 'passcode-registration') {
    const registration = passcodeRegistration(step);
    try {
      await stagePasscodeRegistration(identityStores, {
        tenantId,
        storeName: registration.storeName,
        sessionId: registration.algorithmInfo.parameters.i,
        verifier: String(body.verifier ?? ''),
        historyVerifiers: String(body.historyVerifiers ?? '')
          .split(',')
          .filter((v) => v.length > 0),
        now,
      });
    } catch (err) {
      if (err instanceof PasscodeReusedError) return html(passcodeRegistrationScreen(ctx, 'reused'));
      if (err instanceof ApiError && err.statusCode === 400) return html(passcodeRegistrationScreen(ctx, 'failed'));
      throw err;
    }
    return finish({ ...form, passcodeChosen: true, submittedAt: now.toISOString() });
  }

  if (ctx.component === 'passcode-authentication') {
    const login = passcodeLoginRef(step);
    const outcome = await finishPasscodeLogin(identityStores, {
      tenantId,
      storeName: login.storeName,
      sessionId: login.sessionId,
      A: String(body.A ?? ''),
      M1: String(body.M1 ?? ''),
      actor: `journey:${record.id}`,
      now,
    });
    if (outcome.result === 'RETRY') return html(passcodeAuthenticationScreen(ctx, outcome.session, true));
    const result = outcome.result;
    const check: CheckRecord = {
      checkId: key,
      activityId: step.activityId,
      checkType: 'PASSCODE_AUTHENTICATION',
      result,
      displayName: 'Passcode authentication',
      description:
        result === 'PASS'
          ? `The end user proved the passcode of policy ${outcome.policyName} (SRP-6a).`
          : `The end user did not prove the passcode of policy ${outcome.policyName} within the attempts allowed.`,
      checkedAt: now.toISOString(),
      reports: [],
    };
    return finish(
      { ...form, authenticated: result === 'PASS', attempts: outcome.attempts },
      { _checks: { [key]: { result, checkType: check.checkType, displayName: check.displayName } } },
      check,
    );
  }
  throw new StepNotWaitingError(`The passcode screen ${ctx.component} is not one this service has.`);
});
