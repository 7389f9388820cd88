import { describe, expect, it } from 'vitest';
import { contrastRatio, parseColor, relativeLuminance } from '../../../functions/theme-server/contrast.js';

const ratio = (fg: string, bg: string) => contrastRatio(parseColor(fg)!, parseColor(bg)!);

describe('parseColor', () => {
  it('reads hex in its four lengths, rgb(), rgba() and hsl() in comma and space syntax', () => {
    expect(parseColor('#fff')).toEqual({ r: 255, g: 255, b: 255, a: 1 });
    expect(parseColor('#0008')).toEqual({ r: 0, g: 0, b: 0, a: 0x88 / 255 });
    expect(parseColor('#1D4ED8')).toEqual({ r: 0x1d, g: 0x4e, b: 0xd8, a: 1 });
    expect(parseColor('#1d4ed880')).toEqual({ r: 0x1d, g: 0x4e, b: 0xd8, a: 0x80 / 255 });
    expect(parseColor('rgb(29, 78, 216)')).toEqual({ r: 29, g: 78, b: 216, a: 1 });
    expect(parseColor('rgba(29,78,216,0.5)')).toEqual({ r: 29, g: 78, b: 216, a: 0.5 });
    expect(parseColor('rgb(100% 0% 0% / 50%)')).toEqual({ r: 255, g: 0, b: 0, a: 0.5 });
    const hsl = parseColor('hsl(0, 100%, 50%)')!;
    expect([hsl.r, hsl.g, hsl.b].map(Math.round)).toEqual([255, 0, 0]);
    const hsla = parseColor('hsla(240deg 100% 25% / .5)')!;
    expect([hsla.r, hsla.g, hsla.b].map(Math.round)).toEqual([0, 0, 128]);
    expect(hsla.a).toBe(0.5);
  });

  it('refuses what is not one of those forms', () => {
    for (const bad of ['red', '#ff', '#fffff', '#ggg', 'rgb(1,2)', 'rgb(1,2,3,4,5)', 'hsl(0, 100, 50)', 'rgb(10deg, 0, 0)', 'url(x)', '', 'var(--x)']) {
      expect(parseColor(bad), bad).toBeUndefined();
    }
  });
});

describe('contrastRatio', () => {
  it('gives the ratios WCAG 2.x gives, at the AA edges', () => {
    expect(ratio('#000', '#fff')).toBeCloseTo(21, 5);
    expect(ratio('#fff', '#fff')).toBe(1);
    // #777 on white is the classic near miss (4.48:1), #767676 the lightest grey that passes (4.54:1).
    expect(ratio('#777', '#fff')).toBeCloseTo(4.48, 2);
    expect(ratio('#777', '#fff')).toBeLessThan(4.5);
    expect(ratio('#767676', '#fff')).toBeCloseTo(4.54, 2);
    expect(ratio('#767676', '#fff')).toBeGreaterThanOrEqual(4.5);
    // 3:1 for components: #949494 on white passes (3.03:1), #959595 fails (2.99:1).
    expect(ratio('#949494', '#fff')).toBeGreaterThanOrEqual(3);
    expect(ratio('#959595', '#fff')).toBeLessThan(3);
  });

  it('is symmetric: the lighter colour is always the numerator', () => {
    expect(ratio('#fff', '#1d4ed8')).toBeCloseTo(ratio('#1d4ed8', '#fff'), 10);
  });

  it('composites a translucent foreground over its background, and a translucent background over white', () => {
    // Black at 50% over white is #808080 (to the nearest value).
    expect(ratio('rgba(0,0,0,0.5)', '#fff')).toBeCloseTo(ratio('#7f7f7f', '#fff'), 1);
    expect(ratio('#fff', 'rgba(0,0,0,0)')).toBe(1);
  });

  it('uses the sRGB luminance coefficients', () => {
    expect(relativeLuminance({ r: 255, g: 0, b: 0, a: 1 })).toBeCloseTo(0.2126, 4);
    expect(relativeLuminance({ r: 0, g: 255, b: 0, a: 1 })).toBeCloseTo(0.7152, 4);
    expect(relativeLuminance({ r: 0, g: 0, b: 255, a: 1 })).toBeCloseTo(0.0722, 4);
  });
});
