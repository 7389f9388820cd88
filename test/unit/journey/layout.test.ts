import { describe, expect, it } from 'vitest';
import { page, PAGE_SCRIPT } from '../../../functions/journey/layout.js';

describe('page', () => {
  it('follows by script a page that looks again later, with the meta refresh only for a browser without script', () => {
    const html = page({ lang: 'en', title: 'T', body: '<h1>T</h1>', refresh: { seconds: 3 } });
    expect(html).toContain('<noscript><meta http-equiv="refresh" content="3"></noscript>');
    expect(html.replace(/<noscript>.*?<\/noscript>/g, '')).not.toContain('http-equiv="refresh"');
    expect(html).toMatch(/<body data-sending="[^"]*" data-refresh="3" data-shown="[A-Za-z0-9_-]{22}">/);
    expect(html).toContain(`<script src="${PAGE_SCRIPT}" defer></script>`);
  });

  it('stamps what a waiting page shows as the server rendered it: the same page the same, a changed page not', () => {
    const stamp = (html: string) => /data-shown="([^"]+)"/.exec(html)![1];
    const a = page({ lang: 'en', title: 'T', body: '<h1>Waiting</h1>', refresh: { seconds: 3 } });
    expect(stamp(page({ lang: 'en', title: 'T', body: '<h1>Waiting</h1>', refresh: { seconds: 3 } }))).toBe(stamp(a));
    expect(stamp(page({ lang: 'en', title: 'T', body: '<h1>Waiting.</h1>', refresh: { seconds: 3 } }))).not.toBe(stamp(a));
    // The progress bar is part of what it shows.
    expect(stamp(page({ lang: 'en', title: 'T', body: '<h1>Waiting</h1>', refresh: { seconds: 3 }, chrome: { progress: [2, 3] } }))).not.toBe(stamp(a));
  });

  it('goes on to a URL after a delay by script, and at once by a meta refresh', () => {
    const later = page({ lang: 'en', title: 'T', body: '', refresh: { seconds: 3, url: 'https://rp.example/?a=1&b=2' } });
    expect(later).toContain('<noscript><meta http-equiv="refresh" content="3;url=https://rp.example/?a=1&amp;b=2"></noscript>');
    expect(later).toContain('data-refresh="3" data-refresh-url="https://rp.example/?a=1&amp;b=2"');
    const now = page({ lang: 'en', title: 'T', body: '', refresh: { seconds: 0, url: 'https://rp.example/' } });
    expect(now).toContain('<meta http-equiv="refresh" content="0;url=https://rp.example/">');
    expect(now).not.toContain('<noscript>');
    expect(now).not.toContain('data-refresh');
    // Nothing to follow, no form: no script.
    expect(now).not.toContain('<script');
  });
});
