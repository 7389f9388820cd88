import { errorSummary, escapeHtml, page, type PageChrome } from '../layout.js';
import { framedHeading, type ScreenFrame } from './frame.js';
import { fill, messages, type Language } from '../messages/index.js';

/** The passcode authentication screen: the script proves the passcode with the SRP handshake (A, M1). */
export function renderPasscodeAuthentication(input: {
  lang: Language;
  action: string;
  challenge: Record<string, unknown> & { attemptsLeft: number };
  wrong?: boolean;
  /** A data form the screen is shown in: its title, subtitle and fields around the passcode entry. */
  frame?: ScreenFrame;
  chrome?: PageChrome | undefined;
}): string {
  const s = messages(input.lang);
  return page({
    lang: input.lang,
    chrome: input.chrome,
    title: input.frame?.title || s.pcAuthTitle,
    scripts: ['/journey/assets/passcode.js', ...(input.frame?.scripts ?? [])],
    body: `${framedHeading(input.frame, s.pcAuthTitle, s.pcAuthText, s.pcStays)}
<form method="post" action="${escapeHtml(input.action)}" id="passcode-form" data-mode="authenticate" data-srp="${escapeHtml(JSON.stringify(input.challenge))}" data-msg-empty="${escapeHtml(s.pcEmpty)}" data-msg-summary="${escapeHtml(s.errorSummary)}" novalidate>
<noscript><div class="summary">${escapeHtml(s.pcNoScript)}</div></noscript>
${errorSummary(input.lang, [...(input.frame?.errors ?? []), ...(input.wrong ? [['pc-current', fill(s.pcWrong, input.challenge.attemptsLeft)] as const] : [])], 'pc-summary')}
${input.frame?.fields ?? ''}
<div class="field"><label for="pc-current">${escapeHtml(s.pcNew)}</label><input type="password" id="pc-current" autocomplete="current-password"></div>
<input type="hidden" name="A" value="">
<input type="hidden" name="M1" value="">
<button type="submit">${escapeHtml(s.continue)}</button>
</form>`,
  });
}
