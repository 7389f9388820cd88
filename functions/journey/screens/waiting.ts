import { noticePage } from '../layout.js';
import { messages, type Language } from '../messages/index.js';

/** Between steps (a service step is running): the page reloads itself until the next one waits. */
export function renderWaiting(lang: Language): string {
  const s = messages(lang);
  return noticePage({ lang, title: s.waitTitle, text: s.waitText, refreshSeconds: 2 });
}
