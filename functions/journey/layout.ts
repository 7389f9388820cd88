import { createHash } from 'node:crypto';
import type { LocalizedText } from '../../statemachines/definition.js';
import { isHttpsUrl, type Presentation } from '../../statemachines/presentation.js';
import { fill, LANGUAGES, messages, type Language } from './messages/index.js';
import { own } from '../shared/own.js';
import type { JourneyTheme } from '../process-manager/model.js';
import { defaultProperties, isThemeAssetPath, themeStyle } from './theme-style.js';

/**
 * The frame of the hosted journey pages, rendered on the server as plain HTML: no outside CDN,
 * no script but the service's own (the sending state on every form: PAGE_SCRIPT; a screen's own),
 * readable at phone width, every field labelled and reachable by keyboard. The screens
 * (`screens/*.ts`) render their bodies into `page`, which puts the chrome around them (PageChrome).
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

/**
 * The pages' style. Its colours and font are the custom properties of theme-style.ts, whose
 * defaults (DEFAULT_PALETTE) are the pages' own look and which a theme sets (themeStyle).
 */
const CSS = `${defaultProperties()}
:root{--summary-bg:#fff5f4;--note-bg:#eff4ff;--note-success-bg:#ecfdf3;--note-warning-bg:#fffaeb;--note-error-bg:#fff5f4}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 var(--font);color:var(--text);background:var(--page-bg)}
main{max-width:32rem;margin:0 auto;padding:1.25rem 1rem 3rem;overflow-wrap:anywhere}
h1{font-size:1.5rem;margin:.5rem 0 .25rem}p.sub{color:var(--text2);margin:0 0 1.25rem}
a{color:var(--link)}
form{background:var(--surface);border-radius:.75rem;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.field{margin-bottom:1.1rem}label{display:block;font-weight:600;margin-bottom:.3rem}
input,select,textarea{width:100%;font:inherit;padding:.7rem .75rem;border:1px solid var(--input-border);border-radius:.5rem;background:var(--input-bg);color:var(--input-text)}
::placeholder{color:var(--input-placeholder);opacity:1}
input[type=checkbox]{width:auto;margin-right:.5rem;transform:scale(1.3);accent-color:var(--primary)}
.check label{display:flex;align-items:center;font-weight:400}
button:focus,a:focus{outline:3px solid var(--primary);outline-offset:2px}
input:focus,select:focus,textarea:focus{outline:3px solid var(--input-focus);outline-offset:2px}
.invalid input,.invalid select,.invalid textarea{border-color:var(--error)}
.error{color:var(--error);font-size:.95rem;margin-top:.3rem}
.summary{border:2px solid var(--error);border-radius:.5rem;padding:.75rem 1rem;margin-bottom:1rem;background:var(--summary-bg)}
.summary a{color:var(--error)}
button,.button{display:block;width:100%;font:inherit;font-weight:600;padding:.85rem;border:0;border-radius:.5rem;background:var(--button-bg);color:var(--button-text);text-align:center;text-decoration:none;cursor:pointer}
.hint{color:var(--text2);font-size:.9rem}
.camera{margin-bottom:1.1rem}.camera video,.camera img{display:block;width:100%;max-height:60vh;object-fit:cover;border-radius:.5rem;background:var(--camera-bg);margin-bottom:.6rem}
.camera.document img{background:var(--document-bg)}
.doc-view{position:relative;overflow:hidden;border-radius:.5rem;margin-bottom:.6rem;background:var(--camera-bg)}.doc-view video{object-fit:contain;margin:0;border-radius:0}
.doc-guide{position:absolute;left:50%;top:50%;width:88%;max-height:94%;aspect-ratio:1.58;transform:translate(-50%,-50%);border:3px solid var(--surface);border-radius:.6rem;box-shadow:0 0 0 2px var(--camera-bg);pointer-events:none}
.camera .secondary{background:var(--button2-bg);color:var(--button2-text);border:2px solid var(--button2-text);margin-bottom:.6rem}
.buttons{display:flex;flex-direction:column;gap:.6rem}.buttons .secondary{background:var(--button2-bg);color:var(--button2-text);border:2px solid var(--button2-text)}
fieldset{border:0;margin:0;padding:0;min-width:0}legend{font-weight:600;margin-bottom:.3rem;padding:0}
.choice{display:flex;align-items:center;font-weight:400;margin:.35rem 0}input[type=radio]{width:auto;margin-right:.6rem;transform:scale(1.3);accent-color:var(--primary)}
.readonly input,.readonly textarea{background:var(--page-bg);color:var(--text);border-style:dashed}
.para{margin:0 0 1.1rem}.image{margin:0 0 1.1rem}.image img{display:block;max-width:100%;height:auto}
.note{border-left:4px solid var(--primary);background:var(--note-bg);padding:.75rem 1rem;border-radius:.25rem;margin-bottom:1.1rem}
.note.closable{position:relative;padding-right:3.25rem}.note .note-close{position:absolute;top:.25rem;right:.25rem;width:2.75rem;height:2.75rem;padding:0;background:none;color:inherit;font-size:1.5rem;line-height:1}
.note-success{border-color:var(--success);background:var(--note-success-bg)}.note-warning{border-color:#b54708;background:var(--note-warning-bg)}.note-error{border-color:var(--error);background:var(--note-error-bg)}
.status{margin:.4rem 0 .8rem}[hidden]{display:none!important}
.rules{margin:.2rem 0 1.1rem;padding-left:0;list-style:none}.rules li{padding-left:1.6rem;position:relative;margin:.2rem 0}
.rules li::before{content:'○';position:absolute;left:.2rem;color:var(--text2)}.rules li[data-ok=true]::before{content:'✓';color:var(--success);font-weight:700}
.rp{display:flex;align-items:center;gap:.6rem;padding:.75rem max(1rem,calc(50% - 15rem));font-weight:600;background:var(--header-bg);color:var(--header-text)}.rp img{max-height:40px;max-width:10rem;width:auto}
.progress{margin:.25rem 0 .5rem;color:var(--text2);font-size:.9rem}
.progress progress{display:block;width:100%;height:.5rem;appearance:none;border:0;border-radius:.25rem;background:var(--progress-track);color:var(--progress-fill);overflow:hidden}
.progress progress::-webkit-progress-bar{background:var(--progress-track)}.progress progress::-webkit-progress-value{background:var(--progress-fill)}.progress progress::-moz-progress-bar{background:var(--progress-fill)}
footer{max-width:32rem;margin:0 auto;padding:0 1rem 2rem;font-size:.9rem;color:var(--text2)}footer ul{list-style:none;padding:0;margin:.25rem 0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
.consent{background:var(--surface);border:1px solid #c9ccd3;border-radius:.5rem;padding:.75rem 1rem;margin-bottom:1.1rem}.consent h2{font-size:1.1rem;margin:0 0 .4rem}
button[aria-busy=true],button:disabled{opacity:.75;cursor:progress}
form:has(#face-consent:not(:checked)) .capture{display:none}form:has(#face-consent:checked) #consent-hint{display:none}
img.chosen{display:block;max-width:100%;max-height:40vh;margin-top:.6rem;border-radius:.5rem}
.stage{position:fixed;inset:0;z-index:10;display:flex;flex-direction:column;align-items:center;justify-content:center;gap:1rem;padding:1rem;background:#fff;color:#111}
.stage video{width:min(80vw,24rem);aspect-ratio:3/4;object-fit:cover;transform:scaleX(-1);border-radius:50%/40%;background:var(--camera-bg)}
.stage .prompt{font-size:1.4rem;font-weight:700;text-align:center;margin:0;padding:.5rem 1rem;background:#fff;color:#111;border-radius:.5rem;min-height:2.2em}
@media (prefers-reduced-motion:no-preference){.stage .prompt{transition:opacity .2s}}`;

/**
 * What every journey page shows around its screen: who it is for (the relying party's name and
 * logo above, its support contact and privacy notice below), where the step stands in the journey,
 * and a switch to the page in another language. Each part is optional (an error page knows no
 * journey); a new part (a test mode banner) is one more member and one more line in `page`.
 */
export interface PageChrome {
  presentation?: Presentation | undefined;
  /** The step's number and the estimated total (statemachines/progress.ts). */
  progress?: readonly [n: number, of: number] | undefined;
  /** This page in another language (the language switch); absent: no switch. */
  languageHref?: ((lang: Language) => string) | undefined;
  /** The relying party's theme (the instance's, theme-style.ts): its colours, font and logo. */
  theme?: JourneyTheme | undefined;
}

export interface PageInput {
  lang: Language;
  title: string;
  body: string;
  /** Same-origin scripts the page loads (the journey pages' own; the CSP allows no others). */
  scripts?: string[];
  /**
   * Look again after `seconds` (the page follows where the journey goes: it reloads once what it
   * shows has changed), or go on to `url` then; at 0 seconds, go on at once.
   */
  refresh?: { seconds: number; url?: string };
  chrome?: PageChrome | undefined;
}

/**
 * The script every page with a form or that waits loads: its submit button shows that the form
 * is being sent, a waiting page follows the journey (client/page.ts). Pages work without it.
 */
export const PAGE_SCRIPT = '/journey/assets/page.js';

/**
 * The relying party above the page: its logo and name. The logo is the theme's (same origin,
 * its path checked again) or else the presentation's (an https URL, checked again here as a page
 * must never carry another source).
 */
function header(lang: Language, p: Presentation | undefined, theme: JourneyTheme | undefined): string {
  const themed = theme?.logo && isThemeAssetPath(theme.logo.url) ? theme.logo.url : undefined;
  const src = themed ?? (p?.logoUrl && isHttpsUrl(p.logoUrl) ? p.logoUrl : undefined);
  if (!p && !themed) return '';
  // Beside the name the logo is decorative, the name says the same: an empty alt keeps screen
  // readers from reading it twice. Alone (a theme, no presentation), it is named by the theme.
  const alt = p ? '' : theme!.name;
  const logo = src ? `<img src="${escapeHtml(src)}" alt="${escapeHtml(alt)}" height="40" referrerpolicy="no-referrer" decoding="async">` : '';
  return `<header class="rp" aria-label="${escapeHtml(messages(lang).chromeFrom)}">${logo}${p ? `<span>${escapeHtml(p.name)}</span>` : ''}</header>`;
}

function progressBar(lang: Language, progress: PageChrome['progress']): string {
  if (!progress) return '';
  const [n, of] = progress;
  const s = messages(lang);
  const label = fill(s.progressLabel, n);
  return `<div class="progress"><span aria-hidden="true">${escapeHtml(label)}</span><progress max="${of}" value="${n}" aria-label="${escapeHtml(s.progressOf.replace('{n}', String(n)).replace('{of}', String(of)))}"></progress></div>`;
}

/** Below the page: the relying party's support contact and privacy notice, and the language switch. */
function footer(lang: Language, chrome: PageChrome | undefined): string {
  const s = messages(lang);
  const p = chrome?.presentation;
  const links: string[] = [];
  if (p?.supportEmail) links.push(`<li><a href="mailto:${escapeHtml(p.supportEmail)}">${escapeHtml(s.chromeEmail.replace('{email}', p.supportEmail))}</a></li>`);
  if (p?.supportUrl && isHttpsUrl(p.supportUrl)) links.push(`<li><a href="${escapeHtml(p.supportUrl)}" rel="noreferrer">${escapeHtml(s.chromeHelp)}</a></li>`);
  if (p?.privacyUrl && isHttpsUrl(p.privacyUrl)) links.push(`<li><a href="${escapeHtml(p.privacyUrl)}" rel="noreferrer">${escapeHtml(s.chromePrivacy)}</a></li>`);
  const support = links.length ? `<nav aria-label="${escapeHtml(s.chromeSupport)}"><ul>${links.join('')}</ul></nav>` : '';
  const href = chrome?.languageHref;
  // Each language named in itself, marked in its language, so a reader of that language finds it.
  const switcher = href
    ? `<nav aria-label="${escapeHtml(s.chromeLanguage)}"><ul>${LANGUAGES.map(
        (l) => `<li><a href="${escapeHtml(href(l))}" lang="${l}" hreflang="${l}"${l === lang ? ' aria-current="true"' : ''}>${escapeHtml(messages(l).languageName)}</a></li>`,
      ).join('')}</ul></nav>`
    : '';
  return support || switcher ? `<footer>${support}${switcher}</footer>` : '';
}

/**
 * What a waiting page shows, as the server rendered it: a digest of its `<main>`. The page script
 * compares it with the one of the page it fetches again (client/follow.ts), never with the live
 * document, which the page's own scripts change (a custom page's host hides its "Loading" once
 * the page is ready: compared as it stood, that read as a change and reloaded the page, and the
 * end user's input in it, every few seconds).
 */
export function shownStamp(main: string): string {
  return createHash('sha256').update(main).digest('base64url').slice(0, 22);
}

/**
 * How a page looks again or goes on. At once: a meta refresh. After a delay: the page script
 * (client/follow.ts), which reloads only when what the page shows has changed and lets the end
 * user stay rather than be taken away, as a meta refresh that reloads the page under a reader
 * every few seconds would not (WCAG 2.2.1, axe-core's `meta-refresh`); without script, the meta
 * refresh in `<noscript>` does it as before.
 */
function refreshing(refresh: PageInput['refresh'], shows: string): { head: string; body: string } {
  if (!refresh) return { head: '', body: '' };
  const meta = `<meta http-equiv="refresh" content="${refresh.seconds}${refresh.url ? `;url=${escapeHtml(refresh.url)}` : ''}">`;
  if (refresh.seconds === 0) return { head: meta, body: '' };
  if (refresh.url) return { head: `<noscript>${meta}</noscript>`, body: ` data-refresh="${refresh.seconds}" data-refresh-url="${escapeHtml(refresh.url)}"` };
  return { head: `<noscript>${meta}</noscript>`, body: ` data-refresh="${refresh.seconds}" data-shown="${shownStamp(shows)}"` };
}

export function page(input: PageInput): string {
  const { chrome } = input;
  const main = `${progressBar(input.lang, chrome?.progress)}
${input.body}`;
  const refresh = refreshing(input.refresh, main);
  // Every page with a form gets the sending state, every page that waits follows; scripts the screen names come first.
  const scripts = [...(input.scripts ?? []), ...(input.body.includes('<form') || refresh.body ? [PAGE_SCRIPT] : [])];
  return `<!doctype html>
<html lang="${input.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${refresh.head}
<title>${escapeHtml(chrome?.presentation ? `${input.title} – ${chrome.presentation.name}` : input.title)}</title>
<style>${CSS}</style>${themeStyle(chrome?.theme)}
${[...new Set(scripts)].map((src) => `<script src="${escapeHtml(src)}" defer></script>`).join('\n')}
</head>
<body data-sending="${escapeHtml(messages(input.lang).sending)}"${refresh.body}>
${header(input.lang, chrome?.presentation, chrome?.theme)}
<main>
${main}
</main>
${footer(input.lang, chrome)}
</body>
</html>`;
}

/** The pages that only say something: each is its messages `<name>Title` and `<name>Text`. */
export type Notice = 'done' | 'gone' | 'paused' | 'redirect' | 'review' | 'trouble' | 'tooLarge' | 'unsupported' | 'wait';

/** A notice page: a heading, a paragraph, and what `after` adds (a link). */
export function noticePage(lang: Language, notice: Notice, options: Pick<PageInput, 'refresh' | 'chrome'> & { after?: string } = {}): string {
  const s = messages(lang);
  const title = s[`${notice}Title`];
  const { after, ...rest } = options;
  return page({ ...rest, lang, title, body: `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(s[`${notice}Text`])}</p>${after ?? ''}` });
}

/**
 * The end's way back to the relying party (`_redirectUrl`): a button, and with script a note that
 * the page goes there by itself in a moment with a button to stay (client/follow.ts shows them).
 */
export function returnToSite(lang: Language, url: string): string {
  const s = messages(lang);
  return (
    `<p><a class="button" href="${escapeHtml(url)}">${escapeHtml(s.doneReturn)}</a></p>` +
    `<div id="redirect-controls" class="buttons" hidden><p class="hint" role="status">${escapeHtml(s.redirectSoon)}</p>` +
    `<button type="button" class="secondary" id="redirect-stay">${escapeHtml(s.redirectStay)}</button></div>`
  );
}

/** A refused field for the error summary: the id of its field, its message and, when it has one, the field's name as labelled. */
export type SummaryError = readonly [target: string, message: string, field?: string];

/**
 * The box above a refused form that says what to correct: each error names its field and says
 * what is wrong ("Last name: This field is required."), as a link to the field. `role="alert"`
 * so screen readers announce it, and `autofocus` (it is focusable, tabindex -1) so the page
 * opens on it, without script: the next Tab goes on from it to the first link. Empty when
 * there is nothing to correct.
 */
export function errorSummary(lang: Language, errors: SummaryError[], id = ''): string {
  return errors.length
    ? `<div class="summary" role="alert" tabindex="-1" autofocus${id && ` id="${id}"`}><p>${escapeHtml(messages(lang).errorSummary)}</p><ul>${errors
        .map(([target, message, field]) => `<li><a href="#${escapeHtml(target)}">${escapeHtml(field ? fieldMessage(lang, field, message) : message)}</a></li>`)
        .join('')}</ul></div>`
    : '';
}

/** "Last name: This field is required." in the page's language. */
export function fieldMessage(lang: Language, field: string, message: string): string {
  return messages(lang).summaryItem.replace('{field}', field).replace('{message}', message);
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
