import { apiHandler } from '../../http/wrapper.js';
import { stores } from '../deps.js';
import { storesPage } from './stores.js';
import { identityStoreRoutes as routes } from '../routes.js';

export const handler = apiHandler(routes.listIdentityStores, async ({ tenantId, query }) => ({
  status: 200,
  body: await storesPage(stores, tenantId, query),
}));
