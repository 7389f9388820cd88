import { pickLanguage } from './messages/index.js';
import { renderGone } from './screens/gone.js';
import { renderTrouble } from './screens/trouble.js';
import { noticePage, type PageChrome } from './layout.js';

/**
 * The HTML page for a journey request that failed (the HTTP layer sends it instead of a JSON
 * error): "try again" for a server fault, "this link no longer works" for anything the end user
 * can do nothing about (not found, expired, refused), and for 413 "too much, shorten it": what
 * was sent is over a size limit (the body's, or the journey's session cap), and the step still
 * waits for a smaller answer. `lang` is the request's `lang` parameter, else its `Accept-Language`;
 * `chrome`, for a link that proved itself: the relying party's.
 */
export function journeyErrorPage(status: number, lang: string | undefined, acceptLanguage?: string, chrome?: PageChrome): string {
  const language = pickLanguage(lang, acceptLanguage);
  if (status === 413) return noticePage(language, 'tooLarge', { chrome });
  return status >= 500 ? renderTrouble(language, chrome) : renderGone(language, chrome);
}
