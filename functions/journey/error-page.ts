import { pickLanguage } from './messages/index.js';
import { renderGone } from './screens/gone.js';
import { renderTrouble } from './screens/trouble.js';

/**
 * The HTML page for a journey request that failed (the HTTP layer sends it instead of a JSON
 * error): "try again" for a server fault, "this link no longer works" for anything the end user
 * can do nothing about (not found, expired, refused). `lang` is the request's `lang` parameter.
 */
export function journeyErrorPage(status: number, lang: string | undefined): string {
  const language = pickLanguage(lang);
  return status >= 500 ? renderTrouble(language) : renderGone(language);
}
