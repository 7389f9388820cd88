import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../functions/journey/layout.js';
import { LANGUAGES, messages, pickLanguage } from '../../functions/journey/messages/index.js';
import { en } from '../../functions/journey/messages/en.js';
import { renderDataForm } from '../../functions/journey/screens/data-form.js';
import { renderDone } from '../../functions/journey/screens/done.js';
import { renderFaceCapture } from '../../functions/journey/screens/face-capture.js';
import { renderGone } from '../../functions/journey/screens/gone.js';
import { renderPasscodeAuthentication } from '../../functions/journey/screens/passcode-authentication.js';
import { renderPasscodeRegistration } from '../../functions/journey/screens/passcode-registration.js';
import { renderPasskey } from '../../functions/journey/screens/passkey.js';
import { renderTrouble } from '../../functions/journey/screens/trouble.js';
import { renderUnsupported } from '../../functions/journey/screens/unsupported.js';
import { renderWaiting } from '../../functions/journey/screens/waiting.js';
import { journeyErrorPage } from '../../functions/journey/error-page.js';
import type { PasscodeRequirements } from '../../functions/identity-store/passcodes/passcode-rules.js';
import type { DataForm } from '../../statemachines/definition.js';

const form = {
  title: { values: { en: 'Your details', de: 'Ihre Angaben' } },
  version: 1,
  components: [
    { type: 'textfield', id: 'firstName', label: { values: { en: 'First name', de: 'Vorname' } }, validate: { required: true, maxLength: 100 } },
    { type: 'date', id: 'dob', label: { values: { en: 'Date of birth' } } },
  ],
} as unknown as DataForm;

describe('pickLanguage', () => {
  it('takes en or de, a regional tag by its language, and falls back to English', () => {
    expect(pickLanguage('de')).toBe('de');
    expect(pickLanguage('de-CH')).toBe('de');
    expect(pickLanguage('fr')).toBe('en');
    expect(pickLanguage(undefined)).toBe('en');
  });
});

describe('renderDataForm', () => {
  it('labels every field, marks required ones and uses the language', () => {
    const html = renderDataForm({ form, lang: 'de', action: '/journey/x/steps/a?c=1', values: {} });
    expect(html).toContain('<html lang="de">');
    expect(html).toContain('<label for="f-firstName">Vorname</label>');
    expect(html).toContain('id="f-firstName" name="firstName" required aria-required="true"');
    expect(html).toContain('<label for="f-dob">Date of birth</label>'); // English fallback
    expect(html).toContain('type="date"');
    expect(html).toContain('name="viewport"');
    // No script but the pages' own (the sending state), and nothing from another origin.
    expect(html.match(/<script[^>]*>/g)).toEqual(['<script src="/journey/assets/page.js" defer>']);
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3)/);
  });

  it('shows the errors, links them to their fields, and keeps typed values escaped', () => {
    const html = renderDataForm({
      form,
      lang: 'en',
      action: '/a',
      values: { firstName: '<script>alert(1)</script>' },
      errors: { firstName: 'Too long.' },
    });
    expect(html).toContain('role="alert"');
    expect(html).toContain('<a href="#f-firstName">First name: Too long.</a>');
    expect(html).toContain('aria-invalid="true" aria-describedby="f-firstName-error"');
    expect(html).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(html).not.toContain('<script>alert(1)');
  });
});

describe('renderDone / renderGone', () => {
  it('offers the way back to the relying party when it gave one', () => {
    expect(renderDone({ lang: 'en', redirectUrl: 'https://rp.example/done?a=1&b=2' })).toContain('href="https://rp.example/done?a=1&amp;b=2"');
    expect(renderDone({ lang: 'de' })).toContain('Vielen Dank');
    expect(renderGone('en')).toContain('no longer works');
  });
  it('escapes HTML', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});

describe('messages', () => {
  it('every language gives every message, with the same {n} placeholders as English', () => {
    expect(LANGUAGES).toEqual(['en', 'de']);
    for (const lang of LANGUAGES) {
      const m = messages(lang);
      expect(Object.keys(m).sort()).toEqual(Object.keys(en).sort());
      for (const [key, text] of Object.entries(en)) {
        expect(m[key as keyof typeof en], `${lang}.${key}`).not.toBe('');
        expect(m[key as keyof typeof en].includes('{n}'), `${lang}.${key}`).toBe(text.includes('{n}'));
      }
    }
  });
  it('German pages are not English pages', () => {
    expect(messages('de').continue).toBe('Weiter');
    expect(messages('en').continue).toBe('Continue');
  });
});

/** Both languages of each screen: a page in that language, with its own heading. */
const both = (render: (lang: 'en' | 'de') => string, heading: (lang: 'en' | 'de') => string) => {
  for (const lang of LANGUAGES) {
    const html = render(lang);
    expect(html).toContain(`<html lang="${lang}">`);
    expect(html).toContain(`<h1>${escapeHtml(heading(lang))}</h1>`);
  }
};

describe('screens', () => {
  it('data form: a select offers the localized choice, a checkbox keeps its state, errors follow the form order', () => {
    const full = {
      title: { values: { en: 'T' } },
      version: 1,
      components: [
        { type: 'select', id: 'country', label: { values: { en: 'Country' } }, options: [{ value: 'de', label: { values: { en: 'Germany', de: 'Deutschland' } } }] },
        { type: 'checkbox', id: 'ok', label: { values: { en: 'I agree' } } },
        { type: 'textarea', id: 'note', label: { values: { en: 'Note' } } },
      ],
    } as unknown as DataForm;
    const html = renderDataForm({ form: full, lang: 'de', action: '/a', values: { country: 'de', ok: 'on', note: 'a<b' }, errors: { note: 'N', country: 'C' } });
    expect(html).toContain('<option value="">Bitte wählen…</option><option value="de" selected>Deutschland</option>');
    expect(html).toContain('name="ok" checked');
    expect(html).toContain('rows="4">a&lt;b</textarea>');
    expect(html).toMatch(/<a href="#f-country">Country: C<\/a><\/li><li><a href="#f-note">Note: N<\/a>/);
    both((lang) => renderDataForm({ form, lang, action: '/a', values: {} }), (lang) => (lang === 'de' ? 'Ihre Angaben' : 'Your details'));
  });

  const notice = { retentionDays: 30, required: false };

  it('face capture: a file field that the page script can fill from the camera, and the problem named', () => {
    both((lang) => renderFaceCapture({ lang, action: '/a', maxBytes: 1000, notice }), (lang) => messages(lang).faceTitle);
    const plain = renderFaceCapture({ lang: 'en', action: '/a', maxBytes: 1000, notice });
    expect(plain).toContain('<script src="/journey/assets/face-capture.js" defer></script>');
    expect(plain).toContain('enctype="multipart/form-data" id="face-form" data-max-bytes="1000"');
    expect(plain).not.toContain('role="alert"');
    const refused = renderFaceCapture({ lang: 'de', action: '/a', maxBytes: 1000, error: 'tooSmall', notice });
    expect(refused).toContain(`<a href="#face-file">Foto: ${messages('de').face_tooSmall}</a>`);
    expect(refused).toContain('aria-invalid="true"');
    expect(renderFaceCapture({ lang: 'en', action: '/a', maxBytes: 1, error: 'whatever', notice })).toContain(messages('en').face_unreadable);
  });

  const requirements: PasscodeRequirements = {
    minimumLength: 8, maximumLength: 64, digitCount: 1, symbolCount: 0, lowerCaseCount: 0, upperCaseCount: 0, characterVariety: 0,
    passcodeHistory: 0, requiredRegExes: [{ pattern: '^x', error: 'Starts with x' }], allowedRegExes: [], disallowedRegExes: [],
  };

  it('passcode registration: the rules in the language (or the policy\'s own words), no field the browser would send', () => {
    both((lang) => renderPasscodeRegistration({ lang, action: '/a', srp: {}, requirements }), (lang) => messages(lang).pcTitle);
    const html = renderPasscodeRegistration({ lang: 'de', action: '/a', srp: { i: 'u' }, requirements, error: 'reused' });
    expect(html).toContain('<li data-rule="minimumLength" data-ok="false">mindestens 8 Zeichen</li>');
    expect(html).toContain('<li data-rule="required-0" data-ok="false">Starts with x</li>');
    expect(html).not.toMatch(/type="password"[^>]*name=/);
    expect(html).toContain(`id="pc-summary"><p>${messages('de').errorSummary}</p><ul><li><a href="#pc-new">${messages('de').pcReused}</a>`);
  });

  it('passcode authentication: a wrong passcode says how many attempts are left', () => {
    both((lang) => renderPasscodeAuthentication({ lang, action: '/a', challenge: { attemptsLeft: 3 } }), (lang) => messages(lang).pcAuthTitle);
    expect(renderPasscodeAuthentication({ lang: 'en', action: '/a', challenge: { attemptsLeft: 2 }, wrong: true })).toContain('Attempts left: 2.');
    expect(renderPasscodeAuthentication({ lang: 'en', action: '/a', challenge: { attemptsLeft: 2 } })).not.toContain('role="alert"');
  });

  it('passkey: the button and texts of its mode, and a failed ceremony said', () => {
    both((lang) => renderPasskey({ lang, mode: 'register', action: '/a', optionsUrl: '/o' }), (lang) => messages(lang).pkRegTitle);
    both((lang) => renderPasskey({ lang, mode: 'authenticate', action: '/a', optionsUrl: '/o' }), (lang) => messages(lang).pkAuthTitle);
    const failed = renderPasskey({ lang: 'en', mode: 'authenticate', action: '/a', optionsUrl: '/o?c=1&lang=en', failed: true });
    expect(failed).toContain('data-mode="authenticate" data-options-url="/o?c=1&amp;lang=en"');
    expect(failed).toContain(`id="pk-summary"><p>${messages('en').pkFailed}</p>`);
  });

  it('done: goes on to the relying party after three seconds when it gave a URL', () => {
    both((lang) => renderDone({ lang }), (lang) => messages(lang).doneTitle);
    expect(renderDone({ lang: 'en', redirectUrl: 'https://rp.example/?a=1&b=2' })).toContain('<meta http-equiv="refresh" content="3;url=https://rp.example/?a=1&amp;b=2">');
    expect(renderDone({ lang: 'en' })).not.toContain('http-equiv');
  });

  it('trouble, gone, unsupported and waiting say what they are; waiting reloads itself', () => {
    both(renderTrouble, (lang) => messages(lang).troubleTitle);
    both(renderGone, (lang) => messages(lang).goneTitle);
    both(renderUnsupported, (lang) => messages(lang).unsupportedTitle);
    both(renderWaiting, (lang) => messages(lang).waitTitle);
    expect(renderWaiting('en')).toContain('<meta http-equiv="refresh" content="2">');
  });

  it('the journey error page: trouble for a server fault, "too large" for 413, gone otherwise, in the asked language', () => {
    expect(journeyErrorPage(503, 'de')).toBe(renderTrouble('de'));
    expect(journeyErrorPage(500, undefined)).toBe(renderTrouble('en'));
    expect(journeyErrorPage(404, 'de-AT')).toBe(renderGone('de'));
    expect(journeyErrorPage(410, 'fr')).toBe(renderGone('en'));
    // Over a size limit (the body's, or the journey's session cap): the step still waits, so say what to do.
    for (const lang of ['en', 'de'] as const) {
      expect(journeyErrorPage(413, lang)).toContain(`<h1>${escapeHtml(messages(lang).tooLargeTitle)}</h1>`);
      expect(journeyErrorPage(413, lang)).toContain(escapeHtml(messages(lang).tooLargeText));
    }
  });
});
