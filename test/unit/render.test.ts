import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../functions/journey/layout.js';
import { pickLanguage } from '../../functions/journey/messages/index.js';
import { renderDataForm } from '../../functions/journey/screens/data-form.js';
import { renderDone } from '../../functions/journey/screens/done.js';
import { renderGone } from '../../functions/journey/screens/gone.js';
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
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3)/);
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
    expect(html).toContain('<a href="#f-firstName">Too long.</a>');
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
