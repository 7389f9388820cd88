import { escapeHtml, page, type PageChrome } from '../layout.js';
import { messages, type Language } from '../messages/index.js';

/**
 * A passkey screen: when the end user presses the button, the page's script gets a ceremony
 * (its id and WebAuthn options) from `optionsUrl`, runs it in the browser
 * (@simplewebauthn/browser), and posts the browser's response with the ceremony's id.
 */
export function renderPasskey(input: { lang: Language; mode: 'register' | 'authenticate'; action: string; optionsUrl: string; failed?: boolean; chrome?: PageChrome | undefined }): string {
  const s = messages(input.lang);
  const [title, text, button] = input.mode === 'register' ? [s.pkRegTitle, s.pkRegText, s.pkRegButton] : [s.pkAuthTitle, s.pkAuthText, s.pkAuthButton];
  return page({
    lang: input.lang,
    chrome: input.chrome,
    title,
    scripts: ['/journey/assets/passkey.js'],
    body: `<h1>${escapeHtml(title)}</h1><p class="sub">${escapeHtml(text)}</p>
<form method="post" action="${escapeHtml(input.action)}" id="passkey-form" data-mode="${input.mode}" data-options-url="${escapeHtml(input.optionsUrl)}" data-msg-unsupported="${escapeHtml(s.pkUnsupported)}" data-msg-cancelled="${escapeHtml(s.pkCancelled)}" novalidate>
<noscript><div class="summary">${escapeHtml(s.pkUnsupported)}</div></noscript>
${input.failed ? `<div class="summary" role="alert" tabindex="-1" autofocus id="pk-summary"><p>${escapeHtml(s.pkFailed)}</p></div>` : ''}
<p class="status" id="pk-status" role="status" aria-live="polite"></p>
<input type="hidden" name="sessionId" value="">
<input type="hidden" name="response" value="">
<button type="submit">${escapeHtml(button)}</button>
</form>`,
  });
}
