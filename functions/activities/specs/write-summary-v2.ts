import { type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'WRITE_SUMMARY_V2',
  displayName: 'Write Summary Report V2',
  kind: 'service',
  description:
    "Writes a summary of the instance, placed just before its end: the decision, each check's result, the steps taken with their times " +
    'and the error events taken. It is kept with the instance, expiring with it, and the relying party reads it as `summary` in the ' +
    'user data (`GET /api/userdata-server/processDefinitions/{id}/processInstances/{id}/userdata`). Written again, the newest replaces it.',
  inputs: [],
  rules: [],
  outputs: [],
  errorEvents: [],
  family: { palette: 'WRS02', beans: ['writeSummaryV2'] },
} as const satisfies ActivitySpec;
