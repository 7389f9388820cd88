import { apiHandler } from '../http/wrapper.js';
import { watchlists } from './deps.js';
import { watchlistRoutes as routes } from './watchlist-routes.js';
import { membersPage } from './watchlists.js';

export const handler = apiHandler(routes.listWatchlistMembers, async ({ tenantId, path, query }) => ({
  status: 200,
  body: await membersPage({ watchlists }, tenantId, path.watchlistId, query),
}));
