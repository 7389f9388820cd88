import { noticePage } from '../layout.js';
import { messages, type Language } from '../messages/index.js';

/** A link that no longer leads anywhere: expired, not valid, or its journey terminated. */
export function renderGone(lang: Language): string {
  const s = messages(lang);
  return noticePage({ lang, title: s.goneTitle, text: s.goneText });
}
