import { noticePage, type PageChrome } from '../layout.js';
import type { Language } from '../messages/index.js';

/** Something failed on our side (a 5xx, a journey that ended in a process error): try again later. */
export function renderTrouble(lang: Language, chrome?: PageChrome): string {
  return noticePage(lang, 'trouble', { chrome });
}
