import { apiHandler } from '../http/wrapper.js';
import { webhooks } from './deps.js';
import { webhookRoutes as routes } from './routes.js';
import { listWebhooks } from './webhooks.js';

export const handler = apiHandler(routes.listWebhooks, async ({ tenantId, query }) => ({ status: 200, body: await listWebhooks({ webhooks }, tenantId, query) }));
