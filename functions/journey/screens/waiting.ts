import { noticePage, type PageChrome } from '../layout.js';
import type { Language } from '../messages/index.js';

/** Between steps (a service step is running): the page reloads itself until the next one waits. */
export function renderWaiting(lang: Language, chrome?: PageChrome): string {
  return noticePage(lang, 'wait', { chrome, refresh: { seconds: 2 } });
}
