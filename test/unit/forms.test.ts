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
  it('accepts a valid submission and types its values', () => {
    const out = validateFormSubmission(form, { firstName: ' Ann ', dob: '2008-11-21', email: 'a@b.co', age: '42', consent: 'on', doc: 'passport', extra: 'x' }, 'en', today);
    expect(out).toEqual({ ok: true, values: { firstName: 'Ann', dob: '2008-11-21', email: 'a@b.co', age: 42, consent: true, doc: 'passport' } });
  });

  it('rejects when required fields are missing, in the end user language with English as fallback', () => {
    const out = validateFormSubmission(form, { dob: '' }, 'de-CH', today);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.errors.firstName).toBe('Bitte eingeben.');
    expect(out.errors.consent).toBe('Dieses Feld ist erforderlich.');
    expect(validateFormSubmission(form, {}, 'fr', today)).toMatchObject({ errors: { firstName: 'Enter it.' } });
  });

  it('rejects at the edges of each rule and keeps what was typed', () => {
    const out = validateFormSubmission(
      form,
      { firstName: 'Annabel', dob: '2008-11-22', email: 'nope', age: '131', consent: 'on', doc: 'visa' },
      'en',
      today,
    );
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(Object.keys(out.errors).sort()).toEqual(['age', 'dob', 'doc', 'email', 'firstName']);
    expect(out.errors.dob).toBe('Adults only.');
    expect(out.values.firstName).toBe('Annabel');
    expect(validateFormSubmission(form, { firstName: 'Annab', dob: '2008-11-21', consent: 'on' }, 'en', today).ok).toBe(true);
    expect(validateFormSubmission(form, { firstName: 'A', dob: '2008-02-30', consent: 'on' }, 'en', today).ok).toBe(false);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(validateFormSubmission(form, { firstName: '😀😀😀😀😀', dob: '2000-01-01', consent: 'on' }, 'en', today).ok).toBe(true);
  });
});

describe('localized', () => {
  it('falls back from a regional tag to its language, then English', () => {
    expect(localized(t('Hello', 'Hallo'), 'de-AT')).toBe('Hallo');
    expect(localized(t('Hello', 'Hallo'), 'it')).toBe('Hello');
    expect(localized(undefined, 'en')).toBe('');
  });
});
