import { noticePage, returnToSite, type PageChrome } from '../layout.js';
import type { Language } from '../messages/index.js';

/**
 * The end user's part is over and a reviewer decides (Review Required, Waiting for B/O review):
 * a final page saying the application is being reviewed, which never waits for the back office;
 * on to the relying party's `_redirectUrl` when it gave one, as the end of a journey does.
 */
export function renderReview(input: { lang: Language; redirectUrl?: string | undefined; chrome?: PageChrome | undefined }): string {
  const { lang, redirectUrl, chrome } = input;
  if (!redirectUrl) return noticePage(lang, 'review', { chrome });
  return noticePage(lang, 'review', {
    chrome,
    refresh: { seconds: 3, url: redirectUrl },
    after: returnToSite(lang, redirectUrl),
  });
}
