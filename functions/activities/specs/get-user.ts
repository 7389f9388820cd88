import { storeName, userExternalId, userId, userKey, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'GET_USER',
  displayName: 'Get User',
  kind: 'service',
  description: 'Looks a user up by User ID or User External ID and keeps it under User Key.',
  inputs: [storeName, userExternalId, userId, userKey],
  rules: [{ kind: 'groups', groups: [['User ID'], ['User External ID']], min: 1, max: 1 }],
  outputs: [{ name: 'User', variable: 'vars.{User Key}' }],
  errorEvents: [],
  failures: ['UserNotGiven'],
  family: { beans: ['getUserV1'] },
} as const satisfies ActivitySpec;
