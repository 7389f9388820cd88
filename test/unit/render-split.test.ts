/**
 * Temporary check for the split of journey/render.ts: every screen, in every language and for
 * a spread of inputs, renders byte for byte what the old module renders. Removed with render.ts.
 */
import { describe, expect, it } from 'vitest';
import * as old from '../../functions/journey/render.js';
import { escapeHtml, localized } from '../../functions/journey/layout.js';
import { LANGUAGES, messages, pickLanguage } from '../../functions/journey/messages/index.js';
import { renderDataForm } from '../../functions/journey/screens/data-form.js';
import { renderFaceCapture } from '../../functions/journey/screens/face-capture.js';
import { renderPasscodeRegistration } from '../../functions/journey/screens/passcode-registration.js';
import { renderPasscodeAuthentication } from '../../functions/journey/screens/passcode-authentication.js';
import { renderPasskey } from '../../functions/journey/screens/passkey.js';
import { renderDone } from '../../functions/journey/screens/done.js';
import { renderTrouble } from '../../functions/journey/screens/trouble.js';
import { renderGone } from '../../functions/journey/screens/gone.js';
import { renderWaiting } from '../../functions/journey/screens/waiting.js';
import { renderUnsupported } from '../../functions/journey/screens/unsupported.js';
import { journeyErrorPage } from '../../functions/journey/error-page.js';
import type { DataForm } from '../../statemachines/definition.js';
import type { PasscodeRequirements } from '../../functions/identity-store/passcode-rules.js';

const L = (en: string, de?: string) => ({ values: de ? { en, de } : { en } });
const form = {
  title: L('Your <details> & "more"', 'Ihre Angaben'),
  subtitle: L('Tell us who you are', "Sagen Sie's uns"),
  version: 1,
  components: [
    { type: 'textfield', id: 'firstName', label: L('First name', 'Vorname'), validate: { required: true, maxLength: 100 } },
    { type: 'email', id: 'mail', label: L('E-mail') },
    { type: 'phoneNumber', id: 'phone', label: L('Phone', 'Telefon'), validate: { required: true } },
    { type: 'number', id: 'age', label: L('Age', 'Alter') },
    { type: 'date', id: 'dob', label: L('Date of birth') },
    { type: 'textarea', id: 'note', label: L('Note', 'Notiz'), validate: { maxLength: 5 } },
    { type: 'select', id: 'country', label: L('Country', 'Land'), options: [{ value: 'de', label: L('Germany', 'Deutschland') }, { value: 'a"b', label: L('<A>') }] },
    { type: 'checkbox', id: 'ok', label: L('I agree', 'Einverstanden'), validate: { required: true } },
    { type: 'checkbox', id: 'news', label: L('News') },
  ],
} as unknown as DataForm;
const bare = { title: L('Plain'), version: 1, components: [{ type: 'textfield', id: 'x', label: L('X') }] } as unknown as DataForm;

const requirements = (over: Partial<PasscodeRequirements>): PasscodeRequirements => ({
  minimumLength: 6, maximumLength: 64, digitCount: 0, symbolCount: 0, lowerCaseCount: 0, upperCaseCount: 0, characterVariety: 0,
  passcodeHistory: 0, requiredRegExes: [], allowedRegExes: [], disallowedRegExes: [], ...over,
});
const rich = requirements({
  digitCount: 1, symbolCount: 2, lowerCaseCount: 1, upperCaseCount: 1, characterVariety: 3, passcodeHistory: 2,
  requiredRegExes: [{ pattern: '^a', error: 'Starts with <a>' }], allowedRegExes: [{ pattern: '.', error: 'Any' }, { pattern: 'x', error: "x's" }],
  disallowedRegExes: [{ pattern: '123', error: 'No "123"' }],
});

function cases(lang: 'en' | 'de'): [string, () => string, () => string][] {
  const a = '/journey/p-1/steps/a?c=x&y=<z>';
  const dataForm = (input: Parameters<typeof renderDataForm>[0]) => [() => old.renderDataForm(input), () => renderDataForm(input)] as const;
  const out: [string, () => string, () => string][] = [];
  const add = (name: string, pair: readonly [() => string, () => string]) => out.push([`${lang} ${name}`, pair[0], pair[1]]);
  add('data form empty', dataForm({ form, lang, action: a, values: {} }));
  add('data form bare', dataForm({ form: bare, lang, action: a, values: { x: 'y' } }));
  add('data form values', dataForm({ form, lang, action: a, values: { firstName: '<script>"', mail: 'a@b', country: 'a"b', ok: 'on', news: 'true', note: "it's & <b>" } }));
  add('data form errors', dataForm({ form, lang, action: a, values: { country: 'de', ok: '' }, errors: { firstName: 'Too <long>', ok: 'Needed', country: 'Pick "one"' } }));
  add('data form empty errors', dataForm({ form, lang, action: a, values: {}, errors: {} }));
  for (const error of [undefined, '', 'missing', 'tooLarge', 'notAnImage', 'unreadable', 'tooSmall', 'other']) {
    const input = { lang, action: a, maxBytes: 3 * 1024 * 1024, ...(error !== undefined ? { error } : {}) };
    add(`face ${error}`, [() => old.renderFaceCapture(input), () => renderFaceCapture(input)]);
  }
  const srp = { N: 'abc', g: '2', s: 'salt"<>', i: 'user' };
  for (const req of [requirements({}), rich]) {
    for (const error of [undefined, 'reused', 'failed'] as const) {
      const input = { lang, action: a, srp, requirements: req, ...(error ? { error } : {}) };
      add(`passcode registration ${error}`, [() => old.renderPasscodeRegistration(input), () => renderPasscodeRegistration(input)]);
    }
  }
  for (const wrong of [undefined, false, true]) {
    const input = { lang, action: a, challenge: { B: 'b"<', s: 'salt', attemptsLeft: 2 }, ...(wrong !== undefined ? { wrong } : {}) };
    add(`passcode authentication ${wrong}`, [() => old.renderPasscodeAuthentication(input), () => renderPasscodeAuthentication(input)]);
  }
  for (const mode of ['register', 'authenticate'] as const) {
    for (const failed of [undefined, false, true]) {
      const input = { lang, mode, action: a, optionsUrl: `${a}/options`, ...(failed !== undefined ? { failed } : {}) };
      add(`passkey ${mode} ${failed}`, [() => old.renderPasskey(input), () => renderPasskey(input)]);
    }
  }
  for (const redirectUrl of [undefined, '', 'https://rp.example/done?a=1&b="2"']) {
    add(`done ${redirectUrl}`, [() => old.renderDone({ lang, redirectUrl }), () => renderDone({ lang, redirectUrl })]);
  }
  add('done without key', [() => old.renderDone({ lang }), () => renderDone({ lang })]);
  add('trouble', [() => old.renderTrouble(lang), () => renderTrouble(lang)]);
  add('gone', [() => old.renderGone(lang), () => renderGone(lang)]);
  add('waiting', [() => old.renderWaiting(lang), () => renderWaiting(lang)]);
  add('unsupported', [() => old.renderUnsupported(lang), () => renderUnsupported(lang)]);
  return out;
}

describe('the split render modules render what render.ts rendered', () => {
  it('has the same languages and messages', () => {
    expect(LANGUAGES).toEqual(old.LANGUAGES);
    for (const lang of old.LANGUAGES) expect(messages(lang)).toEqual(old.strings(lang));
  });
  for (const lang of old.LANGUAGES) {
    for (const [name, before, after] of cases(lang)) {
      it(name, () => expect(after()).toBe(before()));
    }
  }
  it('error pages are the wrapper error page', () => {
    for (const q of [undefined, '', 'de', 'de-CH', 'DE_at', 'fr', 'en-GB', 'constructor', '__proto__', 'toString']) {
      expect(pickLanguage(q)).toBe(old.pickLanguage(q));
      for (const status of [400, 403, 404, 409, 410, 500, 502, 503]) {
        const l = old.pickLanguage(q);
        expect(journeyErrorPage(status, q)).toBe(status >= 500 ? old.renderTrouble(l) : old.renderGone(l));
      }
    }
  });
  it('escapes and localizes the same', () => {
    for (const v of [undefined, null, 0, 12, '', `<a href="x">'&'</a>`, { toString: () => '<o>' }]) expect(escapeHtml(v)).toBe(old.escapeHtml(v));
    for (const lang of ['en', 'de', 'de-CH', 'fr', 'DE']) {
      for (const t of [undefined, L('a', 'b'), { values: { fr: 'f' } }, { values: {} }, { values: { 'de-CH': 'ch', de: 'd' } }]) {
        expect(localized(t as never, lang)).toBe(old.localized(t as never, lang));
      }
    }
  });
});
