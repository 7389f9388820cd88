import { apiHandler } from '../../http/wrapper.js';
import { customDataFormVersionsPage } from './custom-data-forms.js';
import { customDataForms } from '../deps.js';
import { customDataFormRoutes as routes } from './custom-data-form-routes.js';

export const handler = apiHandler(routes.listCustomDataFormVersions, async ({ tenantId, path, query }) => ({
  status: 200,
  body: await customDataFormVersionsPage(customDataForms, tenantId, path.customDataForm, query),
}));
