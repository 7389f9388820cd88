import { oneUserLookup, s, storeName, userExternalId, userId, userKey, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'DEREGISTER_PASSCODE',
  displayName: 'Deregister Passcode',
  kind: 'service',
  description: "Removes a user's passcode registration under a passcode policy.",
  inputs: [s('Passcode Policy', true, 'passcodeAuth1'), storeName, userExternalId, userId, userKey],
  rules: [oneUserLookup],
  outputs: [],
  errorEvents: [],
  failures: ['UserNotGiven'],
  family: { beans: ['deregisterPasscodeV1'] },
} as const satisfies ActivitySpec;
