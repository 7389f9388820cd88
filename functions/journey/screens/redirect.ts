import { escapeHtml, noticePage, type PageChrome } from '../layout.js';
import { messages, type Language } from '../messages/index.js';

/**
 * On to where a Redirect User step sends the end user: a page that goes there at once (a meta
 * refresh, no script) with a link for a browser that does not follow it. The URL was judged by the
 * `_redirectUrl` rule when the step recorded it (an absolute http(s) URL), and the page sends no
 * Referer (its `referrer` policy), so the journey link's capability stays here.
 */
export function renderRedirect(lang: Language, url: string, chrome?: PageChrome): string {
  return noticePage(lang, 'redirect', {
    chrome,
    refresh: { seconds: 0, url },
    after: `<p><a class="button" href="${escapeHtml(url)}">${escapeHtml(messages(lang).redirectContinue)}</a></p>`,
  });
}
