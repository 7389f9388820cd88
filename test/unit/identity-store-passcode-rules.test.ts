import { describe, expect, it } from 'vitest';
import { passcodeRules, type PasscodeRequirements } from '../../functions/identity-store/passcodes/passcode-rules.js';
import { DEFAULT_REQUIREMENTS } from '../../functions/identity-store/stores/stores.js';

const policy = (r: Partial<PasscodeRequirements>): PasscodeRequirements => ({ ...DEFAULT_REQUIREMENTS, ...r });
/** Whether each rule of the policy is met, by rule id. */
const verdicts = (passcode: string, r: Partial<PasscodeRequirements>) => Object.fromEntries(passcodeRules(passcode, policy(r)).map((rule) => [rule.id, rule.ok]));

describe('passcodeRules', () => {
  it('rejects when the passcode is one character under minimumLength, and accepts it at the minimum', () => {
    expect(verdicts('abcdefg', { minimumLength: 8 }).minimumLength).toBe(false);
    expect(verdicts('abcdefgh', { minimumLength: 8 }).minimumLength).toBe(true);
  });

  it('rejects when the passcode is one character over maximumLength, and accepts it at the maximum', () => {
    expect(verdicts('a'.repeat(12), { minimumLength: 1, maximumLength: 12 }).maximumLength).toBe(true);
    expect(verdicts('a'.repeat(13), { minimumLength: 1, maximumLength: 12 }).maximumLength).toBe(false);
  });

  it('counts characters, not UTF-16 units: an emoji is one character', () => {
    // '😀' is two UTF-16 units: seven letters and one emoji are eight characters.
    expect(verdicts('abcdefg😀', { minimumLength: 9 }).minimumLength).toBe(false);
    expect(verdicts('abcdef😀', { minimumLength: 1, maximumLength: 7 }).maximumLength).toBe(true);
  });

  it('lists only the count rules a policy asks for, with the number asked', () => {
    const rules = passcodeRules('abcdefgh', policy({ digitCount: 2 }));
    expect(rules.map((r) => r.id)).toEqual(['minimumLength', 'maximumLength', 'digitCount']);
    expect(rules.find((r) => r.id === 'digitCount')).toEqual({ id: 'digitCount', count: 2, ok: false });
  });

  it('rejects when a class has one character fewer than its count', () => {
    const r = { digitCount: 2, symbolCount: 2, lowerCaseCount: 2, upperCaseCount: 2 };
    expect(verdicts('1!aA', r)).toMatchObject({ digitCount: false, symbolCount: false, lowerCaseCount: false, upperCaseCount: false });
    expect(verdicts('12!#abAB', r)).toMatchObject({ digitCount: true, symbolCount: true, lowerCaseCount: true, upperCaseCount: true });
  });

  it('counts letters and digits of any script, and does not count a space as a symbol', () => {
    expect(verdicts('ÄÖ', { upperCaseCount: 2 }).upperCaseCount).toBe(true);
    expect(verdicts('éß', { lowerCaseCount: 2 }).lowerCaseCount).toBe(true);
    expect(verdicts('٣٤', { digitCount: 2 }).digitCount).toBe(true);
    expect(verdicts('a b c', { symbolCount: 1 }).symbolCount).toBe(false);
    expect(verdicts('a b-c', { symbolCount: 1 }).symbolCount).toBe(true);
  });

  it('rejects when the passcode mixes one class fewer than characterVariety', () => {
    expect(verdicts('abcABC12', { characterVariety: 4 }).characterVariety).toBe(false);
    expect(verdicts('abcABC1!', { characterVariety: 4 }).characterVariety).toBe(true);
    expect(verdicts('abcdefgh', { characterVariety: 2 }).characterVariety).toBe(false);
  });

  it('rejects when a required expression does not match, each with its own message', () => {
    const rules = passcodeRules('abcdefgh', policy({ requiredRegExes: [{ pattern: '[a-z]', error: 'a letter' }, { pattern: '\\d', error: 'a digit' }] }));
    expect(rules.filter((r) => r.id.startsWith('required-'))).toEqual([
      { id: 'required-0', message: 'a letter', ok: true },
      { id: 'required-1', message: 'a digit', ok: false },
    ]);
  });

  it('accepts when any one allowed expression matches, and rejects when none does', () => {
    const allowedRegExes = [
      { pattern: '^\\d+$', error: 'Digits only,' },
      { pattern: '^[a-z]+$', error: 'or lower case only.' },
    ];
    expect(passcodeRules('12345678', policy({ allowedRegExes })).find((r) => r.id === 'allowed')).toEqual({ id: 'allowed', message: 'Digits only, or lower case only.', ok: true });
    expect(verdicts('abcdefgh', { allowedRegExes }).allowed).toBe(true);
    expect(verdicts('abcd1234', { allowedRegExes }).allowed).toBe(false);
  });

  it('rejects when a disallowed expression matches, including a backreference rule', () => {
    const disallowedRegExes = [
      { pattern: '(.)\\1\\1', error: 'no character three times in a row' },
      { pattern: 'password', error: 'not "password"' },
    ];
    expect(verdicts('abcdefgh', { disallowedRegExes })).toMatchObject({ 'disallowed-0': true, 'disallowed-1': true });
    expect(verdicts('abcccdef', { disallowedRegExes })).toMatchObject({ 'disallowed-0': false, 'disallowed-1': true });
    expect(verdicts('mypassword', { disallowedRegExes })).toMatchObject({ 'disallowed-0': true, 'disallowed-1': false });
  });

  it('matches expressions with the u flag, so \\p{...} classes work', () => {
    expect(verdicts('abcdefgh', { requiredRegExes: [{ pattern: '\\p{Lu}', error: 'an upper-case letter' }] })['required-0']).toBe(false);
    expect(verdicts('abcdEfgh', { requiredRegExes: [{ pattern: '\\p{Lu}', error: 'an upper-case letter' }] })['required-0']).toBe(true);
  });
});
