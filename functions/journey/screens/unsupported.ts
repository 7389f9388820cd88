import { noticePage } from '../layout.js';
import { messages, type Language } from '../messages/index.js';

/** A user step these pages cannot run yet: its UI component has no screen. */
export function renderUnsupported(lang: Language): string {
  const s = messages(lang);
  return noticePage({ lang, title: s.unsupportedTitle, text: s.unsupportedText });
}
