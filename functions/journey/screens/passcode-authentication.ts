import { errorSummary, escapeHtml, page } from '../layout.js';
import { fill, messages, type Language } from '../messages/index.js';

/** The passcode authentication screen: the script proves the passcode with the SRP handshake (A, M1). */
export function renderPasscodeAuthentication(input: {
  lang: Language;
  action: string;
  challenge: Record<string, unknown> & { attemptsLeft: number };
  wrong?: boolean;
}): string {
  const s = messages(input.lang);
  return page({
    lang: input.lang,
    title: s.pcAuthTitle,
    scripts: ['/journey/assets/passcode.js'],
    body: `<h1>${escapeHtml(s.pcAuthTitle)}</h1><p class="sub">${escapeHtml(s.pcAuthText)}</p>
<form method="post" action="${escapeHtml(input.action)}" id="passcode-form" data-mode="authenticate" data-srp="${escapeHtml(JSON.stringify(input.challenge))}" data-msg-empty="${escapeHtml(s.pcEmpty)}" data-msg-summary="${escapeHtml(s.errorSummary)}" novalidate>
<noscript><div class="summary">${escapeHtml(s.pcNoScript)}</div></noscript>
${errorSummary(input.lang, input.wrong ? [['pc-current', fill(s.pcWrong, input.challenge.attemptsLeft)]] : [], 'pc-summary')}
<div class="field"><label for="pc-current">${escapeHtml(s.pcNew)}</label><input type="password" id="pc-current" autocomplete="current-password"></div>
<input type="hidden" name="A" value="">
<input type="hidden" name="M1" value="">
<button type="submit">${escapeHtml(s.continue)}</button>
</form>`,
  });
}
