/**
 * CSS colour strings and their WCAG 2.x contrast ratio. Written here rather than taken from a
 * package: none of the colour libraries (wcag-contrast, color, culori, colorjs.io) is a
 * dependency, and the math is the short formula of WCAG 2.2's "relative luminance" and
 * "contrast ratio" definitions.
 *
 * Colours are sRGB as CSS writes them: `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, `rgb()` /
 * `rgba()` and `hsl()` / `hsla()` (comma or space syntax, `/ alpha`). Named colours are not
 * taken: a palette is data a designer exports, and one spelling per colour keeps it checkable.
 */

/** A colour: red, green and blue 0–255, alpha 0–1. */
export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

const NUMBER = String.raw`[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?`;
const FUNCTION = new RegExp(String.raw`^(rgba?|hsla?)\(\s*(${NUMBER}(?:%|deg)?)\s*(?:,\s*|\s+)(${NUMBER}%?)\s*(?:,\s*|\s+)(${NUMBER}%?)\s*(?:(?:,|/)\s*(${NUMBER}%?)\s*)?\)$`, 'i');

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

function channel(value: string): number {
  return value.endsWith('%') ? clamp((parseFloat(value) / 100) * 255, 0, 255) : clamp(parseFloat(value), 0, 255);
}

function alpha(value: string | undefined): number {
  if (value === undefined) return 1;
  return value.endsWith('%') ? clamp(parseFloat(value) / 100, 0, 1) : clamp(parseFloat(value), 0, 1);
}

/** HSL to sRGB, as CSS Color 4 defines it. */
function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    return l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1));
  };
  return [f(0) * 255, f(8) * 255, f(4) * 255];
}

/** The colour a CSS colour string names, or undefined when it is not one of the forms above. */
export function parseColor(input: string): Rgba | undefined {
  const s = input.trim();
  const hex = /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.exec(s)?.[1];
  if (hex) {
    const digits = hex.length <= 4 ? [...hex].map((d) => d + d) : hex.match(/../g)!;
    const [r, g, b, a] = digits.map((d) => parseInt(d, 16));
    return { r: r!, g: g!, b: b!, a: a === undefined ? 1 : a / 255 };
  }
  const m = FUNCTION.exec(s);
  if (!m) return undefined;
  const [, fn, x, y, z, a] = m as unknown as [string, string, string, string, string, string | undefined];
  if (fn.toLowerCase().startsWith('rgb')) {
    if (x.endsWith('deg')) return undefined;
    return { r: channel(x), g: channel(y), b: channel(z), a: alpha(a) };
  }
  if (x.endsWith('%') || !y.endsWith('%') || !z.endsWith('%')) return undefined;
  const h = ((parseFloat(x) % 360) + 360) % 360;
  const [r, g, b] = hslToRgb(h, clamp(parseFloat(y) / 100, 0, 1), clamp(parseFloat(z) / 100, 0, 1));
  return { r, g, b, a: alpha(a) };
}

/** `top` painted over an opaque `bottom` (alpha compositing, "source over"). */
export function over(top: Rgba, bottom: Rgba): Rgba {
  const mix = (t: number, b: number) => t * top.a + b * (1 - top.a);
  return { r: mix(top.r, bottom.r), g: mix(top.g, bottom.g), b: mix(top.b, bottom.b), a: 1 };
}

/** WCAG 2.x relative luminance of an opaque colour. */
export function relativeLuminance(c: Rgba): number {
  const lin = (v: number) => {
    const s = v / 255;
    // WCAG 2.x writes 0.03928; the sRGB standard's 0.04045 gives the same result for 8-bit values.
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 1 };

/**
 * The contrast ratio (1 to 21) of `foreground` on `background`. A translucent background is
 * taken over white (the page under every hosted screen), a translucent foreground over that.
 */
export function contrastRatio(foreground: Rgba, background: Rgba): number {
  const bg = background.a < 1 ? over(background, WHITE) : background;
  const fg = foreground.a < 1 ? over(foreground, bg) : foreground;
  const [l1, l2] = [relativeLuminance(fg), relativeLuminance(bg)].sort((a, b) => b - a) as [number, number];
  return (l1 + 0.05) / (l2 + 0.05);
}
