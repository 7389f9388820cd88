import { describe, expect, it } from 'vitest';
import { page } from '../../../functions/journey/layout.js';
import { renderPreview } from '../../../functions/journey/screens/preview.js';
import { journeyErrorPage } from '../../../functions/journey/error-page.js';
import { renderDone } from '../../../functions/journey/screens/done.js';
import { renderGone } from '../../../functions/journey/screens/gone.js';
import { renderPasskey } from '../../../functions/journey/screens/passkey.js';
import { renderPaused } from '../../../functions/journey/screens/paused.js';
import { renderRedirect } from '../../../functions/journey/screens/redirect.js';
import { renderReview } from '../../../functions/journey/screens/review.js';
import { renderSwitchBack, renderSwitchToPhone } from '../../../functions/journey/screens/switch-device.js';
import { renderTrouble } from '../../../functions/journey/screens/trouble.js';
import { renderUnsupported } from '../../../functions/journey/screens/unsupported.js';
import { renderWaiting } from '../../../functions/journey/screens/waiting.js';
import { renderFaceCapture } from '../../../functions/journey/screens/face-capture.js';
import { cssColour, defaultProperties, themeCss, themeStyle, THEME_PROPERTIES } from '../../../functions/journey/theme-style.js';
import { refusalOf, relyingPartyOf } from '../../../functions/journey/refusal-chrome.js';
import { DEFAULT_PALETTE, resolvePalette } from '../../../functions/theme-server/palette.js';
import type { JourneyTheme } from '../../../functions/process-manager/model.js';

const ID = '3b241101-e2bb-4255-8caf-4136c566a962';
const FONT_URL = `/themes/${ID}/assets/AAAAAAAAAAAAAAAAAAAAAA/Brand%20Sans.woff2`;
const LOGO_URL = `/themes/${ID}/assets/BBBBBBBBBBBBBBBBBBBBBB/logo.png`;

function theme(over: Partial<JourneyTheme> = {}): JourneyTheme {
  return {
    id: ID,
    name: 'Nordbank brand',
    version: 2,
    palette: resolvePalette({
      general: { backgroundColor: '#0b1f4d', surfaceColor: 'rgb(255 255 255)' },
      buttons: { primaryBackgroundColor: '#0b5394', primaryTextColor: '#ffffff' },
      header: { backgroundColor: 'hsl(220, 60%, 20%)', textColor: '#ffffff' },
      progressBar: { fillColor: '#0b5394', trackColor: '#d9e2ef' },
    }),
    fontFamily: 'Brand Sans',
    fonts: [{ family: 'Brand Sans', url: FONT_URL, format: 'woff2' }],
    logo: { name: 'logo', url: LOGO_URL, contentType: 'image/png' },
    ...over,
  };
}

const presentation = { name: 'Nordbank' };

describe('the pages\' colours as custom properties', () => {
  it('defaults every property to DEFAULT_PALETTE, the pages\' own look', () => {
    const css = defaultProperties();
    for (const [property, area, member] of THEME_PROPERTIES) {
      expect(css).toContain(`${property}:${(DEFAULT_PALETTE[area] as Record<string, string>)[member]}`);
    }
    expect(css).toContain('--font:system-ui,');
  });

  it('paints nothing in a colour of its own but the fixed ones (warning note, consent border, tints of white, shadows, the liveness stage)', () => {
    const html = page({ lang: 'en', title: 'T', body: '' });
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!.replace(defaultProperties(), '');
    const literal = style.match(/(?<=[:\s])#[0-9a-f]{3,8}\b|rgba?\([^)]*\)/gi) ?? [];
    // The liveness challenge's stage is white with black words whatever the theme: its white is the light the colours are measured against.
    expect(new Set(literal)).toEqual(new Set(['#fff5f4', '#eff4ff', '#ecfdf3', '#fffaeb', 'rgba(0,0,0,.08)', '#b54708', '#c9ccd3', '#fff', '#111']));
  });
});

describe('themeCss', () => {
  it('sets each property from the palette, the font faces and the font, and the tinted boxes to the surface', () => {
    const css = themeCss(theme());
    expect(css).toContain('--page-bg:#0b1f4d;');
    expect(css).toContain('--surface:rgb(255 255 255);');
    expect(css).toContain('--button-bg:#0b5394;--button-text:#ffffff;');
    expect(css).toContain('--header-bg:hsl(220, 60%, 20%);');
    expect(css).toContain('--progress-track:#d9e2ef;--progress-fill:#0b5394;');
    // What the palette left out is the default, set all the same.
    expect(css).toContain('--link:#1d4ed8;');
    expect(css).toContain('--summary-bg:var(--surface)');
    expect(css).toContain(`@font-face{font-family:"Brand Sans";src:url("${FONT_URL}") format("woff2");font-display:swap}`);
    expect(css).toContain('--font:"Brand Sans",system-ui,');
  });

  it('keeps the pages\' font when the chosen font is not among the faces', () => {
    expect(themeCss(theme({ fontFamily: null }))).not.toContain('--font:');
    expect(themeCss(theme({ fontFamily: 'Other' }))).not.toContain('--font:');
  });

  it('is nothing without a theme: no extra style on the page', () => {
    expect(themeCss(undefined)).toBe('');
    expect(themeStyle(undefined)).toBe('');
    const html = page({ lang: 'en', title: 'T', body: '', chrome: { presentation } });
    expect(html.match(/<style/g)).toHaveLength(1);
    expect(html).not.toContain('@font-face');
  });

  it('puts nothing in CSS that could end a declaration, a rule or the style element', () => {
    const evil = ['#fff;}</style><script>alert(1)</script>', 'rgb(1,2,3);}body{display:none', 'red', 'url(https://x.example/a)', 'var(--x)', 'expression(alert(1))', '#fff}', '#fff\n'];
    for (const value of evil) expect(cssColour(value), value).toBeUndefined();
    const hostile = theme({
      palette: { ...resolvePalette({}), buttons: { ...resolvePalette({}).buttons, primaryBackgroundColor: evil[0]! }, text: { ...resolvePalette({}).text, linkColor: evil[1]! } },
      fonts: [
        { family: 'x"}</style><script>alert(1)</script>', url: FONT_URL, format: 'woff2' },
        { family: 'Fine', url: `/themes/${ID}/assets/AAAA/a.woff2") ; } body { x:url("`, format: 'woff2' },
        { family: 'Fine', url: `https://evil.example/f.woff2`, format: 'woff2' },
        { family: 'Fine', url: FONT_URL, format: 'woff2") ; }' },
      ],
      fontFamily: 'x"}</style><script>alert(1)</script>',
      logo: { name: 'logo', url: 'javascript:alert(1)', contentType: 'image/png' },
    });
    const css = themeCss(hostile);
    expect(css).not.toMatch(/<|script|alert|evil|display:none|\bx:/);
    // The refused members are not set: the pages' defaults stay.
    expect(css).not.toContain('--button-bg:');
    expect(css).not.toContain('--link:');
    expect(css).toContain('--button-text:#ffffff;');
    expect(css).not.toContain('@font-face');
    const html = page({ lang: 'en', title: 'T', body: '', chrome: { theme: hostile } });
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('javascript:');
    expect(html.match(/<\/style>/g)).toHaveLength(2);
  });
});

describe('a themed page', () => {
  it('carries the theme\'s style after the pages\' own, and its logo beside the relying party\'s name', () => {
    const html = page({ lang: 'en', title: 'T', body: '<h1>T</h1>', chrome: { presentation: { ...presentation, logoUrl: 'https://cdn.example/l.png' }, theme: theme() } });
    expect(html).toMatch(new RegExp(`<\\/style><style data-theme="${ID}">:root\\{--page-bg:#0b1f4d;`));
    // The theme's logo (same origin) before the presentation's; decorative beside the name, which says the same.
    expect(html).toContain(`<header class="rp" aria-label="Who this page is for"><img src="${LOGO_URL}" alt="" height="40" referrerpolicy="no-referrer" decoding="async"><span>Nordbank</span></header>`);
    expect(html).not.toContain('cdn.example');
  });

  it('shows a theme\'s logo without a presentation, named by the theme', () => {
    const html = page({ lang: 'en', title: 'T', body: '', chrome: { theme: theme() } });
    expect(html).toContain(`<header class="rp" aria-label="Who this page is for"><img src="${LOGO_URL}" alt="Nordbank brand"`);
    expect(page({ lang: 'en', title: 'T', body: '', chrome: { theme: theme({ logo: null }) } })).not.toContain('<header');
  });

  it('puts a document on Confirm Image over the document capture\'s background, a face over the face capture\'s', () => {
    const palette = resolvePalette({ documentCapture: { backgroundColor: '#202a44' }, faceCapture: { backgroundColor: '#2b0a1a' } });
    const css = themeCss(theme({ palette }));
    expect(css).toContain('--camera-bg:#2b0a1a;--document-bg:#202a44;');
    const image = { dataUrl: 'data:image/png;base64,AAAA', width: 1, height: 1 };
    expect(renderPreview({ lang: 'en', action: '/a', kind: 'document', image, chrome: { theme: theme({ palette }) } })).toContain('<div class="camera document"><img');
    expect(renderPreview({ lang: 'en', action: '/a', kind: 'face', image })).toContain('<div class="camera"><img');
  });

  it('keeps the presentation\'s logo when the theme has none', () => {
    const html = page({ lang: 'en', title: 'T', body: '', chrome: { presentation: { ...presentation, logoUrl: 'https://cdn.example/l.png' }, theme: theme({ logo: null }) } });
    expect(html).toContain('<img src="https://cdn.example/l.png" alt=""');
  });
});

describe('every hosted screen of a themed journey', () => {
  it('carries the theme\'s style and logo, with the chrome its caller gives it', () => {
    const chrome = { presentation, theme: theme() };
    const screens: Record<string, string> = {
      'switch to phone': renderSwitchToPhone({ lang: 'en', link: 'https://demo.example/journey/x/switch?s=s', chrome }),
      'switch back': renderSwitchBack('en', chrome),
      passkey: renderPasskey({ lang: 'en', mode: 'register', action: '/a', optionsUrl: '/o', chrome }),
      'face capture': renderFaceCapture({ lang: 'en', action: '/a', maxBytes: 1000, notice: { retentionDays: 1, required: true }, chrome }),
      preview: renderPreview({ lang: 'en', action: '/a', kind: 'face', chrome }),
      paused: renderPaused('en', chrome),
      waiting: renderWaiting('en', chrome),
      unsupported: renderUnsupported('en', chrome),
      redirect: renderRedirect('en', 'https://nordbank.example/back', chrome),
      done: renderDone({ lang: 'en', redirectUrl: 'https://nordbank.example/back', chrome }),
      review: renderReview({ lang: 'en', redirectUrl: 'https://nordbank.example/back', chrome }),
      gone: renderGone('en', chrome),
      trouble: renderTrouble('en', chrome),
      'error page of a link that proved itself': journeyErrorPage(410, 'en', undefined, chrome),
    };
    for (const [name, html] of Object.entries(screens)) {
      expect(html, name).toContain(`<style data-theme="${ID}">:root{--page-bg:#0b1f4d;`);
      expect(html, name).toContain(`<img src="${LOGO_URL}" alt=""`);
    }
    // A link that matches nothing: no chrome, so no theme.
    expect(journeyErrorPage(404, 'en')).not.toContain('data-theme');
  });
});

describe('the error page of a refused link', () => {
  it('wears the theme of a journey whose link proved itself, and nothing for one that did not', () => {
    const marked = refusalOf(new Error('used'), { pages: { presentation, theme: theme() } });
    expect(relyingPartyOf(marked)).toEqual({ presentation, theme: theme() });
    expect(relyingPartyOf(refusalOf(new Error('used'), { pages: { theme: theme() } }))).toEqual({ theme: theme() });
    expect(relyingPartyOf(refusalOf(new Error('used'), undefined))).toBeUndefined();
    expect(relyingPartyOf(new Error('unmarked'))).toBeUndefined();
  });
});
