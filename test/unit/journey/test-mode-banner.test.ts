import { describe, expect, it } from 'vitest';
import { noticePage, withTestModeBanner } from '../../../functions/journey/layout.js';

describe('withTestModeBanner', () => {
  it('puts one visible "Test mode" note first in the main content, in the page language', () => {
    const html = withTestModeBanner(noticePage('en', 'done'), 'en');
    const main = html.slice(html.indexOf('<main'));
    expect(main).toMatch(/^<main[^>]*>\n<p class="test-mode" role="note" data-test-mode="true"[^>]*>Test mode: /);
    expect(html.match(/data-test-mode/g)).toHaveLength(1);
    expect(withTestModeBanner(noticePage('de', 'done'), 'de')).toContain('>Testmodus: ');
  });

  it('leaves a page without one unchanged until asked', () => {
    expect(noticePage('en', 'done')).not.toContain('test-mode');
  });
});
