import { s, storeName, userKey, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'ADD_USER',
  displayName: 'Add User',
  kind: 'service',
  description: 'Adds a user with an external ID to an identity store and keeps it under User Key.',
  inputs: [s('External ID', true, undefined, "The user's external ID; unique in the store."), storeName, userKey],
  rules: [],
  outputs: [{ name: 'User', variable: 'vars.{User Key}' }],
  errorEvents: [
    { name: 'Failed to add the user', aslError: 'AddUserFailed', code: 'failedToAddUser' },
    { name: 'ExtId Not Unique', aslError: 'ExtIdNotUnique', code: 'extIdNotUnique', description: 'A user with this external ID exists.' },
  ],
  family: { beans: ['addUserV1'] },
} as const satisfies ActivitySpec;
