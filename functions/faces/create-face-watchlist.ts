import { apiHandler, actorOf } from '../http/wrapper.js';
import { watchlistEngine, watchlists } from './deps.js';
import { watchlistRoutes as routes } from './watchlist-routes.js';
import { createWatchlist, watchlistView } from './watchlists.js';

export const handler = apiHandler(routes.createFaceWatchlist, async ({ tenantId, auth, body, now }) => {
  const record = await createWatchlist({ watchlists, engine: watchlistEngine }, body, { tenantId, actor: actorOf(auth), now });
  return { status: 201, body: watchlistView(record), headers: { location: `/api/watchlist-manager/facewatchlists/${record.id}` } };
});
