import { describe, expect, it } from 'vitest';
import { LANGUAGES, messages } from '../../../functions/journey/messages/index.js';

/** Messages that read the same in German and English. */
const SAME_IN_GERMAN = new Set(['summaryItem', 'pcNew']);

describe('messages', () => {
  it('gives every message in every language, with the same placeholders as in English', () => {
    const en = messages('en');
    for (const lang of LANGUAGES) {
      const m = messages(lang);
      expect(Object.keys(m).sort(), lang).toEqual(Object.keys(en).sort());
      for (const [key, text] of Object.entries(m)) {
        expect(text.trim(), `${lang}.${key}`).not.toBe('');
        expect([...text.matchAll(/\{\w+\}/g)].map((x) => x[0]).sort(), `${lang}.${key}`).toEqual([...en[key as keyof typeof en].matchAll(/\{\w+\}/g)].map((x) => x[0]).sort());
      }
    }
  });

  it('leaves no English in German', () => {
    const en = messages('en');
    const de = messages('de');
    const same = Object.keys(en).filter((k) => en[k as keyof typeof en] === de[k as keyof typeof de]);
    expect(same.sort()).toEqual([...SAME_IN_GERMAN].sort());
  });
});
