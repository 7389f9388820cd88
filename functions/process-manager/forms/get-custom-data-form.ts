import { apiHandler } from '../../http/wrapper.js';
import { customDataFormView, getCustomDataForm } from './custom-data-forms.js';
import { customDataForms } from '../deps.js';
import { customDataFormRoutes as routes } from './custom-data-form-routes.js';

export const handler = apiHandler(routes.getCustomDataForm, async ({ tenantId, path }) => ({
  status: 200,
  body: customDataFormView(await getCustomDataForm(customDataForms, tenantId, path.customDataForm)),
}));
