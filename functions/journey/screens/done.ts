import { noticePage, returnToSite, type PageChrome } from '../layout.js';
import type { Language } from '../messages/index.js';

/** The end: a clear final page, and on to the relying party's `_redirectUrl` when it gave one. */
export function renderDone(input: { lang: Language; redirectUrl?: string | undefined; chrome?: PageChrome | undefined }): string {
  const { lang, redirectUrl, chrome } = input;
  if (!redirectUrl) return noticePage(lang, 'done', { chrome });
  return noticePage(lang, 'done', {
    chrome,
    refresh: { seconds: 3, url: redirectUrl },
    after: returnToSite(lang, redirectUrl),
  });
}
