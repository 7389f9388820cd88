import type { Screens, Submission } from './contract.js';
import { passkeyPage, submitPasskey } from './passkey-step.js';
import { spec } from './specs/passkey-authentication.js';

export const screens: Screens<typeof spec> = {
  component: 'passkey-authentication',
  render: { 'passkey-authentication': (view) => passkeyPage(view, 'authenticate') },
};

export const submission: Submission<typeof spec, 'identityStores'> = { part: 'passkey', submit: (view, request, now) => submitPasskey(view, 'authenticate', request, now) };
