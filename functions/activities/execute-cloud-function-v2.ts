import { s, type ActivitySpec } from './spec.js';

export const spec = {
  type: 'EXECUTE_CLOUD_FUNCTION_V2',
  displayName: 'Execute Cloud Function v2',
  kind: 'service',
  description: 'Runs a tenant cloud function with the named process variables (for example uploadURL and uploadURL_headers).',
  inputs: [
    s('Function Name', true),
    { name: 'Function Version', type: 'I', required: true, min: 1 },
    { name: 'Process Variables', type: 'L', required: false },
  ],
  rules: [],
  outputs: [],
  errorEvents: [],
} as const satisfies ActivitySpec;

export const aliases = ['syncCloudFunctionExecutorV2'] as const;

export const notRunnable = 'cloud functions have no sandbox yet';
