import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formDefaults, keptValues } from '../../functions/activities/data-form.js';
import { validateFormSubmission } from '../../functions/journey/forms.js';
import { DATA_FORM_SCRIPT, renderDataForm, renderFormFields } from '../../functions/journey/screens/data-form.js';
import {
  NOTE_TIMER_DEFAULT_SECONDS,
  answerKeys,
  notificationLevel,
  noteTimerSeconds,
  parseCustomDataFormResource,
  parseDataForm,
  type DataForm,
  type FormComponent,
} from '../../statemachines/forms.js';
import { templatePath } from '../../statemachines/references.js';

/** A form as the family's visual builder saves it (test/fixtures/forms/family-builder.json). */
const resource = readFileSync(join(import.meta.dirname, '../fixtures/forms/family-builder.json'), 'utf8');
const TEMPLATE = '{{processvar._checks.cloudFunctions.DocumentParseV6.metaData.ruleResults.doc.documentNumber }}';

function builderForm(): DataForm {
  const parsed = parseCustomDataFormResource(resource);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.form;
}

/** A form of these components, parsed as an upload would be. */
function formOf(components: Record<string, unknown>[]): DataForm {
  const parsed = parseDataForm({ title: { values: { en: 'T' } }, components });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.form;
}

/** The paths of the problems a form of these components has. */
function problems(components: Record<string, unknown>[]): string[] {
  const parsed = parseDataForm({ components });
  return parsed.ok ? [] : parsed.issues.map((i) => i.path.join('.'));
}

const state = {
  parameters: { firstName: 'Anna' },
  vars: { firstName: 'Anna', details: { city: 'Bonn' }, list: [1, 2] },
  _checks: { cloudFunctions: { DocumentParseV6: { metaData: { ruleResults: { doc: { documentNumber: 'C01X00T47' } } } } } },
};

describe("the family's visual builder dialect", () => {
  it('reads the fixture: a string version, the builder members kept, language maps as texts', () => {
    const form = builderForm();
    expect(form.version).toBe(1);
    expect(form.title).toMatchObject({ type: 'title', isValid: true, values: { en: 'Your account' } });
    const [intro, notice, saved, logo] = form.components as (FormComponent & Record<string, unknown>)[];
    expect(intro).toMatchObject({ index: 0, isValid: true, values: { en: 'We read these details from your document.' } });
    expect(notice).toMatchObject({ closeButton: true, setTimer: false, subtype: 'warning', subType: 'warning' });
    expect(saved).toMatchObject({ closeButton: false, setTimer: '3', subType: 'success' });
    expect(logo).toMatchObject({ index: '3', fileType: 'png', width: '100' });
    expect(form.components.filter((c) => c.id === 'password')).toHaveLength(2);
  });

  it('takes a language map in values only on a shown component; a select or radio keeps its choices', () => {
    expect(problems([{ type: 'paragraph', id: 'p', values: { en: 'Hi', de: 'Hallo' } }])).toEqual([]);
    expect(problems([{ type: 'image', id: 'i', src: 'https://rp.example/a.png', values: { en: 'Logo' } }])).toEqual([]);
    expect(problems([{ type: 'select', id: 's', values: { en: 'Yes' } }])).toEqual(['components.0.values']);
    expect(problems([{ type: 'radio', id: 'r', values: [{ value: 'a' }] }])).toEqual([]);
    expect(problems([{ type: 'notification', id: 'n', values: { en: 5 } }])).toEqual(['components.0.values.en']);
    expect(problems([{ type: 'notification', id: 'n', values: 'Hi' }])).toEqual(['components.0.values']);
  });

  it('ignores an image width the page cannot use, and draws the ones it can', () => {
    const html = (width: unknown) =>
      renderFormFields({ form: formOf([{ type: 'image', id: 'i', src: 'https://rp.example/a.png', alt: 'a', width }]), lang: 'en', values: {} }).html;
    expect(html('100')).toContain('alt="a" width="100"');
    expect(html('200px')).toContain('alt="a" width="200"');
    expect(html(' 50% ')).toContain('alt="a" style="width:50%"');
    expect(html('wide')).toMatch(/alt="a" referrerpolicy/);
    expect(html('calc(100% - 1px)')).toMatch(/alt="a" referrerpolicy/);
    expect(problems([{ type: 'image', id: 'i', src: 'https://rp.example/a.png', width: 'x'.repeat(101) }])).toEqual(['components.0.width']);
  });

  it('reads a notification level from subtype or subType, and its timer leniently', () => {
    const n = (c: Record<string, unknown>) => ({ type: 'notification', id: 'n', ...c }) as unknown as FormComponent;
    expect(notificationLevel(n({ subType: 'error' }))).toBe('error');
    expect(notificationLevel(n({ subtype: 'Warning', subType: 'error' }))).toBe('warning');
    expect(notificationLevel(n({ subtype: 'mobile', subType: 'success' }))).toBe('success');
    expect(notificationLevel(n({}))).toBe('info');
    expect(noteTimerSeconds(n({ setTimer: true }))).toBe(NOTE_TIMER_DEFAULT_SECONDS);
    expect(noteTimerSeconds(n({ setTimer: 'true' }))).toBe(NOTE_TIMER_DEFAULT_SECONDS);
    expect(noteTimerSeconds(n({ setTimer: 5 }))).toBe(5);
    expect(noteTimerSeconds(n({ setTimer: ' 2.5 ' }))).toBe(2.5);
    expect(noteTimerSeconds(n({ setTimer: 1e9 }))).toBe(3600);
    for (const setTimer of [false, 'false', 0, -3, 'soon', '', null, undefined]) expect(noteTimerSeconds(n({ setTimer })), String(setTimer)).toBeUndefined();
    expect(problems([{ type: 'notification', id: 'n', closeButton: 'yes' }])).toEqual(['components.0.closeButton']);
    expect(problems([{ type: 'notification', id: 'n', setTimer: 'whenever', closeButton: 'false' }])).toEqual([]);
  });
});

describe('answerKeys', () => {
  const keys = (...ids: string[]) => answerKeys({ components: ids.map((id) => ({ type: 'text', id }) as FormComponent) });

  it('keeps the first of a repeated id, and numbers the others from _2, skipping the ids of other components', () => {
    expect(keys('a', 'b')).toEqual(['a', 'b']);
    expect(keys('password', 'password')).toEqual(['password', 'password_2']);
    expect(keys('a', 'a', 'a')).toEqual(['a', 'a_2', 'a_3']);
    expect(keys('a', 'a', 'a_2')).toEqual(['a', 'a_3', 'a_2']);
    expect(keys('a_2', 'a', 'a')).toEqual(['a_2', 'a', 'a_3']);
    expect(keys('a', 'a_2', 'a', 'a_3', 'a')).toEqual(['a', 'a_2', 'a_4', 'a_3', 'a_5']);
    expect(answerKeys(builderForm())).toEqual(['intro', 'notice', 'saved', 'logo', 'documentNumber', 'firstName', 'password', 'password_2']);
  });

  it('names the fields, judges a submission and keeps the values apart by it', async () => {
    const form = builderForm();
    const { html } = renderFormFields({ form, lang: 'en', values: { password: 'one', password_2: 'two' } });
    expect(html).toContain('<label for="f-password">Password</label><input type="text" id="f-password" name="password"');
    expect(html).toContain('<label for="f-password_2">Repeat the password</label><input type="text" id="f-password_2" name="password_2"');
    expect(html).toMatch(/name="password_2"[^>]*value="two"/);
    const today = new Date('2026-01-01T00:00:00Z');
    const posted = { documentNumber: 'C01X00T47', firstName: 'Anna', password: 'correct horse', password_2: 'correct horse!' };
    expect(await validateFormSubmission(form, posted, 'en', today)).toEqual({ ok: true, values: posted });
    const refused = await validateFormSubmission(form, { ...posted, password: 'short', password_2: '' }, 'de', today);
    expect(refused).toMatchObject({ ok: false, errors: { password: 'Mindestens 8 Zeichen.', password_2: 'Dieses Feld ist erforderlich.' }, values: { password: 'short', password_2: '' } });
    const page = renderDataForm({ form, lang: 'en', action: '/a', values: {}, errors: { password_2: 'Enter it.' } });
    // The summary names the field by its label: the two fields share the id `password`.
    expect(page).toContain('<a href="#f-password_2">Repeat the password: Enter it.</a>');
    expect(keptValues(form, { vars: { account: { password: 'one', password_2: 'two', firstName: { x: 1 } } } }, 'account')).toEqual({ password: 'one', password_2: 'two' });
  });
});

describe('template defaults', () => {
  it('reads {{processvar.<path>}}, with or without spaces inside the braces, as a reference path', () => {
    expect(templatePath(TEMPLATE)).toBe('_checks.cloudFunctions.DocumentParseV6.metaData.ruleResults.doc.documentNumber');
    expect(templatePath('{{processvar.firstName}}')).toBe('firstName');
    expect(templatePath('{{ processvar.list[1] }}')).toBe('list[1]');
    expect(templatePath(' {{processvar.details.first-name}} ')).toBe('details.first-name');
    for (const bad of ['{{env.SECRET}}', '{{processvar.__proto__}}', '{{processvar.a.__proto__.b}}', '{{processvar.a..b}}', '{{ processvar.x }} trailing text', 'Hi {{processvar.x}}', '{{processvar.}}', '{{processvar.1a}}', '{{processvar.a[x]}}', '{{processvar.a}}{{processvar.b}}', '{{processvar.a']) {
      expect(templatePath(bad), bad).toBeUndefined();
    }
  });

  it('refuses a template pointing outside the journey at components.<i>.default', () => {
    for (const bad of ['{{env.SECRET}}', '{{processvar.__proto__}}', '{{processvar.a..b}}', '{{ processvar.x }} trailing text']) {
      expect(problems([{ type: 'text', id: 'ok' }, { type: 'text', id: 't', default: bad }]), bad).toEqual(['components.1.default']);
    }
    expect(problems([{ type: 'text', id: 't', default: TEMPLATE }])).toEqual([]);
    // Braces that do not open a template are plain text.
    expect(problems([{ type: 'text', id: 't', default: 'a } b }}' }])).toEqual([]);
  });

  it("fills a field from the journey's data when the form is shown; nothing there, an object or a list shows an empty field", () => {
    const form = builderForm();
    expect(formDefaults(form, state, 'de')).toEqual({ documentNumber: 'C01X00T47', firstName: 'Anna' });
    expect(formDefaults(form, { parameters: { firstName: 'Ann' } }, 'en')).toEqual({ firstName: 'Ann' });
    const shapes = formOf([
      { type: 'text', id: 'object', default: '{{processvar.details}}' },
      { type: 'text', id: 'list', default: '{{ processvar.list }}' },
      { type: 'text', id: 'item', default: '{{processvar.list[1]}}' },
      { type: 'text', id: 'missing', default: '{{processvar.nothing.here}}' },
      { type: 'text', id: 'reference', default: '${details}' },
      { type: 'text', id: 'city', default: '${details.city}' },
    ]);
    expect(formDefaults(shapes, state, 'en')).toEqual({ item: '2', city: 'Bonn' });
    const html = renderDataForm({ form: shapes, lang: 'en', action: '/a', values: formDefaults(shapes, state, 'en') });
    expect(html).not.toContain('[object Object]');
    expect(html).toContain('<input type="text" id="f-object" name="object" value="">');
  });
});

describe('rendering the builder form', () => {
  it('shows the language map texts in the page language, and a closable and a timed notification with the page script', () => {
    const form = builderForm();
    const de = renderDataForm({ form, lang: 'de', action: '/a', values: formDefaults(form, state, 'de') });
    expect(de).toContain('<p class="para" id="f-intro">Diese Angaben haben wir aus Ihrem Ausweis gelesen.</p>');
    expect(de).toContain(
      '<div class="note note-warning closable" role="alert" id="f-notice" data-note>Verraten Sie niemandem Ihr Passwort.<button type="button" class="note-close" data-note-close hidden aria-label="Schließen">×</button></div>',
    );
    expect(de).toContain('<div class="note note-success" role="status" id="f-saved" data-note data-note-timer="3">Ihr Ausweis wurde gelesen.</div>');
    expect(de).toContain('alt="Das Logo der Bank" width="100"');
    expect(de).toContain('<input type="text" id="f-documentNumber" name="documentNumber" required aria-required="true" value="C01X00T47" maxlength="20">');
    expect(de).toContain(`<script src="${DATA_FORM_SCRIPT}" defer></script>`);
    expect(de).toContain('<button type="submit">Weiter</button>');
    const en = renderDataForm({ form, lang: 'en', action: '/a', values: {} });
    expect(en).toContain('<p class="para" id="f-intro">We read these details from your document.</p>');
    expect(en).toContain('aria-label="Close">×</button>');
  });

  it('loads no notification script for a form whose notifications neither close nor time out (only the sending state)', () => {
    const plain = formOf([{ type: 'notification', id: 'n', subType: 'error', closeButton: 'false', setTimer: false, values: { en: 'Careful.' } }]);
    const html = renderDataForm({ form: plain, lang: 'en', action: '/a', values: {} });
    expect(html).toContain('<div class="note note-error" role="alert" id="f-n">Careful.</div>');
    expect(html.match(/<script[^>]*>/g)).toEqual(['<script src="/journey/assets/page.js" defer>']);
  });

  it('orders components by their place in the list, not by index', () => {
    const form = formOf([
      { type: 'paragraph', id: 'second', index: 1, values: { en: 'B' } },
      { type: 'paragraph', id: 'first', index: 0, values: { en: 'A' } },
    ]);
    const { html } = renderFormFields({ form, lang: 'en', values: {} });
    expect(html.indexOf('f-second')).toBeLessThan(html.indexOf('f-first'));
  });

  it("falls back to the form's first language for a values map, as for every text", () => {
    const form = formOf([{ type: 'notification', id: 'n', values: { fr: 'Bonjour', de: 'Hallo' } }]);
    expect(renderFormFields({ form, lang: 'de', values: {} }).html).toContain('>Hallo</div>');
    // The form's texts are its title's language first (T, in en): a map without en shows its first.
    const untitled = parseDataForm({ components: [{ type: 'paragraph', id: 'p', values: { fr: 'Bonjour', de: 'Hallo' } }] });
    if (!untitled.ok) throw new Error('refused');
    const html = renderDataForm({ form: untitled.form, lang: 'en', action: '/a', values: {} });
    expect(html).toContain('<form method="post" action="/a" novalidate lang="fr">');
    expect(html).toContain('<p class="para" id="f-p">Bonjour</p>');
  });

  it("prefers a shown component's values map to its label", () => {
    const form = formOf([{ type: 'paragraph', id: 'p', label: { values: { en: 'Paragraph' } }, values: { en: 'The text', de: 'Der Text' } }]);
    expect(renderFormFields({ form, lang: 'de', values: {} }).html).toBe('<p class="para" id="f-p">Der Text</p>');
  });
});
