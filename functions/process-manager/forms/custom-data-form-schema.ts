/**
 * The service family's data form format, the `resource` of `/api/process-manager/customDataForms`.
 * It is the one form format of the service, inline `Form` inputs included, so it lives with the
 * definition format (statemachines/forms.ts); this module names what the form API uses of it.
 */
export {
  CUSTOM_DATA_FORM_COMPONENT_TYPES,
  CustomDataFormResourceSchema,
  FamilyFormComponentSchema,
  FamilyFormValidateSchema,
  FamilyLocalizedTextSchema,
  FORM_LIMITS,
  lenientInt,
  parseCustomDataFormResource,
  type CustomDataFormComponentType,
  type CustomDataFormResource,
  type FamilyFormComponent,
} from '../../../statemachines/forms.js';
