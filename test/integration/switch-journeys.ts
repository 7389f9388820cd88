/** Journeys with Switch Device steps, as the integration and browser tests run them (functions/journey/devices.ts). */

/** The family's inputs of Switch to Mobile. */
export const TO_PHONE = { 'UI Component ID': 'instructions', 'List of Screens': ['instructions', 'scan-qr', 'mobile-switch-status'], 'Starting Component ID': 'mobile-switch' };
/** The family's inputs of Switch To Desktop. */
export const TO_COMPUTER = { 'UI Component ID': 'switch-to-desktop', 'List of Screens': ['switch-to-desktop'], 'Starting Component ID': 'switch-to-desktop' };

const text = (en: string, de: string) => ({ values: { en, de } });

/** An inline data form of one required text field. */
const oneField = (title: [string, string], id: string, label: [string, string]) => ({
  title: text(...title),
  components: [{ type: 'textfield', id, label: text(...label), validate: { required: true } }],
});

/**
 * To a phone (with a timer, as the family draws it: its timeout leads to an error end), the
 * applicant's details there, back to the computer, a confirmation there, then the end.
 */
export const switchJourney = (name: string, timer = 'PT5M') => ({
  name,
  version: 1,
  retentionDays: 1,
  startActivityId: 'toPhone',
  activities: {
    toPhone: { type: 'SWITCH_DEVICE', name: 'Switch to Mobile', inputs: TO_PHONE, timer: { id: 'Timer_toPhone', duration: timer, next: 'End_timedOut' }, next: 'details' },
    details: {
      type: 'DATA_FORM',
      inputs: { 'Form data Key': 'details', Form: oneField(['Your details', 'Ihre Angaben'], 'city', ['City', 'Stadt']) },
      next: 'toComputer',
    },
    toComputer: { type: 'SWITCH_DEVICE', name: 'Switch To Desktop', inputs: TO_COMPUTER, timer: { id: 'Timer_toComputer', duration: 'PT5M', next: 'End_timedOut' }, next: 'confirm' },
    confirm: {
      type: 'DATA_FORM',
      inputs: { 'Form data Key': 'confirm', Form: oneField(['Anything else?', 'Sonst noch etwas?'], 'note', ['Note', 'Notiz']) },
    },
  },
  ends: { End_timedOut: { error: 'timedOut' } },
});

/** To a phone, then the applicant's details there, then the end: what the browser test runs. */
export const toPhoneJourney = (name: string) => ({
  name,
  version: 1,
  retentionDays: 1,
  startActivityId: 'toPhone',
  activities: {
    toPhone: { type: 'SWITCH_DEVICE', name: 'Switch to Mobile', inputs: TO_PHONE, next: 'details' },
    details: { type: 'DATA_FORM', inputs: { 'Form data Key': 'details', Form: oneField(['Your details', 'Ihre Angaben'], 'city', ['City', 'Stadt']) } },
  },
});

/** A step back to the computer on a journey that never moved, then a form. */
export const backFirstJourney = (name: string) => ({
  name,
  version: 1,
  retentionDays: 1,
  startActivityId: 'toComputer',
  activities: {
    toComputer: { type: 'SWITCH_DEVICE', inputs: TO_COMPUTER, next: 'details' },
    details: { type: 'DATA_FORM', inputs: { 'Form data Key': 'details', Form: oneField(['Your details', 'Ihre Angaben'], 'city', ['City', 'Stadt']) } },
  },
});
