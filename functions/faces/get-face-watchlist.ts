import { apiHandler } from '../http/wrapper.js';
import { watchlists } from './deps.js';
import { watchlistRoutes as routes } from './watchlist-routes.js';
import { getWatchlist, watchlistView } from './watchlists.js';

export const handler = apiHandler(routes.getFaceWatchlist, async ({ tenantId, path }) => ({
  status: 200,
  body: watchlistView(await getWatchlist({ watchlists }, tenantId, path.watchlistId)),
}));
