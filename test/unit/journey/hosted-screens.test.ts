import { describe, expect, it } from 'vitest';
import type { PageChrome } from '../../../functions/journey/layout.js';
import type { Language } from '../../../functions/journey/messages/index.js';
import { journeyErrorPage } from '../../../functions/journey/error-page.js';
import { renderDone } from '../../../functions/journey/screens/done.js';
import { renderGone } from '../../../functions/journey/screens/gone.js';
import { renderPasskey } from '../../../functions/journey/screens/passkey.js';
import { renderPaused } from '../../../functions/journey/screens/paused.js';
import { renderRedirect } from '../../../functions/journey/screens/redirect.js';
import { renderReview } from '../../../functions/journey/screens/review.js';
import { renderSwitchBack, renderSwitchFollow, renderSwitchHere, renderSwitchNotHere, renderSwitchToPhone } from '../../../functions/journey/screens/switch-device.js';
import { renderTrouble } from '../../../functions/journey/screens/trouble.js';
import { renderUnsupported } from '../../../functions/journey/screens/unsupported.js';
import { renderWaiting } from '../../../functions/journey/screens/waiting.js';

const presentation = { name: 'Nordbank', logoUrl: 'https://cdn.nordbank.example/l.png', supportEmail: 'help@nordbank.example', privacyUrl: 'https://nordbank.example/p' };
const atStep: PageChrome = { presentation, progress: [3, 6], languageHref: (l) => `/journey/x?c=c&lang=${l}` };
const noStep: PageChrome = { ...atStep, progress: undefined };

/** Every hosted screen these tests know, in a language, with the chrome its caller gives it: at a step (progress) or not. */
const SCREENS: Record<string, (lang: Language) => string> = {
  'switch to phone': (lang) => renderSwitchToPhone({ lang, link: 'https://demo.example/journey/x/switch?s=s', chrome: atStep }),
  'switch: following the phone': (lang) => renderSwitchFollow(lang, 'phone', noStep),
  'switch: following the computer': (lang) => renderSwitchFollow(lang, 'computer', noStep),
  'switch back to the computer': (lang) => renderSwitchBack(lang, atStep),
  'switch back on one device': (lang) => renderSwitchHere(lang, '/journey/x/steps/back', atStep),
  'switch: nothing to post': (lang) => renderSwitchNotHere(lang, '/journey/x', atStep),
  'passkey: create': (lang) => renderPasskey({ lang, mode: 'register', action: '/a', optionsUrl: '/o', chrome: atStep }),
  'passkey: sign in, refused': (lang) => renderPasskey({ lang, mode: 'authenticate', action: '/a', optionsUrl: '/o', failed: true, chrome: atStep }),
  paused: (lang) => renderPaused(lang, atStep),
  waiting: (lang) => renderWaiting(lang, noStep),
  unsupported: (lang) => renderUnsupported(lang, atStep),
  redirect: (lang) => renderRedirect(lang, 'https://nordbank.example/back', noStep),
  'done, back to the bank': (lang) => renderDone({ lang, redirectUrl: 'https://nordbank.example/back', chrome: noStep }),
  'review, back to the bank': (lang) => renderReview({ lang, redirectUrl: 'https://nordbank.example/back', chrome: noStep }),
  gone: (lang) => renderGone(lang, noStep),
  trouble: (lang) => renderTrouble(lang, noStep),
  'error page of a link that proved itself': (lang) => journeyErrorPage(410, lang, undefined, { presentation }),
  'too large, on a link that proved itself': (lang) => journeyErrorPage(413, lang, undefined, { presentation }),
};
const AT_STEP = new Set(['switch to phone', 'switch back to the computer', 'switch back on one device', 'switch: nothing to post', 'passkey: create', 'passkey: sign in, refused', 'paused', 'unsupported']);

/** The words a page shows (its text between tags and its attributes' labels), each a phrase. */
function phrases(html: string): string[] {
  const visible = html
    .replace(/<style>[\s\S]*?<\/style>/g, '')
    .split(/<[^>]*>/)
    .map((s) => s.trim())
    .filter(Boolean);
  const labels = [...html.matchAll(/(?:aria-label|alt|data-msg-[a-z-]+|data-sending)="([^"]+)"/g)].map((m) => m[1]!);
  return [...visible, ...labels];
}
/** What is the same in every language: the bank's, a language's own name, a link. */
const SAME = new Set(['Nordbank', 'English', 'Deutsch']);

describe('the hosted screens', () => {
  for (const [name, render] of Object.entries(SCREENS)) {
    it(`${name}: shows the relying party, its support and privacy notice, the language, and the progress only at a step`, () => {
      for (const lang of ['en', 'de'] as const) {
        const html = render(lang);
        expect(html).toContain(`<html lang="${lang}">`);
        expect(html).toContain('<header class="rp"');
        expect(html).toContain('<span>Nordbank</span>');
        expect(html).toContain('href="mailto:help@nordbank.example"');
        expect(html).toContain('href="https://nordbank.example/p"');
        expect(html.includes('<progress max="6" value="3"'), `${name} ${lang}: progress`).toBe(AT_STEP.has(name));
        // No meta refresh that reloads the page under its reader: only in <noscript>, or at once.
        for (const meta of html.match(/(?:<noscript>)?<meta http-equiv="refresh" content="([^"]*)">/g) ?? []) {
          expect(meta.startsWith('<noscript>') || /content="0;/.test(meta), `${name}: ${meta}`).toBe(true);
        }
      }
    });
  }

  it('leaves no English on a German page', () => {
    for (const [name, render] of Object.entries(SCREENS)) {
      const english = new Set(phrases(render('en')));
      const left = phrases(render('de')).filter((p) => english.has(p) && !SAME.has(p) && !/^[\d\s./:?=&a-z-]*$/.test(p) && !p.startsWith('https://'));
      expect(left, name).toEqual([]);
    }
  });
});

describe('journeyErrorPage', () => {
  it('names no relying party for a link that proved nothing', () => {
    for (const status of [404, 409, 410, 413, 500]) expect(journeyErrorPage(status, 'de')).not.toMatch(/<header|<footer|<progress/);
  });
});
