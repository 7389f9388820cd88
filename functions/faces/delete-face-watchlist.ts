import { apiHandler } from '../http/wrapper.js';
import { watchlistEngine, watchlists } from './deps.js';
import { watchlistRoutes as routes } from './watchlist-routes.js';
import { deleteWatchlist } from './watchlists.js';

export const handler = apiHandler(routes.deleteFaceWatchlist, async ({ tenantId, path }) => {
  await deleteWatchlist({ watchlists, engine: watchlistEngine }, tenantId, path.watchlistId);
  return { status: 204 };
});
