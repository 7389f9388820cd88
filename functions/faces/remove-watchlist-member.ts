import { apiHandler } from '../http/wrapper.js';
import { watchlistEngine, watchlists } from './deps.js';
import { watchlistRoutes as routes } from './watchlist-routes.js';
import { removeMember } from './watchlists.js';

export const handler = apiHandler(routes.removeWatchlistMember, async ({ tenantId, path }) => {
  await removeMember({ watchlists, engine: watchlistEngine }, tenantId, path.watchlistId, path.memberId);
  return { status: 204 };
});
