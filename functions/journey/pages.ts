import type { ProcessInstanceRecord } from '../process-manager/instances.js';
import { isFinal } from '../process-manager/status.js';
import { lookup, referencePath } from '../../statemachines/references.js';
import type { DataForm } from '../../statemachines/definition.js';
import { type Language, renderDataForm, renderDone, renderFaceCapture, renderGone, renderTrouble, renderUnsupported, renderWaiting } from './render.js';
import { MAX_FACE_IMAGE_BYTES } from './face-limits.js';
import { renderPasscodeAuthentication, renderPasscodeRegistration, renderPasskey } from './render.js';
import { StepNotWaitingError } from './steps.js';
import { loginChallenge, type PasscodeLoginSession } from '../identity-store/passcodes.js';
import type { PasscodeRequirements } from '../identity-store/passcode-rules.js';
import { passcodeLogins } from './deps.js';

/** The journey page, or where a step's page posts (`/steps/{activityId}`, plus `/face` for an image). */
export function journeyUrl(record: ProcessInstanceRecord, capability: string, lang: Language, activityId?: string, part?: 'face' | 'passcode' | 'passkey' | 'passkey/options'): string {
  const q = `?c=${encodeURIComponent(capability)}&lang=${lang}`;
  if (!activityId) return `/journey/${record.id}${q}`;
  return `/journey/${record.id}/steps/${encodeURIComponent(activityId)}${part ? `/${part}` : ''}${q}`;
}

type WaitingStep = NonNullable<ProcessInstanceRecord['currentStep']>;

/** What a screen renders from: the waiting step, the link's capability and the language. */
export interface ScreenContext {
  record: ProcessInstanceRecord;
  step: WaitingStep;
  capability: string;
  lang: Language;
  /** The screen of the step's `List of Screens` being shown (its `UI Component ID` first). */
  screen: string;
  screens: string[];
}

/**
 * The screens framework. A user step names its UI component (`Starting Component ID`; the
 * activity's own when it has no such input) and the screens it goes through (`UI Component
 * ID`, `List of Screens`); each component registers a renderer here. The passcode form and the
 * push wait register theirs as their activities arrive; a component with none renders the
 * "cannot be completed here" page rather than a broken one.
 */
export const SCREENS: Record<string, (ctx: ScreenContext) => string | Promise<string>> = {
  'data-form': ({ record, step, capability, lang }) => {
    const form = step.inputs.Form as DataForm;
    return renderDataForm({ form, lang, action: journeyUrl(record, capability, lang, step.activityId), values: formDefaults(form, step.state) });
  },
  'face-capture': ({ record, step, capability, lang }) =>
    renderFaceCapture({ lang, action: journeyUrl(record, capability, lang, step.activityId, 'face'), maxBytes: MAX_FACE_IMAGE_BYTES }),
  'passcode-registration': (ctx) => passcodeRegistrationScreen(ctx),
  'passcode-authentication': async (ctx) => passcodeAuthenticationScreen(ctx, await passcodeLogin(ctx)),
  'passkey-registration': (ctx) => passkeyScreen(ctx),
  'passkey-authentication': (ctx) => passkeyScreen(ctx),
};

/**
 * A passkey screen. The ceremony starts when the end user presses its button: the page's script
 * asks `.../passkey/options` for a fresh, single-use challenge, so showing the page writes
 * nothing and the page itself carries no WebAuthn code.
 */
export function passkeyScreen(ctx: ScreenContext, failed = false): string {
  return renderPasskey({
    lang: ctx.lang,
    mode: ctx.step.activityType === 'PASSKEY_REGISTRATION' ? 'register' : 'authenticate',
    action: journeyUrl(ctx.record, ctx.capability, ctx.lang, ctx.step.activityId, 'passkey'),
    optionsUrl: journeyUrl(ctx.record, ctx.capability, ctx.lang, ctx.step.activityId, 'passkey/options'),
    failed,
  });
}

/** The registration a Start Passcode Registration kept under the step's Passcode Registration Key. */
export function passcodeRegistration(step: WaitingStep) {
  const key = String(step.inputs['Passcode Registration Key'] ?? 'passcodeReg1');
  const vars = (step.state.vars ?? {}) as Record<string, unknown>;
  const registration = vars[key] as
    | { storeName: string; passcodeRequirements: PasscodeRequirements; algorithmInfo: { parameters: Record<string, unknown> & { i: string } } }
    | undefined;
  if (!registration?.algorithmInfo?.parameters?.i) {
    throw new StepNotWaitingError(`No passcode registration is kept under ${key}: the journey needs a Start Passcode Registration before this form.`);
  }
  return registration;
}

export function passcodeRegistrationScreen(ctx: ScreenContext, error?: 'reused' | 'failed'): string {
  const registration = passcodeRegistration(ctx.step);
  return renderPasscodeRegistration({
    lang: ctx.lang,
    action: journeyUrl(ctx.record, ctx.capability, ctx.lang, ctx.step.activityId, 'passcode'),
    srp: registration.algorithmInfo.parameters,
    requirements: registration.passcodeRequirements,
    ...(error ? { error } : {}),
  });
}

/** Which login a Start Passcode Authentication started, as the journey's data keeps it. */
export function passcodeLoginRef(step: WaitingStep): { sessionId: string; storeName: string } {
  const key = String(step.inputs['Passcode Registration Key'] ?? 'passcodeReg1');
  const kept = ((step.state.vars ?? {}) as Record<string, { authentication?: { sessionId: string; storeName: string } }>)[key]?.authentication;
  if (!kept) throw new StepNotWaitingError(`No passcode authentication is kept under ${key}: the journey needs a Start Passcode Authentication before this form.`);
  return kept;
}

/** The login as it is now (its B changes after a wrong passcode). */
export async function passcodeLogin(ctx: Pick<ScreenContext, 'record' | 'step'>) {
  const ref = passcodeLoginRef(ctx.step);
  const session = await passcodeLogins.getLogin(ctx.record.tenantId, ref.storeName, ref.sessionId, new Date());
  if (!session) throw new StepNotWaitingError('This passcode authentication has ended or expired.');
  return session;
}

export function passcodeAuthenticationScreen(ctx: ScreenContext, session: PasscodeLoginSession, wrong = false): string {
  return renderPasscodeAuthentication({
    lang: ctx.lang,
    action: journeyUrl(ctx.record, ctx.capability, ctx.lang, ctx.step.activityId, 'passcode'),
    challenge: loginChallenge(session),
    wrong,
  });
}

/** The component of activities that have no `Starting Component ID` input. */
const ACTIVITY_COMPONENTS: Record<string, string> = {
  DATA_FORM: 'data-form',
  CAPTURE_FACE_IMAGE: 'face-capture',
  PASSCODE_AUTHENTICATION_FORM: 'passcode-registration',
  PASSKEY_REGISTRATION: 'passkey-registration',
  PASSKEY_AUTHENTICATION: 'passkey-authentication',
};

export function screenOf(record: ProcessInstanceRecord, step: WaitingStep, capability: string, lang: Language): ScreenContext & { component: string } {
  const component = String(step.inputs['Starting Component ID'] ?? ACTIVITY_COMPONENTS[step.activityType] ?? step.activityType);
  const first = String(step.inputs['UI Component ID'] ?? component);
  const listed = Array.isArray(step.inputs['List of Screens']) ? (step.inputs['List of Screens'] as unknown[]).map(String) : [];
  const screens = listed.length ? listed : [first];
  return { record, step, capability, lang, component, screen: screens.includes(first) ? first : screens[0]!, screens };
}

/** A form's starting values: its defaults, with `${...}` references read from the session. */
export function formDefaults(form: DataForm, state: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of form.components) {
    if (c.default === undefined) continue;
    const path = typeof c.default === 'string' ? referencePath(c.default) : undefined;
    const value = path !== undefined ? lookup(state, path) : c.default;
    if (value !== undefined && value !== null) out[c.id] = c.type === 'checkbox' ? (value === true ? 'on' : '') : String(value);
  }
  return out;
}

/** The page for where the journey is: its waiting step, its end, or a moment in between. */
export async function journeyPage(record: ProcessInstanceRecord, capability: string, lang: Language): Promise<string> {
  // A journey that has ended shows its end, even if a step it waited at (one that timed out) is still recorded.
  const step = isFinal(record.status) ? undefined : record.currentStep;
  if (step) {
    const screen = screenOf(record, step, capability, lang);
    const render = SCREENS[screen.component];
    return render ? render(screen) : renderUnsupported(lang);
  }
  switch (record.status) {
    case 'COMPLETED_ENDED_SUCCESS':
    case 'COMPLETED_ENDED_ERROR':
    case 'REVIEW':
      return renderDone({ lang, redirectUrl: record.parameters._redirectUrl });
    case 'COMPLETED_TERMINATED':
      return renderGone(lang);
    case 'COMPLETED_PROCESS_ERROR':
      return renderTrouble(lang);
    default:
      return renderWaiting(lang);
  }
}
