import { noticePage, type PageChrome } from '../layout.js';
import type { Language } from '../messages/index.js';

/** A user step these pages cannot run yet: its UI component has no screen. */
export function renderUnsupported(lang: Language, chrome?: PageChrome): string {
  return noticePage(lang, 'unsupported', { chrome });
}
