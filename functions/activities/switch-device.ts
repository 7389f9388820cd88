import { finishSwitchBack, holds, switchBackState, switchLinkFor, switchModeOf } from '../journey/devices.js';
import { chromeOf, journeyUrl } from '../journey/screen-context.js';
import { renderSwitchBack, renderSwitchFollow, renderSwitchHere, renderSwitchNotHere, renderSwitchToPhone } from '../journey/screens/switch-device.js';
import { renderWaiting } from '../journey/screens/waiting.js';
import { activityError, type Screens, type StepBegin, type StepView, type Submission } from './contract.js';
import { spec } from './specs/switch-device.js';

/**
 * Switch Device (the family's Switch to Mobile and Switch To Desktop): see functions/journey/devices.ts
 * for how a journey moves between devices. No AWS access of its own in the activity function:
 * its pages and its link route do the work.
 */

/** A step whose screens name both directions, or none the family has, cannot be shown: it fails (InvalidInput). */
export const begin: StepBegin<typeof spec> = async ({ activityId, inputs }) => {
  if (!switchModeOf(inputs)) {
    throw activityError(
      spec,
      'InvalidInput',
      `${activityId}: UI Component ID, List of Screens and Starting Component ID must name one direction: instructions, scan-qr, ` +
        'mobile-switch-status and mobile-switch to a phone, or switch-to-desktop back to the computer.',
    );
  }
  return { ...inputs };
};

type View = StepView<typeof spec>;

/**
 * The page of the device that holds the journey (the others are shown where it is: devices.ts
 * `otherDevicePage`). To a phone: the instructions, the QR code and the link. Back to the
 * computer: on the phone, "go back"; on the computer that took the journey back, the step's
 * hand-over if a load before did not finish it; on a journey that was never moved, a Continue
 * button.
 */
async function switchPage(view: View): Promise<string> {
  const { record, step, capability, lang } = view;
  if (!holds(record, capability)) return renderSwitchFollow(lang, record.holder?.via === 'to-desktop' ? 'computer' : 'phone', chromeOf(record, capability, lang));
  if (switchModeOf(view.inputs) === 'to-mobile') return renderSwitchToPhone({ lang, link: await switchLinkFor(view, new Date()), chrome: view.chrome });
  switch (switchBackState(record, step)) {
    case 'go-back':
      return renderSwitchBack(lang, view.chrome);
    case 'taking':
      await finishSwitchBack(record, step, new Date());
      return renderWaiting(lang, view.chrome);
    case 'alone':
      return renderSwitchHere(lang, journeyUrl(record, capability, lang, step.activityId), view.chrome);
  }
}

export const screens: Screens<typeof spec> = {
  component: 'switch-device',
  // The family's Starting Component IDs, and this module's own for a step that names none.
  render: { 'switch-device': switchPage, 'mobile-switch': switchPage, 'switch-to-desktop': switchPage },
};

/**
 * Posted only by the Continue button of a step back to the computer on a journey that was never
 * moved: it completes the step and changes nothing else. A step to a phone completes when a
 * phone opens its link, a step back when the computer takes the journey back; a post to either
 * gets a page pointing back to the journey (400).
 */
export const submission: Submission<typeof spec> = {
  part: 'form',
  async submit(view) {
    const { record, step, capability, lang } = view;
    if (switchModeOf(view.inputs) === 'to-desktop' && holds(record, capability) && switchBackState(record, step) === 'alone') {
      return { complete: { result: {}, values: { device: 'unchanged' }, dataKey: step.activityId } };
    }
    return { page: renderSwitchNotHere(lang, journeyUrl(record, capability, lang), view.chrome) };
  },
};
