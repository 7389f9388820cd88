import { describe, expect, it } from 'vitest';
import { ConditionError } from '../../../statemachines/conditions/index.js';
import { evaluateTemplate, parseTemplate, templateText } from '../../../statemachines/templates.js';

const FAMILY = '${idv.config._redirectUrl > "" ? idv.config._redirectUrl : "www.nab.com.au"}&otpRefId=${idv.otp.otpRef}';
const fill = (template: string, vars: Record<string, unknown>) => evaluateTemplate(parseTemplate(template), vars as never);

describe('templates: text with embedded expressions', () => {
  it("evaluates the family's redirect URL: a ternary on a variable, then text, then another", () => {
    expect(fill(FAMILY, { idv: { config: { _redirectUrl: 'https://rp.example/back?x=1' }, otp: { otpRef: 'R42' } } })).toBe('https://rp.example/back?x=1&otpRefId=R42');
    // No _redirectUrl: the literal branch; a missing value is the empty text.
    expect(fill(FAMILY, {})).toBe('www.nab.com.au&otpRefId=');
    expect(fill(FAMILY, { idv: { config: { _redirectUrl: '' } } })).toBe('www.nab.com.au&otpRefId=');
  });

  it('splits text and expressions, and keeps text without any as it is', () => {
    expect(parseTemplate('https://x.example/a')).toEqual([{ text: 'https://x.example/a' }]);
    expect(parseTemplate('')).toEqual([]);
    const parts = parseTemplate('a${b}c');
    expect(parts.map((p) => ('text' in p ? p.text : p.source))).toEqual(['a', '${b}', 'c']);
  });

  it('reads a } inside a quoted string as text of the expression, and \\${ as text', () => {
    expect(fill('${x ? "}" : "{"}!', { x: true })).toBe('}!');
    expect(fill("${x ? '\\'}' : 'n'}", { x: true })).toBe("'}");
    expect(fill('\\${x} is ${x}', { x: 5 })).toBe('${x} is 5');
  });

  it('makes text of each value as JUEL does: null empty, numbers and booleans as written', () => {
    expect(fill('${n}/${b}/${s}/${m}', { n: 2.5, b: false, s: 'ok' })).toBe('2.5/false/ok/');
    expect(templateText([1, 'a'])).toBe('[1,"a"]');
    expect(templateText({ a: 1 })).toBe('{"a":1}');
  });

  it('refuses an expression that is not closed or does not parse, saying where', () => {
    expect(() => parseTemplate('https://x/${a')).toThrow(ConditionError);
    expect(() => parseTemplate('https://x/${a')).toThrow(/character 10/);
    expect(() => parseTemplate('x${a ==}')).toThrow(/expression at character 1/);
    expect(() => parseTemplate('x${foo.bar()}')).toThrow(/not supported/);
  });

  it('fails arithmetic on text by naming the expression, not the value', () => {
    const parts = parseTemplate('n=${a + 1}');
    expect(evaluateTemplate(parts, { a: 2 })).toBe('n=3');
    let message = '';
    try {
      evaluateTemplate(parts, { a: 'secret-value' });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('a + 1');
    expect(message).not.toContain('secret-value');
  });
});
