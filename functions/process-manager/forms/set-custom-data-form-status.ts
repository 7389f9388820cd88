import { apiHandler, actorOf } from '../../http/wrapper.js';
import { customDataFormView, setCustomDataFormStatus } from './custom-data-forms.js';
import { customDataForms } from '../deps.js';
import { customDataFormRoutes as routes } from './custom-data-form-routes.js';

export const handler = apiHandler(routes.setCustomDataFormStatus, async ({ tenantId, auth, path, now }) => {
  const record = await setCustomDataFormStatus(customDataForms, {
    tenantId,
    id: path.customDataForm,
    status: path.status,
    actor: actorOf(auth),
    now,
  });
  return { status: 200, body: customDataFormView(record) };
});
