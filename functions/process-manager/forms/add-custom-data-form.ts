import { apiHandler, actorOf } from '../../http/wrapper.js';
import { addCustomDataForm, customDataFormView } from './custom-data-forms.js';
import { customDataForms } from '../deps.js';
import { customDataFormRoutes as routes } from './custom-data-form-routes.js';

export const handler = apiHandler(routes.addCustomDataForm, async ({ tenantId, auth, body, now }) => {
  const record = await addCustomDataForm(customDataForms, body, { tenantId, actor: actorOf(auth), now });
  return { status: 201, body: customDataFormView(record), headers: { location: `/api/process-manager/customDataForms/${record.id}` } };
});
