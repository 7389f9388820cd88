import { passcodeRules, type PasscodeRequirements } from '../../identity-store/passcodes/passcode-rules.js';
import { errorSummary, escapeHtml, page, type PageChrome } from '../layout.js';
import { framedHeading, type ScreenFrame } from './frame.js';
import { fill, messages, type Language, type Messages } from '../messages/index.js';

/**
 * The passcode registration screen. The passcode fields have no name: the browser never sends
 * them. The page's script checks the policy's rules as the end user types (each rule is a list
 * item the script marks met) and sends only the SRP verifier (and, under a history rule, the
 * new passcode's verifier under each earlier salt). Without script the step cannot be done,
 * and the page says so.
 */
export function renderPasscodeRegistration(input: {
  lang: Language;
  action: string;
  srp: Record<string, unknown>;
  requirements: PasscodeRequirements;
  error?: 'reused' | 'failed';
  /** A data form the screen is shown in: its title, subtitle and fields around the passcode entry. */
  frame?: ScreenFrame;
  chrome?: PageChrome | undefined;
}): string {
  const s = messages(input.lang);
  const rules = passcodeRules('', input.requirements)
    .map((r) => {
      // A rule the policy words itself keeps its wording; the others get this language's.
      const text = r.message ?? fill(s[`rule_${r.id}` as keyof Messages] ?? r.id, r.count);
      return `<li data-rule="${escapeHtml(r.id)}" data-ok="false">${escapeHtml(text)}</li>`;
    })
    .join('');
  const message = input.error === 'reused' ? s.pcReused : input.error ? s.pcFailed : undefined;
  return page({
    lang: input.lang,
    chrome: input.chrome,
    title: input.frame?.title || s.pcTitle,
    scripts: ['/journey/assets/passcode.js', ...(input.frame?.scripts ?? [])],
    body: `${framedHeading(input.frame, s.pcTitle, s.pcText, s.pcStays)}
<form method="post" action="${escapeHtml(input.action)}" id="passcode-form" data-mode="register" data-srp="${escapeHtml(JSON.stringify(input.srp))}" data-requirements="${escapeHtml(JSON.stringify(input.requirements))}" data-msg-mismatch="${escapeHtml(s.pcMismatch)}" data-msg-unmet="${escapeHtml(s.pcUnmet)}" data-msg-summary="${escapeHtml(s.errorSummary)}" novalidate>
<noscript><div class="summary">${escapeHtml(s.pcNoScript)}</div></noscript>
${errorSummary(input.lang, [...(input.frame?.errors ?? []), ...(message ? [['pc-new', message] as const] : [])], 'pc-summary')}
${input.frame?.fields ?? ''}
<div class="field"><label for="pc-new">${escapeHtml(s.pcNew)}</label><input type="password" id="pc-new" autocomplete="new-password" aria-describedby="pc-rules-title"></div>
<p class="hint" id="pc-rules-title">${escapeHtml(s.pcRules)}</p>
<ul class="rules" id="pc-rules" aria-live="polite">${rules}</ul>
<div class="field"><label for="pc-confirm">${escapeHtml(s.pcConfirm)}</label><input type="password" id="pc-confirm" autocomplete="new-password"></div>
<input type="hidden" name="verifier" value="">
<input type="hidden" name="historyVerifiers" value="">
<button type="submit">${escapeHtml(s.continue)}</button>
</form>`,
  });
}
