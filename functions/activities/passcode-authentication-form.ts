import { ApiError } from '../errors.js';
import { PasscodeReusedError, finishPasscodeLogin, loginChallenge, stagePasscodeRegistration, type PasscodeLoginSession } from '../identity-store/passcodes/passcodes.js';
import type { PasscodeRequirements } from '../identity-store/passcodes/passcode-rules.js';
import { renderPasscodeAuthentication } from '../journey/screens/passcode-authentication.js';
import { renderPasscodeRegistration } from '../journey/screens/passcode-registration.js';
import { journeyUrl } from '../journey/screen-context.js';
import { StepNotWaitingError } from '../journey/steps.js';
import type { CheckRecord } from '../process-manager/model.js';
import { validateFormSubmission, type FormOutcome } from '../journey/forms.js';
import { renderFormFields } from '../journey/screens/data-form.js';
import type { ScreenFrame } from '../journey/screens/frame.js';
import type { ActivityAccess, Screens, StepBegin, StepCompletion, StepView, Submission } from './contract.js';
import { formDefaults, recordedForm, stepForm } from './data-form.js';
import { answerKeys } from '../../statemachines/forms.js';
import { key, s } from './spec.js';
import { own } from '../shared/own.js';
import { spec } from './specs/passcode-authentication-form.js';

/** Reads the data form it names when the step starts. */
export const aws = { table: ['GetItem'] } as const satisfies ActivityAccess;

export const begin: StepBegin<typeof spec> = async ({ inputs, tenantId, deps }) => ({ ...inputs, Form: await stepForm(deps, tenantId, inputs) });

type View = StepView<typeof spec, 'identityStores'>;

/** The step's data form around the passcode entry; after a refused submission, with its messages and what was typed. */
function frameOf(view: View, refused?: Extract<FormOutcome, { ok: false }>): ScreenFrame {
  const form = recordedForm(view);
  const values = refused?.values ?? formDefaults(form, view.step.state, view.lang);
  const { html, summary, texts, scripts } = renderFormFields({ form, lang: view.lang, values, ...(refused ? { errors: refused.errors } : {}) });
  return {
    ...(form.title ? { title: texts.text(form.title) } : {}),
    ...(form.subtitle ? { subtitle: texts.text(form.subtitle) } : {}),
    ...(texts.lang !== view.lang ? { lang: texts.lang } : {}),
    fields: html,
    errors: summary,
    ...(scripts.length ? { scripts } : {}),
  };
}

/** The registration a Start Passcode Registration kept under the step's Passcode Registration Key. */
function registrationOf(view: View) {
  const key = view.inputs['Passcode Registration Key'];
  const registration = (view.step.state.vars as Record<string, unknown> | undefined)?.[key] as
    | { storeName: string; passcodeRequirements: PasscodeRequirements; algorithmInfo: { parameters: Record<string, unknown> & { i: string } } }
    | undefined;
  if (!registration?.algorithmInfo?.parameters?.i) {
    throw new StepNotWaitingError(`No passcode registration is kept under ${key}: the journey needs a Start Passcode Registration before this form.`);
  }
  return registration;
}

function registrationPage(view: View, error?: 'reused' | 'failed', refused?: Extract<FormOutcome, { ok: false }>): string {
  const registration = registrationOf(view);
  return renderPasscodeRegistration({
    lang: view.lang,
    action: journeyUrl(view.record, view.capability, view.lang, view.step.activityId, 'passcode'),
    srp: registration.algorithmInfo.parameters,
    requirements: registration.passcodeRequirements,
    ...(error ? { error } : {}),
    frame: frameOf(view, refused),
    chrome: view.chrome,
  });
}

/** Which login a Start Passcode Authentication started, as the journey's data keeps it. */
function loginOf(view: View): { sessionId: string; storeName: string } {
  const key = view.inputs['Passcode Registration Key'];
  const kept = (view.step.state.vars as Record<string, { authentication?: { sessionId: string; storeName: string } }> | undefined)?.[key]?.authentication;
  if (!kept) throw new StepNotWaitingError(`No passcode authentication is kept under ${key}: the journey needs a Start Passcode Authentication before this form.`);
  return kept;
}

/** The login as it is now (its B changes after a wrong passcode). */
async function currentLogin(view: View): Promise<PasscodeLoginSession> {
  const ref = loginOf(view);
  const session = await view.deps.identityStores.passcodes.getLogin(view.record.tenantId, ref.storeName, ref.sessionId, new Date());
  if (!session) throw new StepNotWaitingError('This passcode authentication has ended or expired.');
  return session;
}

function authenticationPage(view: View, session: PasscodeLoginSession, wrong = false, refused?: Extract<FormOutcome, { ok: false }>): string {
  return renderPasscodeAuthentication({
    lang: view.lang,
    action: journeyUrl(view.record, view.capability, view.lang, view.step.activityId, 'passcode'),
    challenge: loginChallenge(session),
    wrong,
    frame: frameOf(view, refused),
    chrome: view.chrome,
  });
}

export const screens: Screens<typeof spec, 'identityStores'> = {
  component: 'passcode-registration',
  render: {
    'passcode-registration': (view) => registrationPage(view),
    'passcode-authentication': async (view) => authenticationPage(view, await currentLogin(view)),
  },
};

/**
 * The form's fields are checked first: refused, the screen comes back with their messages and
 * nothing of the passcode is used (the proof of a login is single-use, so it is not spent on a
 * post that goes back). Registration: the verifier (and history proofs) is checked and kept on the registration
 * session, never in the journey's data, and the journey moves on to Complete Passcode
 * Registration. Authentication: the SRP proof is checked; proved or out of attempts, the step
 * ends with its check (PASS or FAIL); otherwise the screen comes back with a fresh challenge.
 */
export const submission: Submission<typeof spec, 'identityStores'> = {
  part: 'passcode',
  async submit(view, { body = {} }, now) {
    const { record, step, inputs } = view;
    const dataForm = recordedForm(view);
    const fields = await validateFormSubmission(dataForm, body, view.lang, now, { defaults: formDefaults(dataForm, step.state, view.lang) });
    // The form's fields, then what the service records (which a field of the same id does not override).
    const form = { ...(fields.ok ? fields.values : {}), formName: inputs['Data form name'], formVersion: inputs['Data form version'] };
    // A passcode refused for itself: the screen comes back with the fields as they were typed.
    const typed = { ok: false as const, errors: {}, values: Object.fromEntries(answerKeys(dataForm).map((key) => [key, own(body, key) ?? ''])) };
    const dataKey = inputs['Form data Key'];
    const complete = (values: Record<string, unknown>, extra: Record<string, unknown> = {}, check?: CheckRecord): { complete: StepCompletion } => ({
      complete: { result: { vars: { [dataKey]: values }, ...extra }, values, dataKey, ...(check ? { check } : {}) },
    });

    if (view.component === 'passcode-registration') {
      const registration = registrationOf(view);
      if (!fields.ok) return { page: registrationPage(view, undefined, fields) };
      try {
        await stagePasscodeRegistration(view.deps.identityStores, {
          tenantId: record.tenantId,
          storeName: registration.storeName,
          sessionId: registration.algorithmInfo.parameters.i,
          verifier: String(body.verifier ?? ''),
          historyVerifiers: String(body.historyVerifiers ?? '')
            .split(',')
            .filter((v) => v.length > 0),
          now,
        });
      } catch (err) {
        if (err instanceof PasscodeReusedError) return { page: registrationPage(view, 'reused', typed) };
        if (err instanceof ApiError && err.statusCode === 400) return { page: registrationPage(view, 'failed', typed) };
        throw err;
      }
      return complete({ ...form, passcodeChosen: true, submittedAt: now.toISOString() });
    }

    if (view.component === 'passcode-authentication') {
      const login = loginOf(view);
      if (!fields.ok) return { page: authenticationPage(view, await currentLogin(view), false, fields) };
      const outcome = await finishPasscodeLogin(view.deps.identityStores, {
        tenantId: record.tenantId,
        storeName: login.storeName,
        sessionId: login.sessionId,
        A: String(body.A ?? ''),
        M1: String(body.M1 ?? ''),
        actor: `journey:${record.id}`,
        now,
      });
      if (outcome.result === 'RETRY') return { page: authenticationPage(view, outcome.session, true, typed) };
      const result = outcome.result;
      const checkKey = inputs['Passcode Registration Key'];
      const check: CheckRecord = {
        checkId: checkKey,
        activityId: step.activityId,
        checkType: 'PASSCODE_AUTHENTICATION',
        result,
        displayName: 'Passcode authentication',
        description:
          result === 'PASS'
            ? `The end user proved the passcode of policy ${outcome.policyName} (SRP-6a).`
            : outcome.lockedUntil
              ? `Too many wrong passcodes of policy ${outcome.policyName} in a row: the passcode is locked until ${outcome.lockedUntil}.`
              : `The end user did not prove the passcode of policy ${outcome.policyName} within the attempts allowed.`,
        checkedAt: now.toISOString(),
        reports: [],
      };
      return complete(
        { ...form, authenticated: result === 'PASS', attempts: outcome.attempts },
        { _checks: { [checkKey]: { result, checkType: check.checkType, displayName: check.displayName } } },
        check,
      );
    }
    throw new StepNotWaitingError(`The passcode screen ${view.component} is not one this service has.`);
  },
};
