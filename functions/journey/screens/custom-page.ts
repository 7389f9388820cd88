import { escapeHtml, page, type PageChrome } from '../layout.js';
import { messages, type Language } from '../messages/index.js';

/** The fields the host page posts a page's SEND with: `arthr:event=SEND`, and `var:{name}` per variable. */
export const CUSTOM_PAGE_EVENT_FIELD = 'arthr:event';
export const CUSTOM_PAGE_SEND = 'SEND';
export { CUSTOM_PAGE_VARIABLE_PREFIX } from '../client/custom-page-send.js';

/** How often the host page asks whether the journey moved on without the page (the step's timer). */
export const CUSTOM_PAGE_FOLLOW_SECONDS = 15;

/** What a custom page step recorded when it began: the version it frames, where from, and what the page is told. */
export interface CustomPageFrame {
  page: { id: string; name: string; version: number };
  /** The frame's origin (the pages origin, or a base app URL's): the only one the host page talks to. */
  origin: string;
  indexUrl: string;
  /** The family's `constants`, less `language` (the page's, added when it is shown). */
  constants: Record<string, unknown>;
  sessionData: Record<string, unknown>;
}

/**
 * Everything a page may do in its frame, and no more: run its scripts, keep its own origin (the
 * pages origin is never a tenant's, so it reaches nothing of the journey's; its fonts, module
 * scripts and storage work as the family's pages expect), submit forms to itself, and open links
 * in a new window. It may not navigate the journey page, nor open modal dialogs over it.
 */
export const CUSTOM_PAGE_SANDBOX = 'allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox allow-downloads';

/** JSON inside `<script type="application/json">`: nothing in it can end the element or open a comment. */
function jsonInHtml(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/**
 * The host of a custom page: the relying party's page in a sandboxed frame from its own origin,
 * and the protocol the family's pages speak (client/custom-page.ts): the page says READY, the
 * host answers with `constants` and `sessionData`, the page SENDs its variables and the host
 * posts them to the step. What the page is told travels in a JSON element the host script reads
 * (no inline script: the CSP allows none). Without script nothing of this works: the page says so.
 * "Loading" sits over the frame, so the page does not move when it goes (a tap meant for the
 * page never lands beside it).
 */
export function renderCustomPage(input: { lang: Language; action: string; frame: CustomPageFrame; problem?: string | undefined; chrome?: PageChrome | undefined }): string {
  const s = messages(input.lang);
  const { frame } = input;
  const told = {
    origin: frame.origin,
    variables: { constants: { ...frame.constants, language: input.lang }, sessionData: frame.sessionData },
  };
  return page({
    lang: input.lang,
    chrome: input.chrome,
    title: s.customPageTitle,
    scripts: ['/journey/assets/custom-page.js'],
    refresh: { seconds: CUSTOM_PAGE_FOLLOW_SECONDS },
    body: `<style>main{max-width:48rem}.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}.custom-page-area{position:relative}.custom-page-area>p{position:absolute;top:1rem;left:0;right:0;margin:0;text-align:center}.custom-page-frame{display:block;width:100%;height:75vh;min-height:28rem;border:0}</style>
<h1 class="visually-hidden">${escapeHtml(s.customPageTitle)}</h1>
<div id="custom-page-problem" class="note note-error" role="alert"${input.problem ? '' : ' hidden'}><p>${escapeHtml(s.customPageRefused)}</p></div>
<div id="custom-page-stuck" class="note note-warning" role="alert" hidden><p>${escapeHtml(s.customPageStuck)}</p><button type="button" id="custom-page-reload" class="secondary">${escapeHtml(s.customPageReload)}</button></div>
<noscript><div class="note note-error"><p>${escapeHtml(s.customPageNoScript)}</p></div></noscript>
<div class="custom-page-area"><p id="custom-page-loading" role="status">${escapeHtml(s.customPageLoading)}</p><iframe id="custom-page" class="custom-page-frame" title="${escapeHtml(s.customPageFrame)}" src="${escapeHtml(frame.indexUrl)}" sandbox="${CUSTOM_PAGE_SANDBOX}" referrerpolicy="no-referrer" allow=""></iframe></div>
<form id="custom-page-form" method="post" action="${escapeHtml(input.action)}" hidden><input type="hidden" name="${CUSTOM_PAGE_EVENT_FIELD}" value="${CUSTOM_PAGE_SEND}"></form>
<script type="application/json" id="custom-page-told">${jsonInHtml(told)}</script>`,
  });
}
