import { describe, expect, it } from 'vitest';
import { renderDataForm } from '../../functions/journey/screens/data-form.js';
import { formDefaults } from '../../functions/activities/data-form.js';
import { CUSTOM_DATA_FORM_COMPONENT_TYPES, parseDataForm, type DataForm } from '../../statemachines/forms.js';

const t = (en: string, de?: string) => ({ values: de ? { en, de } : { en } });
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** One component of every type the format has, as the family's designer writes them. */
export const everyType = {
  title: t('Your details', 'Ihre Angaben'),
  subtitle: t('As in your passport.', 'Wie im Reisepass.'),
  components: [
    { type: 'paragraph', id: 'intro', label: t('We need a few details.', 'Wir brauchen ein paar Angaben.') },
    { type: 'notification', id: 'warn', subtype: 'warning', label: t('Check your spelling.', 'Prüfen Sie die Schreibweise.') },
    { type: 'image', id: 'logo', src: PNG, alt: t('Logo'), width: '50%' },
    { type: 'text', id: 'nick', label: t('Nickname', 'Spitzname'), default: '${firstName}' },
    { type: 'textfield', id: 'city', label: t('City', 'Stadt'), validate: { required: true, maxLength: 40 } },
    { type: 'textarea', id: 'note', label: t('Note', 'Notiz') },
    { type: 'email', id: 'mail', label: t('Email', 'E-Mail') },
    { type: 'phone', id: 'mobile', label: t('Mobile', 'Handy'), defaultCountry: 'DE' },
    { type: 'phoneNumber', id: 'landline', label: t('Landline', 'Festnetz') },
    { type: 'number', id: 'age', label: t('Age', 'Alter') },
    { type: 'date', id: 'dob', label: t('Date of birth', 'Geburtsdatum'), validate: { minDate: '1900-01-01' } },
    { type: 'checkbox', id: 'news', label: t('Send me news', 'Neuigkeiten senden'), default: true },
    { type: 'select', id: 'country', label: t('Country', 'Land'), values: [{ value: 'de', label: t('Germany', 'Deutschland') }, { value: 'fr', label: t('France', 'Frankreich') }] },
    { type: 'radio', id: 'doc', label: t('Document', 'Dokument'), values: [{ value: 'passport', label: t('Passport', 'Reisepass') }, { value: 'id', label: t('ID card', 'Ausweis') }] },
  ],
  submitButton: { label: t('Send', 'Senden') },
} as unknown as DataForm;

describe('renderDataForm, every component type', () => {
  it('covers the whole format', () => {
    expect(everyType.components.map((c) => c.type).sort()).toEqual([...CUSTOM_DATA_FORM_COMPONENT_TYPES].sort());
    expect(parseDataForm(everyType).ok).toBe(true);
  });

  it('renders each type as its own control, in the page language', () => {
    const html = renderDataForm({ form: everyType, lang: 'de', action: '/a', values: formDefaults(everyType, { parameters: { firstName: 'Anna' } }, 'de') });
    expect(html).toContain('<h1>Ihre Angaben</h1><p class="sub">Wie im Reisepass.</p>');
    expect(html).toContain('<p class="para" id="f-intro">Wir brauchen ein paar Angaben.</p>');
    expect(html).toContain('<div class="note note-warning" role="alert" id="f-warn">Prüfen Sie die Schreibweise.</div>');
    expect(html).toContain(`<img src="${PNG}" alt="Logo" style="width:50%"`);
    expect(html).toContain('<input type="text" id="f-nick" name="nick" value="Anna">');
    expect(html).toContain('<input type="text" id="f-city" name="city" required aria-required="true" value="" maxlength="40">');
    expect(html).toContain('<textarea id="f-note" name="note" rows="4"></textarea>');
    expect(html).toContain('<input type="email" id="f-mail" name="mail" value="" autocomplete="email"');
    expect(html).toMatch(/<div class="hint" id="f-mobile-hint">Eine Nummer ohne Ländervorwahl gilt als Nummer in Deutschland \(\+49\)\.<\/div><input type="tel" id="f-mobile"/);
    expect(html).toContain('<div class="hint" id="f-landline-hint">Mit Ländervorwahl, etwa +49.</div>');
    expect(html).toContain('<input type="text" inputmode="decimal" id="f-age" name="age"');
    expect(html).toContain('<input type="date" id="f-dob" name="dob" value="" min="1900-01-01">');
    expect(html).toContain('name="news" checked');
    expect(html).toContain('<option value="de">Deutschland</option><option value="fr">Frankreich</option>');
    expect(html).toContain('<fieldset id="f-doc"><legend>Dokument</legend><label class="choice" for="f-doc-0"><input type="radio" id="f-doc-0" name="doc" value="passport">Reisepass</label>');
    expect(html).toContain('<div class="buttons"><button type="submit">Senden</button></div>');
  });

  it("falls back to the form's first language when it lacks the page's", () => {
    const french = { title: { values: { fr: 'Vos données' } }, components: [{ type: 'text', id: 'a', label: { values: { fr: 'Nom', it: 'Nome' } } }] } as unknown as DataForm;
    const html = renderDataForm({ form: french, lang: 'en', action: '/a', values: {} });
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<h1 lang="fr">Vos données</h1>');
    expect(html).toContain('<label for="f-a">Nom</label>');
    expect(html).toContain('<button type="submit">Continue</button>');
  });

  it('shows a read-only form as a confirmation: values unchangeable, choices as text', () => {
    const html = renderDataForm({ form: everyType, lang: 'en', action: '/a', values: { city: 'Lyon', country: 'fr', doc: 'id', news: 'on' }, readOnly: true, retake: true });
    expect(html).toContain('<input type="text" id="f-city" name="city" readonly aria-readonly="true" value="Lyon" maxlength="40">');
    expect(html).toContain('<input type="text" id="f-country" value="France" readonly aria-readonly="true">');
    expect(html).toContain('<input type="text" id="f-doc" value="ID card" readonly aria-readonly="true">');
    expect(html).toMatch(/name="news" checked disabled/);
    expect(html).toContain('<button type="submit">Send</button><button type="submit" class="secondary" name="arthr:action" value="retake" formnovalidate>Retake</button>');
    expect(html).not.toContain('required');
  });

  it('hides the buttons, and tells the attempts left after a refusal', () => {
    expect(renderDataForm({ form: everyType, lang: 'en', action: '/a', values: {}, hideButtons: true, retake: true })).not.toContain('<button');
    const refused = renderDataForm({ form: everyType, lang: 'en', action: '/a', values: {}, errors: { city: 'Enter it.', doc: 'Choose.' }, attemptsLeft: 2 });
    expect(refused).toContain('<a href="#f-city">City: Enter it.</a></li><li><a href="#f-doc-0">Document: Choose.</a>');
    expect(refused).toContain('Attempts left: 2.');
    expect(refused).toContain('<fieldset id="f-doc" aria-invalid="true" aria-describedby="f-doc-error">');
  });

  it('never lets a text, a value or an image source inject markup', () => {
    const evil = {
      title: t('<b>x</b>'),
      components: [
        { type: 'paragraph', id: 'p', label: t('<script>alert(1)</script>') },
        { type: 'image', id: 'i', src: 'javascript:alert(1)', alt: 'a"><script>' },
        { type: 'image', id: 'j', src: 'https://x.example/a.png" onerror="alert(1)', alt: 'b' },
        { type: 'image', id: 'k', src: PNG, width: '10px;background:url(x)' },
        { type: 'select', id: 's', values: [{ value: '"><script>', label: t('<i>') }] },
      ],
    } as unknown as DataForm;
    const html = renderDataForm({ form: evil, lang: 'en', action: '/a', values: { s: '"><script>' } });
    // The only script is the pages' own (the sending state).
    expect(html.replace('<script src="/journey/assets/page.js" defer></script>', '')).not.toMatch(/<script|<b>|<i>|onerror=|javascript:|url\(/);
    expect(html).toContain('<p class="para" id="f-i">a&quot;&gt;&lt;script&gt;</p>');
    expect(html).toContain('<img src="data:image/png;base64,');
  });
});
