import { noticePage, type PageChrome } from '../layout.js';
import type { Language } from '../messages/index.js';

/** A link that no longer leads anywhere: expired, not valid, or its journey terminated. */
export function renderGone(lang: Language, chrome?: PageChrome): string {
  return noticePage(lang, 'gone', { chrome });
}
