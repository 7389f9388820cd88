import type { Screens, Submission } from './contract.js';
import { passkeyPage, submitPasskey } from './passkey-step.js';
import { spec } from './specs/passkey-registration.js';

export const screens: Screens<typeof spec> = { component: 'passkey-registration', render: { 'passkey-registration': (view) => passkeyPage(view, 'register') } };

export const submission: Submission<typeof spec, 'identityStores'> = { part: 'passkey', submit: (view, request, now) => submitPasskey(view, 'register', request, now) };
