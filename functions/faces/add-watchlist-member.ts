import { apiHandler, actorOf } from '../http/wrapper.js';
import { watchlistEngine, watchlists } from './deps.js';
import { watchlistRoutes as routes } from './watchlist-routes.js';
import { addMember, memberView } from './watchlists.js';

export const handler = apiHandler(routes.addWatchlistMember, async ({ tenantId, auth, path, body, now }) => {
  const member = await addMember({ watchlists, engine: watchlistEngine }, tenantId, path.watchlistId, body, { actor: actorOf(auth), now });
  return {
    status: 201,
    body: memberView(member),
    headers: { location: `/api/watchlist-manager/facewatchlists/${member.watchlistId}/watchlist-members/${member.id}` },
  };
});
