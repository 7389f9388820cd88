import { apiHandler } from '../http/wrapper.js';
import { watchlists } from './deps.js';
import { watchlistRoutes as routes } from './watchlist-routes.js';
import { watchlistsPage } from './watchlists.js';

export const handler = apiHandler(routes.listFaceWatchlists, async ({ tenantId, query }) => ({ status: 200, body: await watchlistsPage({ watchlists }, tenantId, query) }));
