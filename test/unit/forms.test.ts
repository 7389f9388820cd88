import { describe, expect, it } from 'vitest';
import { validateFormSubmission } from '../../functions/journey/forms.js';
import { localized } from '../../functions/journey/layout.js';
import type { DataForm } from '../../statemachines/definition.js';

const t = (en: string, de?: string): { values: Record<string, string> } => ({ values: de ? { en, de } : { en } });
const form = {
  title: t('Details'),
  version: 1,
  components: [
    { type: 'textfield', id: 'firstName', label: t('First name'), validate: { required: true, maxLength: 5, missingMessage: t('Enter it.', 'Bitte eingeben.'), invalidMessage: t('Too long.', 'Zu lang.') } },
    { type: 'date', id: 'dob', label: t('Born'), validate: { required: true, maxDate: 'today-18y', invalidMessage: t('Adults only.') } },
    { type: 'email', id: 'email', label: t('Email') },
    { type: 'number', id: 'age', label: t('Age'), validate: { min: 0, max: 130 } },
    { type: 'checkbox', id: 'consent', label: t('I agree'), validate: { required: true } },
    { type: 'select', id: 'doc', label: t('Document'), options: [{ value: 'passport', label: t('Passport') }] },
  ],
} as unknown as DataForm;
const today = new Date('2026-11-21T10:00:00Z');

describe('validateFormSubmission', () => {
  it('accepts a valid submission and types its values', async () => {
    const out = (await validateFormSubmission(form, { firstName: ' Ann ', dob: '2008-11-21', email: 'a@b.co', age: '42', consent: 'on', doc: 'passport', extra: 'x' }, 'en', today));
    expect(out).toEqual({ ok: true, values: { firstName: 'Ann', dob: '2008-11-21', email: 'a@b.co', age: 42, consent: true, doc: 'passport' } });
  });

  it('rejects when required fields are missing, in the end user language with English as fallback', async () => {
    const out = (await validateFormSubmission(form, { dob: '' }, 'de-CH', today));
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.errors.firstName).toBe('Bitte eingeben.');
    expect(out.errors.consent).toBe('Dieses Feld ist erforderlich.');
    expect((await validateFormSubmission(form, {}, 'fr', today))).toMatchObject({ errors: { firstName: 'Enter it.' } });
  });

  it('rejects at the edges of each rule and keeps what was typed', async () => {
    const out = (await validateFormSubmission(
      form,
      { firstName: 'Annabel', dob: '2008-11-22', email: 'nope', age: '131', consent: 'on', doc: 'visa' },
      'en',
      today,
    ));
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(Object.keys(out.errors).sort()).toEqual(['age', 'dob', 'doc', 'email', 'firstName']);
    expect(out.errors.dob).toBe('Adults only.');
    expect(out.values.firstName).toBe('Annabel');
    expect((await validateFormSubmission(form, { firstName: 'Annab', dob: '2008-11-21', consent: 'on' }, 'en', today)).ok).toBe(true);
    expect((await validateFormSubmission(form, { firstName: 'A', dob: '2008-02-30', consent: 'on' }, 'en', today)).ok).toBe(false);
  });

  it('counts characters, not UTF-16 units', async () => {
    expect((await validateFormSubmission(form, { firstName: '😀😀😀😀😀', dob: '2000-01-01', consent: 'on' }, 'en', today)).ok).toBe(true);
  });
});

describe('localized', () => {
  it('falls back from a regional tag to its language, then English', async () => {
    expect(localized(t('Hello', 'Hallo'), 'de-AT')).toBe('Hallo');
    expect(localized(t('Hello', 'Hallo'), 'it')).toBe('Hello');
    expect(localized(undefined, 'en')).toBe('');
  });
});

describe('validateFormSubmission, every input type of the family format', () => {
  const family = {
    title: { values: { fr: 'Vos données', en: 'Your data' } },
    components: [
      { type: 'text', id: 'nick', label: t('Nickname'), validate: { minLength: '2', maxLength: 4, invalidLengthMessage: t('2 to 4 letters.', '2 bis 4 Buchstaben.') } },
      { type: 'textarea', id: 'note', validate: { maxLength: 5 } },
      { type: 'email', id: 'mail', validate: { required: 'true', missingMessage: null } },
      { type: 'phone', id: 'mobile', defaultCountry: 'gb' },
      { type: 'phoneNumber', id: 'intl' },
      { type: 'number', id: 'age', validate: { min: 18 } },
      { type: 'radio', id: 'doc', values: [{ value: 'passport', label: t('Passport') }, { value: 2, label: t('ID card') }] },
      { type: 'select', id: 'country', values: [{ value: 'de', label: t('Germany') }] },
      { type: 'checkbox', id: 'news' },
      { type: 'paragraph', id: 'p', label: t('Read this.') },
      { type: 'image', id: 'logo', src: 'https://rp.example/logo.png' },
      { type: 'notification', id: 'n', subtype: 'warning', label: t('Careful.') },
      { type: 'textfield', id: 'code', validate: { pattern: '[A-Z]{3}' } },
    ],
  } as unknown as DataForm;

  it('types every value: a number as a number, a phone number in E.164, a choice as its own value', async () => {
    const out = (await validateFormSubmission(
      family,
      { nick: 'Ann', note: 'a\r\nb', mail: 'ann@example.org', mobile: '07400 123456', intl: '+49 30 901820', age: '18,5', doc: '2', country: 'de', news: 'on', code: 'ABC', p: 'x', logo: 'y' },
      'en',
      today,
    ));
    expect(out).toEqual({
      ok: true,
      values: { nick: 'Ann', note: 'a\nb', mail: 'ann@example.org', mobile: '+447400123456', intl: '+4930901820', age: 18.5, doc: 2, country: 'de', news: true, code: 'ABC' },
    });
  });

  it('refuses each wrong value with the form message, else the service message in the page language', async () => {
    const out = (await validateFormSubmission(
      family,
      { nick: 'A', note: '123456', mail: '', mobile: '12', intl: '030 901820', age: '17', doc: 'visa', country: 'fr', code: 'abc' },
      'de',
      today,
    ));
    if (out.ok) throw new Error('accepted');
    expect(out.errors).toEqual({
      nick: '2 bis 4 Buchstaben.',
      note: 'Höchstens 5 Zeichen.',
      mail: 'Dieses Feld ist erforderlich.',
      mobile: 'Geben Sie eine gültige Telefonnummer ein.',
      intl: 'Geben Sie eine gültige Telefonnummer mit Ländervorwahl ein, etwa +49 30 123456.',
      age: 'Geben Sie 18 oder mehr ein.',
      doc: 'Wählen Sie eine der Möglichkeiten.',
      country: 'Wählen Sie eine der Möglichkeiten.',
      code: 'Dieser Wert ist ungültig.',
    });
    expect(out.values.intl).toBe('030 901820');
    expect((await validateFormSubmission(family, { mail: 'not-an-address' }, 'en', today))).toMatchObject({ errors: { mail: 'Enter an email address, such as name@example.com.' } });
    expect((await validateFormSubmission(family, { mail: 'a@b.co', age: '1e3' }, 'en', today))).toMatchObject({ errors: { age: 'Enter a number, such as 12 or 3.5.' } });
  });

  it('keeps what a read-only field showed, whatever is posted, and does not judge it', async () => {
    const confirm = {
      components: [
        { type: 'text', id: 'name', readOnly: true, validate: { required: true, minLength: 50 } },
        { type: 'checkbox', id: 'ok' },
        { type: 'number', id: 'n' },
      ],
    } as unknown as DataForm;
    expect((await validateFormSubmission(confirm, { name: 'Mallory', ok: 'on' }, 'en', today, { defaults: { name: 'Ann' } }))).toEqual({ ok: true, values: { name: 'Ann', ok: true } });
    expect((await validateFormSubmission(confirm, { name: 'Mallory', ok: 'on', n: '5' }, 'en', today, { defaults: { name: 'Ann', ok: '', n: '7' }, readOnly: true }))).toEqual({
      ok: true,
      values: { name: 'Ann', ok: false, n: 7 },
    });
  });
});
