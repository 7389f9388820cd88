/** Process definitions the integration and browser tests share. */

/** Add the user, register a passcode in the browser, then prove it; PASS when both checks passed. */
export const passcodeJourney = (name: string) => ({
  name,
  version: 1,
  retentionDays: 1,
  startActivityId: 'addUser',
  activities: {
    addUser: {
      type: 'ADD_USER',
      inputs: { 'External ID': '${externalId}', 'Store Name': '${storeName}' },
      errorEvents: { 'ExtId Not Unique': 'decide' },
      next: 'startRegistration',
    },
    startRegistration: { type: 'START_PASSCODE_REGISTRATION', inputs: { 'Passcode Key': 'pin', 'Store Name': '${storeName}' }, next: 'passcodeForm' },
    passcodeForm: { type: 'PASSCODE_AUTHENTICATION_FORM', inputs: { 'Data form name': 'passcode-registration' }, next: 'completeRegistration' },
    completeRegistration: { type: 'COMPLETE_PASSCODE_REGISTRATION', next: 'startLogin' },
    startLogin: {
      type: 'START_PASSCODE_AUTHENTICATION',
      inputs: { 'Passcode Policy': 'pin', 'Store Name': '${storeName}', 'Passcode Registration Key': 'login1' },
      next: 'loginForm',
    },
    loginForm: {
      type: 'PASSCODE_AUTHENTICATION_FORM',
      inputs: {
        'Data form name': 'passcode-login',
        'Passcode Registration Key': 'login1',
        'Form data Key': 'loginForm',
        'Starting Component ID': 'passcode-authentication',
        'UI Component ID': 'passcode-authentication',
      },
      next: 'decide',
    },
    decide: {
      type: 'SIMPLE_DECIDER',
      rules: [
        { when: { errorEvent: true }, outcome: 'FAIL' },
        { when: { all: [{ variable: '_checks.passcodeReg1.result', equals: 'PASS' }, { variable: '_checks.login1.result', equals: 'PASS' }] }, outcome: 'PASS' },
      ],
      default: 'FAIL',
    },
  },
});


/** Add the user, create a passkey for them, then sign in with it discoverably; PASS when both passed. */
export const passkeyJourney = (name: string, storeName: string, rpId: string) => ({
  name,
  version: 1,
  retentionDays: 1,
  startActivityId: 'addUser',
  activities: {
    addUser: { type: 'ADD_USER', inputs: { 'External ID': '${externalId}', 'Store Name': storeName }, next: 'createPasskey' },
    createPasskey: { type: 'PASSKEY_REGISTRATION', inputs: { 'Store Name': storeName, 'Relying Party ID': rpId, 'Passkey Key': 'pkReg' }, next: 'signIn' },
    signIn: { type: 'PASSKEY_AUTHENTICATION', inputs: { 'Store Name': storeName, 'Relying Party ID': rpId, 'Passkey Key': 'pkAuth', 'User Key': 'signedIn' }, next: 'decide' },
    decide: {
      type: 'SIMPLE_DECIDER',
      rules: [{ when: { all: [{ variable: '_checks.pkReg.result', equals: 'PASS' }, { variable: '_checks.pkAuth.result', equals: 'PASS' }] }, outcome: 'PASS' }],
      default: 'FAIL',
    },
  },
});

/**
 * The identity store end to end in one journey: the passcode journey (add the user, register a
 * passcode and prove it; store from the token's `storeName`), then create a passkey and sign in
 * with it, then deregister the passcode.
 */
export const identityJourney = (name: string, rpId: string) => {
  const passcode = passcodeJourney(name);
  const { decide: _decide, ...steps } = passcode.activities;
  return {
    ...passcode,
    activities: {
      ...steps,
      loginForm: { ...steps.loginForm, next: 'createPasskey' },
      createPasskey: { type: 'PASSKEY_REGISTRATION', inputs: { 'Store Name': '${storeName}', 'Relying Party ID': rpId, 'Passkey Key': 'pkReg' }, next: 'signIn' },
      signIn: { type: 'PASSKEY_AUTHENTICATION', inputs: { 'Store Name': '${storeName}', 'Relying Party ID': rpId, 'Passkey Key': 'pkAuth', 'User Key': 'user1' }, next: 'deregister' },
      deregister: { type: 'DEREGISTER_PASSCODE', inputs: { 'Passcode Policy': 'pin', 'Store Name': '${storeName}' }, next: 'decide' },
      decide: {
        type: 'SIMPLE_DECIDER',
        rules: [
          {
            when: { all: ['_checks.passcodeReg1.result', '_checks.login1.result', '_checks.pkReg.result', '_checks.pkAuth.result'].map((variable) => ({ variable, equals: 'PASS' })) },
            outcome: 'PASS',
          },
        ],
        default: 'FAIL',
      },
    },
  };
};
