import { escapeHtml, noticePage } from '../layout.js';
import { messages, type Language } from '../messages/index.js';

/** The end: a clear final page, and on to the relying party's `_redirectUrl` when it gave one. */
export function renderDone(input: { lang: Language; redirectUrl?: string | undefined }): string {
  const s = messages(input.lang);
  const back = input.redirectUrl ? `<p><a class="button" href="${escapeHtml(input.redirectUrl)}">${escapeHtml(s.doneReturn)}</a></p>` : '';
  return noticePage({
    lang: input.lang,
    title: s.doneTitle,
    text: s.doneText,
    after: back,
    ...(input.redirectUrl ? { redirect: { seconds: 3, url: input.redirectUrl } } : {}),
  });
}
