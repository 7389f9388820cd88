import { describe, expect, it } from 'vitest';
import { z } from '../../../functions/shared/zod.js';
import { errorSummary, page } from '../../../functions/journey/layout.js';
import { acceptedLanguage, pickLanguage } from '../../../functions/journey/messages/index.js';
import { faceNoticeText, noticeRecord, renderFaceCapture } from '../../../functions/journey/screens/face-capture.js';
import { renderPasscodeRegistration } from '../../../functions/journey/screens/passcode-registration.js';
import { PresentationSchema } from '../../../statemachines/presentation.js';
import type { PasscodeRequirements } from '../../../functions/identity-store/passcodes/passcode-rules.js';

const presentation = { name: 'Nordbank', logoUrl: 'https://cdn.nordbank.example/l.png', supportEmail: 'help@nordbank.example', privacyUrl: 'https://nordbank.example/p' };

describe('PresentationSchema', () => {
  it('takes https URLs only, a plain email address and bounded lengths', () => {
    expect(z.safeParse(PresentationSchema, presentation).success).toBe(true);
    for (const bad of [
      { ...presentation, logoUrl: 'http://cdn.nordbank.example/l.png' },
      { ...presentation, privacyUrl: 'javascript:alert(1)' },
      { ...presentation, supportUrl: 'https://user:pw@nordbank.example/' },
      { ...presentation, logoUrl: `https://x.example/${'a'.repeat(2100)}` },
      { ...presentation, supportEmail: 'Help <help@nordbank.example>' },
      { ...presentation, name: '' },
      { ...presentation, name: 'n'.repeat(101) },
      { ...presentation, colour: 'red' },
    ]) {
      expect(z.safeParse(PresentationSchema, bad).success, JSON.stringify(bad).slice(0, 80)).toBe(false);
    }
  });
});

describe('pickLanguage', () => {
  it('takes Accept-Language by weight when the link names no language the pages have; lang= wins', () => {
    expect(acceptedLanguage('de-DE,de;q=0.9,en;q=0.8')).toBe('de');
    expect(acceptedLanguage('fr-FR, en;q=0.5, de;q=0.7')).toBe('de');
    expect(acceptedLanguage('de;q=0, en')).toBe('en');
    expect(acceptedLanguage('fr')).toBeUndefined();
    expect(pickLanguage(undefined, 'de-DE')).toBe('de');
    expect(pickLanguage('en', 'de-DE')).toBe('en');
    expect(pickLanguage('fr', 'de-DE')).toBe('de');
    expect(pickLanguage(undefined, undefined)).toBe('en');
  });
});

describe('page', () => {
  it('shows the relying party, the progress and the language switch around the screen', () => {
    const html = page({ lang: 'de', title: 'T', body: '<h1>T</h1>', chrome: { presentation, progress: [2, 5], languageHref: (l) => `/journey/x?lang=${l}` } });
    expect(html).toContain('<header class="rp" aria-label="Für wen diese Seite ist"><img src="https://cdn.nordbank.example/l.png" alt="" height="40" referrerpolicy="no-referrer" decoding="async"><span>Nordbank</span></header>');
    expect(html).toContain('<span aria-hidden="true">Schritt 2</span><progress max="5" value="2" aria-label="Schritt 2 von etwa 5">');
    expect(html).toContain('<a href="mailto:help@nordbank.example">Hilfe: help@nordbank.example</a>');
    expect(html).toContain('<a href="https://nordbank.example/p" rel="noreferrer">Datenschutzhinweise</a>');
    expect(html).toContain('<a href="/journey/x?lang=en" lang="en" hreflang="en">English</a>');
    expect(html).toContain('<a href="/journey/x?lang=de" lang="de" hreflang="de" aria-current="true">Deutsch</a>');
    expect(html).toContain('<title>T – Nordbank</title>');
    // No form: no script.
    expect(html).not.toContain('<script');
  });

  it('never carries a logo that is not https, and shows nothing of a relying party it does not know', () => {
    const html = page({ lang: 'en', title: 'T', body: '', chrome: { presentation: { name: 'X', logoUrl: 'javascript:alert(1)' } } });
    expect(html).not.toContain('javascript:');
    expect(page({ lang: 'en', title: 'T', body: '' })).not.toMatch(/<header|<footer|<progress/);
  });

  it('loads the sending state on a page with a form', () => {
    expect(page({ lang: 'en', title: 'T', body: '<form method="post"></form>' })).toContain('<script src="/journey/assets/page.js" defer></script>');
  });
});

describe('errorSummary', () => {
  it('names each field with its message, links to it, and takes the focus', () => {
    const html = errorSummary('en', [
      ['f-a', 'This field is required.', 'First name'],
      ['f-b', 'This field is required.', 'Last name'],
    ]);
    expect(html).toContain('tabindex="-1" autofocus');
    expect(html).toContain('<li><a href="#f-a">First name: This field is required.</a></li><li><a href="#f-b">Last name: This field is required.</a></li>');
  });
});

describe('renderFaceCapture', () => {
  const notice = { recipient: 'Nordbank', retentionDays: 30, privacyUrl: 'https://nordbank.example/p', required: true };

  it('says who receives the face image, why and for how long, and asks for consent before the capture', () => {
    const html = renderFaceCapture({ lang: 'en', action: '/a', maxBytes: 1, notice });
    expect(faceNoticeText('en', notice)).toContain('Nordbank receives the photo of your face');
    expect(html).toContain('It is kept for 30 days, then deleted.');
    expect(html).toContain('<a href="https://nordbank.example/p" rel="noreferrer">How Nordbank uses your data (privacy notice)</a>');
    expect(html).toMatch(/<input type="checkbox" id="face-consent" name="consent" value="yes" required/);
    // The notice comes before the capture in the page.
    expect(html.indexOf('id="consent-text"')).toBeLessThan(html.indexOf('id="face-capture"'));
    expect(renderFaceCapture({ lang: 'de', action: '/a', maxBytes: 1, notice: { retentionDays: 7, required: false } })).toContain(
      'Die Organisation, die Ihnen diesen Link geschickt hat, erhält',
    );
    expect(renderFaceCapture({ lang: 'en', action: '/a', maxBytes: 1, notice: { ...notice, required: false } })).not.toContain('face-consent"');
  });

  it('keeps a notice by its version, language and the hash of its words', () => {
    const kept = noticeRecord('de', notice);
    expect(kept).toMatchObject({ noticeVersion: 'face-capture-notice/1', language: 'de' });
    expect(kept.noticeSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(noticeRecord('en', notice).noticeSha256).not.toBe(kept.noticeSha256);
  });

  it('offers no file to choose under Require Live Camera, and names the refusal', () => {
    const html = renderFaceCapture({ lang: 'en', action: '/a', maxBytes: 1, notice, liveOnly: true, error: 'liveOnly', code: 'FACE_UPLOAD_NOT_ALLOWED' });
    expect(html).toContain('data-live-only="true"');
    expect(html).toContain('data-refusal="FACE_UPLOAD_NOT_ALLOWED"');
    expect(html).not.toContain('<label for="face-file">');
    expect(html).toContain('<input type="file" id="face-file" name="image" accept="image/jpeg,image/png" hidden');
    expect(html).toContain('<a href="#face-start">Photo: This step takes a photo from the camera only. Use the camera to take it.</a>');
  });
});

describe('renderPasscodeRegistration', () => {
  const requirements: PasscodeRequirements = {
    minimumLength: 8, maximumLength: 64, digitCount: 0, symbolCount: 0, lowerCaseCount: 0, upperCaseCount: 0, characterVariety: 0,
    passcodeHistory: 0, requiredRegExes: [], allowedRegExes: [], disallowedRegExes: [],
  };
  it('says what a passcode is for once: the form\'s subtitle, then only that it stays on the device', () => {
    const html = renderPasscodeRegistration({ lang: 'en', action: '/a', srp: {}, requirements, frame: { subtitle: 'You will use it to confirm it is you.', fields: '', errors: [] } });
    expect(html.match(/confirm it is you/g)).toHaveLength(1);
    expect(html).toContain('<p class="hint">It stays on this device: only a proof made from it is sent.</p>');
    // Unframed, the screen's own text says both.
    expect(renderPasscodeRegistration({ lang: 'en', action: '/a', srp: {}, requirements }).match(/confirm it is you/g)).toHaveLength(1);
  });
});
