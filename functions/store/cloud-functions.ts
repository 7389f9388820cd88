import type { CloudFunctionRecord, CloudFunctionStore, CloudFunctionSummary } from '../cloud-functions/model.js';
import { versionedStore } from './versioned.js';

export const cloudFunctionStore: CloudFunctionStore = /* @__PURE__ */ versionedStore<CloudFunctionRecord, CloudFunctionSummary>(
  'cloudFunction',
  { version: 'CloudFunction', nameVersion: 'CloudFunctionVersion' },
  ({ tenantId: _tenant, modules: _modules, ...summary }) => summary,
);
