import type { CustomDataFormRecord, CustomDataFormStore, CustomDataFormSummary } from '../process-manager/model.js';
import { versionedStore } from './versioned.js';

export const customDataFormStore: CustomDataFormStore = /* @__PURE__ */ versionedStore<CustomDataFormRecord, CustomDataFormSummary>(
  'customDataForm',
  { version: 'CustomDataForm', nameVersion: 'CustomDataFormVersion' },
  ({ tenantId: _tenant, resource: _resource, ...summary }) => summary,
);
