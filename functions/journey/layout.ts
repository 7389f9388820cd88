import type { LocalizedText } from '../../statemachines/definition.js';
import { messages, type Language } from './messages/index.js';
import { own } from '../shared/own.js';

/**
 * The frame of the hosted journey pages, rendered on the server as plain HTML: no outside CDN,
 * no script on form pages (but the service's own, when a notification can be closed or hides
 * itself: screens/data-form.ts), readable at phone width, every field labelled and reachable by
 * keyboard. The screens (`screens/*.ts`) render their bodies into `page`.
 */

/** The text of a localized value in `lang`, falling back to its language, English, then any given. */
export function localized(text: LocalizedText | undefined, lang: string): string {
  if (!text) return '';
  const values = text.values as Record<string, string>;
  const base = lang.toLowerCase().split('-')[0]!;
  return own(values, lang) ?? own(values, base) ?? own(values, 'en') ?? Object.values(values)[0] ?? '';
}

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const CSS = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1f;background:#f4f5f7}
main{max-width:32rem;margin:0 auto;padding:1.25rem 1rem 3rem;overflow-wrap:anywhere}
h1{font-size:1.5rem;margin:.5rem 0 .25rem}p.sub{color:#4a4d55;margin:0 0 1.25rem}
form{background:#fff;border-radius:.75rem;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.field{margin-bottom:1.1rem}label{display:block;font-weight:600;margin-bottom:.3rem}
input,select,textarea{width:100%;font:inherit;padding:.7rem .75rem;border:1px solid #8a8f98;border-radius:.5rem;background:#fff}
input[type=checkbox]{width:auto;margin-right:.5rem;transform:scale(1.3)}
.check label{display:flex;align-items:center;font-weight:400}
input:focus,select:focus,textarea:focus,button:focus,a:focus{outline:3px solid #2563eb;outline-offset:2px}
.invalid input,.invalid select,.invalid textarea{border-color:#b42318}
.error{color:#b42318;font-size:.95rem;margin-top:.3rem}
.summary{border:2px solid #b42318;border-radius:.5rem;padding:.75rem 1rem;margin-bottom:1rem;background:#fff5f4}
.summary a{color:#b42318}
button,.button{display:block;width:100%;font:inherit;font-weight:600;padding:.85rem;border:0;border-radius:.5rem;background:#1d4ed8;color:#fff;text-align:center;text-decoration:none;cursor:pointer}
.hint{color:#4a4d55;font-size:.9rem}
.camera{margin-bottom:1.1rem}.camera video,.camera img{display:block;width:100%;max-height:60vh;object-fit:cover;border-radius:.5rem;background:#111;margin-bottom:.6rem}
.camera .secondary{background:#fff;color:#1d4ed8;border:2px solid #1d4ed8;margin-bottom:.6rem}
.buttons{display:flex;flex-direction:column;gap:.6rem}.buttons .secondary{background:#fff;color:#1d4ed8;border:2px solid #1d4ed8}
fieldset{border:0;margin:0;padding:0;min-width:0}legend{font-weight:600;margin-bottom:.3rem;padding:0}
.choice{display:flex;align-items:center;font-weight:400;margin:.35rem 0}input[type=radio]{width:auto;margin-right:.6rem;transform:scale(1.3)}
.readonly input,.readonly textarea{background:#f4f5f7;border-style:dashed}
.para{margin:0 0 1.1rem}.image{margin:0 0 1.1rem}.image img{display:block;max-width:100%;height:auto}
.note{border-left:4px solid #2563eb;background:#eff4ff;padding:.75rem 1rem;border-radius:.25rem;margin-bottom:1.1rem}
.note.closable{position:relative;padding-right:3.25rem}.note .note-close{position:absolute;top:.25rem;right:.25rem;width:2.75rem;height:2.75rem;padding:0;background:none;color:inherit;font-size:1.5rem;line-height:1}
.note-success{border-color:#067647;background:#ecfdf3}.note-warning{border-color:#b54708;background:#fffaeb}.note-error{border-color:#b42318;background:#fff5f4}
.status{margin:.4rem 0 .8rem}[hidden]{display:none!important}
.rules{margin:.2rem 0 1.1rem;padding-left:0;list-style:none}.rules li{padding-left:1.6rem;position:relative;margin:.2rem 0}
.rules li::before{content:'○';position:absolute;left:.2rem;color:#4a4d55}.rules li[data-ok=true]::before{content:'✓';color:#067647;font-weight:700}`;

export interface PageInput {
  lang: Language;
  title: string;
  body: string;
  /** Same-origin scripts the page loads (the journey pages' own; the CSP allows no others). */
  scripts?: string[];
  /** Reload the page after `seconds`, or go on to `url` then. */
  refresh?: { seconds: number; url?: string };
}

export function page(input: PageInput): string {
  return `<!doctype html>
<html lang="${input.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${input.refresh ? `<meta http-equiv="refresh" content="${input.refresh.seconds}${input.refresh.url ? `;url=${escapeHtml(input.refresh.url)}` : ''}">` : ''}
<title>${escapeHtml(input.title)}</title>
<style>${CSS}</style>
${(input.scripts ?? []).map((src) => `<script src="${escapeHtml(src)}" defer></script>`).join('\n')}
</head>
<body>
<main>
${input.body}
</main>
</body>
</html>`;
}

/** The pages that only say something: each is its messages `<name>Title` and `<name>Text`. */
export type Notice = 'done' | 'gone' | 'paused' | 'redirect' | 'review' | 'trouble' | 'tooLarge' | 'unsupported' | 'wait';

/** A notice page: a heading, a paragraph, and what `after` adds (a link). */
export function noticePage(lang: Language, notice: Notice, options: Pick<PageInput, 'refresh'> & { after?: string } = {}): string {
  const s = messages(lang);
  const title = s[`${notice}Title`];
  return page({ ...options, lang, title, body: `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(s[`${notice}Text`])}</p>${options.after ?? ''}` });
}

/**
 * The box above a refused form that says what to correct: each error is the id of its field
 * and its message, shown as a link to the field; `role="alert"` so screen readers announce it.
 * Empty when there is nothing to correct.
 */
export function errorSummary(lang: Language, errors: (readonly [target: string, message: string])[], id = ''): string {
  return errors.length
    ? `<div class="summary" role="alert" tabindex="-1"${id && ` id="${id}"`}><p>${escapeHtml(messages(lang).errorSummary)}</p><ul>${errors
        .map(([target, message]) => `<li><a href="#${escapeHtml(target)}">${escapeHtml(message)}</a></li>`)
        .join('')}</ul></div>`
    : '';
}

/**
 * Test mode (docs/sandbox.md): a banner first in the page's main content, on every page of a
 * test-mode instance, so nobody takes a test journey (whose outcomes may be forced) for a real
 * one. Self-contained (its words and its style here) so the pages' layout can change around it.
 */
const TEST_MODE_TEXT: Readonly<Record<string, string>> = {
  en: 'Test mode: this journey is a test. Its results may be forced and are not real checks.',
  de: 'Testmodus: Diese Sitzung ist ein Test. Ihre Ergebnisse können vorgegeben sein und sind keine echten Prüfungen.',
};

export function withTestModeBanner(html: string, lang: Language): string {
  const text = own(TEST_MODE_TEXT, lang) ?? TEST_MODE_TEXT.en!;
  const banner =
    '<p class="test-mode" role="note" data-test-mode="true" style="margin:0 0 1.1rem;padding:.6rem .9rem;border:2px solid #b54708;' +
    `border-radius:.35rem;background:#fffaeb;color:#7a2e0e;font-weight:600">${escapeHtml(text)}</p>`;
  return html.replace(/<main([^>]*)>/, (open) => `${open}\n${banner}`);
}
