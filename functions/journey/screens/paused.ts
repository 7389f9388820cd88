import { noticePage, type PageChrome } from '../layout.js';
import type { Language } from '../messages/index.js';

/** How often the paused page looks again, so a page left open goes on once the journey is resumed. */
export const PAUSED_REFRESH_SECONDS = 20;

/**
 * The journey is paused (Waiting for Resume): the end user may close the page. Left open, it
 * reloads now and then and shows the next step once the journey is resumed.
 */
export function renderPaused(lang: Language, chrome?: PageChrome): string {
  return noticePage(lang, 'paused', { chrome, refresh: { seconds: PAUSED_REFRESH_SECONDS } });
}
