import { pickLanguage } from './messages/index.js';
import { renderGone } from './screens/gone.js';
import { renderTrouble } from './screens/trouble.js';
import { noticePage } from './layout.js';

/**
 * The HTML page for a journey request that failed (the HTTP layer sends it instead of a JSON
 * error): "try again" for a server fault, "this link no longer works" for anything the end user
 * can do nothing about (not found, expired, refused), and for 413 "too much, shorten it": what
 * was sent is over a size limit (the body's, or the journey's session cap), and the step still
 * waits for a smaller answer. `lang` is the request's `lang` parameter, else its `Accept-Language`.
 */
export function journeyErrorPage(status: number, lang: string | undefined, acceptLanguage?: string): string {
  const language = pickLanguage(lang, acceptLanguage);
  if (status === 413) return noticePage(language, 'tooLarge');
  return status >= 500 ? renderTrouble(language) : renderGone(language);
}
