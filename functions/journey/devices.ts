/**
 * Switch Device: a journey held by one of the end user's devices at a time.
 *
 * A journey starts held by its instance's own link (the redirect URL's capability). A step to a
 * phone shows its holder a switch link (and its QR code); the phone that opens it gets a
 * capability of its own for the same instance and holds the journey from then on. A step back
 * to the computer lets the device the phone took it from take it back. A device that does not
 * hold the journey is shown where it is (`renderSwitchFollow`), never its steps; every device
 * shows the end once the journey has ended.
 *
 * Secrets: a switch link's secret is an HMAC-SHA256, keyed by the showing device's capability
 * (which the table does not hold), of the instance, the step and that visit of it: 256 bits, the
 * same each time the page is shown, and only its SHA-256 is kept (`SwitchLinkRecord`). A phone's
 * capability is 256 random bits, kept only as a hash, like the instance's own.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { apiError } from '../errors.js';
import { STEP_TIMEOUT_DEFAULT, STEP_TIMEOUT_INPUT } from '../activities/spec.js';
import { hashCapability, type ProcessInstanceRecord } from '../process-manager/instances/instances.js';
import type { JourneyHolder } from '../process-manager/model.js';
import { isFinal } from '../process-manager/instances/status.js';
import { orchestrator } from '../process-manager/executions/orchestrator.js';
import { JourneyNotAvailableError } from './access.js';
import { instances, switchDevices } from './deps.js';
import type { Language } from './messages/index.js';
import { renderSwitchFollow } from './screens/switch-device.js';
import { renderWaiting } from './screens/waiting.js';
import { chromeOf } from './screen-context.js';
import { refusalOf } from './refusal-chrome.js';
import { completeUserStep, ServiceUnavailableError, StepNotWaitingError, type TaskFailer, type TaskResumer } from './steps.js';

/** The activity type of the family's Switch to Mobile and Switch To Desktop (functions/activities/specs/switch-device.ts). */
export const SWITCH_DEVICE = 'SWITCH_DEVICE';

/** The family's screens of a step to a phone, and of a step back to the computer. */
export const TO_PHONE_SCREENS: readonly string[] = ['instructions', 'scan-qr', 'mobile-switch-status'];
export const TO_COMPUTER_SCREEN = 'switch-to-desktop';

export type SwitchMode = 'to-mobile' | 'to-desktop';

/** A switch link opened again after it made a device. */
export class SwitchLinkUsedError extends apiError('SWITCH_LINK_USED') {}
/** A switch link whose step is over (timed out, moved on, the journey ended), or whose journey moved to another device since. */
export class SwitchLinkExpiredError extends apiError('SWITCH_LINK_EXPIRED') {}

type WaitingStep = NonNullable<ProcessInstanceRecord['currentStep']>;

/**
 * The direction of a Switch Device step, from its inputs: its `UI Component ID` and `List of
 * Screens` (instructions, scan-qr, mobile-switch-status: to a phone; switch-to-desktop: back),
 * and its `Starting Component ID` (mobile-switch or switch-to-desktop) where given. Undefined
 * when they name no known screen or both directions.
 */
export function switchModeOf(inputs: Readonly<Record<string, unknown>>): SwitchMode | undefined {
  const first = inputs['UI Component ID'];
  const listed = Array.isArray(inputs['List of Screens']) ? (inputs['List of Screens'] as unknown[]).map(String) : [];
  const screens = [...(typeof first === 'string' ? [first] : []), ...listed];
  const back = screens.filter((s) => s === TO_COMPUTER_SCREEN).length;
  const forth = screens.filter((s) => TO_PHONE_SCREENS.includes(s)).length;
  if (screens.length === 0 || back + forth !== screens.length || (back > 0 && forth > 0)) return undefined;
  const mode: SwitchMode = back > 0 ? 'to-desktop' : 'to-mobile';
  const component = inputs['Starting Component ID'];
  if (component !== undefined && component !== (mode === 'to-desktop' ? TO_COMPUTER_SCREEN : 'mobile-switch')) return undefined;
  return mode;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64url');

/** Which visit of a step: the SHA-256 of its task token (the token itself never leaves the table). */
export function visitOf(step: Pick<WaitingStep, 'taskToken'>): string {
  return sha256(step.taskToken);
}

/** The capability hash of the device that holds the journey. */
export function holderOf(record: Pick<ProcessInstanceRecord, 'capabilityHash' | 'holder'>): string {
  return record.holder?.capabilityHash ?? record.capabilityHash;
}

/** Whether the device with this capability (one the journey already accepted) holds the journey. */
export function holds(record: Pick<ProcessInstanceRecord, 'capabilityHash' | 'holder'>, capability: string): boolean {
  return hashCapability(capability) === holderOf(record);
}

/**
 * Where a step back to the computer stands, as its holder's page shows it: `go-back` while a
 * phone holds the journey (the phone asks the end user to go back); `taking` once the computer
 * took it back at this visit of the step but the step is not yet handed over (its page does it);
 * `alone` when there is no other device to go back to (the journey was never moved, or came
 * back at an earlier step).
 */
export function switchBackState(record: Pick<ProcessInstanceRecord, 'holder'>, step: Pick<WaitingStep, 'taskToken'>): 'go-back' | 'taking' | 'alone' {
  const holder = record.holder;
  if (holder?.via === 'to-mobile') return 'go-back';
  if (holder?.via === 'to-desktop' && holder.step === visitOf(step)) return 'taking';
  return 'alone';
}

/** A switch link's secret: the HMAC-SHA256 of the step's visit, keyed by the capability of the device that shows it. */
export function switchLinkSecret(capability: string, record: Pick<ProcessInstanceRecord, 'tenantId' | 'id'>, step: Pick<WaitingStep, 'activityId' | 'taskToken'>): string {
  return createHmac('sha256', capability)
    .update(['arthr switch-device link v1', record.tenantId, record.id, step.activityId, visitOf(step)].join('\n'))
    .digest('base64url');
}

/**
 * The switch link the holder's page of a step to a phone shows (absolute at `origin`, in the
 * page's language): the same link every time in this visit of the step; kept (its hash) the
 * first time, with the instance's expiry.
 */
export async function switchLinkFor(
  view: { record: ProcessInstanceRecord; step: WaitingStep; capability: string; lang: Language; origin?: string },
  now: Date,
): Promise<string> {
  const { record, step } = view;
  const secret = switchLinkSecret(view.capability, record, step);
  await switchDevices.putLink(record.tenantId, record.id, {
    secretHash: sha256(secret),
    activityId: step.activityId,
    step: visitOf(step),
    issuer: hashCapability(view.capability),
    createdAt: now.toISOString(),
    expiresAt: record.expiresAt,
  });
  return `${view.origin ?? ''}/journey/${record.id}/switch?s=${secret}&lang=${view.lang}`;
}

/** What opening a switch link needs besides the stores. */
export interface SwitchLinkPorts {
  /** Hands the step over (Step Functions on AWS, the local engine locally). */
  resumer: TaskResumer & TaskFailer;
  /** The step's timer in seconds, when it has one (the definition's: a timer is the step's timeout). */
  timerSeconds(record: ProcessInstanceRecord, activityId: string): Promise<number | undefined>;
}

/**
 * A switch link opened (on a phone, as a rule): the phone gets the journey. In order, each
 * write conditional, so that the link makes one device at most and a request cut short can be
 * sent again:
 *
 * 1. The link must be of the step the journey waits at now (that very visit, unclaimed), shown
 *    by the device that still holds the journey, and the step's time must not be up (its Step
 *    Timeout or timer, from when it began). Then it is marked opened, atomically with a check of
 *    the step: a second request finds it opened.
 * 2. The step completes (`H_isSwitchedFromDesktop` and `isMobile` true), through the one
 *    completion path of user steps, recognised by the link's hash if it is sent again.
 * 3. A capability is made for the phone, and in one transaction the phone's device item, the
 *    instance's new holder and the link marked used are written: the link is used up.
 *
 * An opened link that has made no device yet (step 2 or 3 was cut short, 503) goes on from step
 * 2 when opened again. A link used up is SwitchLinkUsedError, one whose step is over (or whose
 * journey moved to another device) SwitchLinkExpiredError, either with nothing written; an
 * unknown link, like an unknown instance, JourneyNotAvailableError.
 */
export async function openSwitchLink(
  input: { tenantId: string; processInstanceId: string; secret: string },
  ports: SwitchLinkPorts,
  now: Date,
): Promise<{ record: ProcessInstanceRecord; capability: string }> {
  const { tenantId, processInstanceId } = input;
  const secretHash = sha256(input.secret);
  let record = await instances.getLive(tenantId, processInstanceId, now);
  if (!record) throw new JourneyNotAvailableError();
  let link = await switchDevices.getLink(tenantId, processInstanceId, secretHash, now);
  if (!link) throw new JourneyNotAvailableError();
  if (link.device) throw refusalOf(new SwitchLinkUsedError(), record);
  const waitingAt = (r: ProcessInstanceRecord) => {
    const step = isFinal(r.status) ? undefined : r.currentStep;
    return step && step.activityId === link!.activityId && step.activityType === SWITCH_DEVICE && visitOf(step) === link!.step ? step : undefined;
  };

  if (!link.openedAt) {
    const step = waitingAt(record);
    if (!step || step.claim) throw refusalOf(new SwitchLinkExpiredError('The step this link was made for is over.'), record);
    if (holderOf(record) !== link.issuer) throw refusalOf(new SwitchLinkExpiredError('The journey has moved to another device since this link was shown.'), record);
    if (now.getTime() >= (await stepDeadline(record, step, ports))) throw refusalOf(new SwitchLinkExpiredError('The step this link was made for has timed out.'), record);
    if (!(await switchDevices.openLink(tenantId, processInstanceId, secretHash, step.taskToken, now.toISOString()))) {
      // Opened at the same moment by another request (the same link twice), or the step moved on: as they are now.
      link = await switchDevices.getLink(tenantId, processInstanceId, secretHash, now);
      if (!link?.openedAt) throw refusalOf(new SwitchLinkExpiredError('The step this link was made for is over.'), record);
      if (link.device) throw refusalOf(new SwitchLinkUsedError(), record);
      record = (await instances.getLive(tenantId, processInstanceId, now)) ?? record;
    }
  }

  const step = waitingAt(record);
  if (step) {
    await completeUserStep(
      {
        tenantId,
        processInstanceId,
        activityId: step.activityId,
        result: { vars: { H_isSwitchedFromDesktop: true, isMobile: true } },
        values: { device: 'phone' },
        record,
        digest: secretHash,
      },
      ports.resumer,
      now,
    );
  } else if (!(record.lastStep?.activityId === link.activityId && record.lastStep.digest === secretHash)) {
    // Opened, but the step ended before it was handed over (its timer): the link gives nothing.
    throw refusalOf(new SwitchLinkExpiredError('The step this link was made for is over.'), record);
  }

  const capability = randomBytes(32).toString('base64url');
  const capabilityHash = hashCapability(capability);
  const at = now.toISOString();
  const holder: JourneyHolder = { capabilityHash, from: link.issuer, via: 'to-mobile', activityId: link.activityId, step: link.step, since: at };
  const granted = await switchDevices.grantDevice(tenantId, processInstanceId, {
    secretHash,
    device: { capabilityHash, activityId: link.activityId, createdAt: at, expiresAt: record.expiresAt },
    holder,
    previousHolder: record.holder?.capabilityHash,
  });
  if (!granted) throw refusalOf(new SwitchLinkUsedError(), record);
  return { record: { ...record, holder }, capability };
}

/**
 * When a step's time is up: when it began plus its timer (the definition's, which is then the
 * step's timeout) or else its Step Timeout, in epoch milliseconds. (The recorded inputs carry the
 * Step Timeout's default even beside a timer, so the timer is asked first.) Step Functions' clock
 * started a moment before the step recorded itself, so in the last moment before this, the step
 * may have timed out already: the hand-over then meets Step Functions' "timed out", which the
 * completion path reads as taken.
 */
async function stepDeadline(record: ProcessInstanceRecord, step: WaitingStep, ports: SwitchLinkPorts): Promise<number> {
  const given = step.inputs[STEP_TIMEOUT_INPUT];
  const seconds = (await ports.timerSeconds(record, step.activityId)) ?? (typeof given === 'number' ? given : STEP_TIMEOUT_DEFAULT);
  return Date.parse(step.since) + seconds * 1000;
}

/**
 * The page of a device that does not hold the journey (undefined for the holder, and for every
 * device once the journey has ended: the journey page shows its end). At a step back to the
 * computer, the device the phone took the journey from takes it back: the step completes
 * (`isMobile` false) and the page reloads into the next step. Anywhere else it is shown where
 * the journey is, reloading itself until that changes.
 */
export async function otherDevicePage(record: ProcessInstanceRecord, capability: string, lang: Language, now: Date): Promise<string | undefined> {
  const holder = record.holder;
  if (isFinal(record.status) || !holder || holds(record, capability)) return undefined;
  const own = hashCapability(capability);
  const step = record.currentStep;
  // The relying party's chrome, without a step's progress: this device is at no step.
  const chrome = chromeOf(record, capability, lang);
  if (step?.activityType === SWITCH_DEVICE && switchModeOf(step.inputs) === 'to-desktop' && holder.via === 'to-mobile' && holder.from === own) {
    const back: JourneyHolder = { capabilityHash: own, from: holder.capabilityHash, via: 'to-desktop', activityId: step.activityId, step: visitOf(step), since: now.toISOString() };
    // Two loads at once: one moves the journey, the other reloads into where it went.
    if (await switchDevices.moveHolder(record.tenantId, record.id, back, holder.capabilityHash)) await finishSwitchBack({ ...record, holder: back }, step, now);
    return renderWaiting(lang, chrome);
  }
  return renderSwitchFollow(lang, holder.via === 'to-mobile' ? 'phone' : 'computer', chrome);
}

/**
 * The computer took the journey back at a step back to it: the step completes (`isMobile`
 * false), recognised by its visit if it is handed over again. When Step Functions did not take
 * it yet (503), the computer's page, which now holds the journey, hands it over at its next load.
 */
export async function finishSwitchBack(record: ProcessInstanceRecord, step: WaitingStep, now: Date): Promise<void> {
  try {
    await completeUserStep(
      {
        tenantId: record.tenantId,
        processInstanceId: record.id,
        activityId: step.activityId,
        result: { vars: { isMobile: false } },
        values: { device: 'computer' },
        record,
        digest: `back:${visitOf(step)}`,
      },
      await orchestrator(),
      now,
    );
  } catch (err) {
    // Not taken yet (the next load hands it over), or taken meanwhile by another load of the page.
    if (err instanceof ServiceUnavailableError || err instanceof StepNotWaitingError) return;
    throw err;
  }
}
