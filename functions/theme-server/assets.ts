import { apiError } from '../errors.js';
import type { AssetKind } from './model.js';

/**
 * What a theme's asset may be: a font or an image, judged by its bytes (its declared type is
 * only a hint: the family's own migration tool sends `font/ttf` for any file with "font" in its
 * name and `image/<extension>` for everything else), within the sizes below.
 */

/** One asset's largest size: a web font or a logo is far smaller. */
export const MAX_ASSET_BYTES = 1024 * 1024;
/** Assets one theme may hold (a handful of font weights and a logo or two). */
export const MAX_ASSETS_PER_THEME = 20;
/** An asset's name: the last path segment of its URL before the extension, as the family's tools read it back. */
export const ASSET_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 _().-]{0,99}$/;

export class InvalidThemeAssetError extends apiError('INVALID_THEME_ASSET') {}
export class ThemeAssetLimitError extends apiError('THEME_ASSET_LIMIT') {}


/** Each extension taken, with the type it is served as and how its bytes begin. */
const TYPES: Record<string, { kind: AssetKind; contentType: string; sniff: (b: Buffer) => boolean }> = {
  woff2: { kind: 'font', contentType: 'font/woff2', sniff: (b) => starts(b, 'wOF2') },
  woff: { kind: 'font', contentType: 'font/woff', sniff: (b) => starts(b, 'wOFF') },
  // An sfnt: TrueType outlines (00 01 00 00, or Apple's "true") or CFF ("OTTO"); either extension is used for both.
  ttf: { kind: 'font', contentType: 'font/ttf', sniff: (b) => isSfnt(b) },
  otf: { kind: 'font', contentType: 'font/otf', sniff: (b) => isSfnt(b) },
  png: { kind: 'image', contentType: 'image/png', sniff: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  jpg: { kind: 'image', contentType: 'image/jpeg', sniff: (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  jpeg: { kind: 'image', contentType: 'image/jpeg', sniff: (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  gif: { kind: 'image', contentType: 'image/gif', sniff: (b) => starts(b, 'GIF87a') || starts(b, 'GIF89a') },
  webp: { kind: 'image', contentType: 'image/webp', sniff: (b) => starts(b, 'RIFF') && b.subarray(8, 12).toString('latin1') === 'WEBP' },
  ico: { kind: 'image', contentType: 'image/x-icon', sniff: (b) => b.length > 6 && b.readUInt32BE(0) === 0x00000100 && b.readUInt16LE(4) > 0 },
  svg: { kind: 'image', contentType: 'image/svg+xml', sniff: (b) => isSvgText(b) },
};

export const ASSET_EXTENSIONS = Object.keys(TYPES);

function starts(b: Buffer, ascii: string): boolean {
  return b.length >= ascii.length && b.subarray(0, ascii.length).toString('latin1') === ascii;
}

function isSfnt(b: Buffer): boolean {
  return b.length >= 12 && (b.readUInt32BE(0) === 0x00010000 || starts(b, 'true') || starts(b, 'OTTO'));
}

/** UTF-8 text whose root element is `<svg>`, after an optional XML declaration, comments and whitespace. */
function isSvgText(b: Buffer): boolean {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(b);
  if (text.includes('\uFFFD') || text.includes('\0')) return false;
  const head = text.replace(/^\uFEFF/, '').replace(/^\s*(<\?xml[^>]*\?>\s*)?((<!--[\s\S]*?-->)\s*)*/i, '');
  return /^<svg[\s>]/i.test(head);
}

/**
 * What makes an SVG more than a picture: scripts, event handlers, embedded documents, and
 * anything fetched from elsewhere (which could track whoever sees the page, or change what it
 * shows later). Refused on upload; the asset's answer also carries a sandboxing CSP, so an SVG
 * opened on its own runs nothing even if a rule here were ever missed.
 */
const SVG_REFUSED: readonly { pattern: RegExp; why: string }[] = [
  { pattern: /<([\w.-]+:)?script[\s/>]/i, why: 'a script element' },
  { pattern: /<([\w.-]+:)?(foreignObject|iframe|embed|object)[\s/>]/i, why: 'an embedded document (foreignObject, iframe, embed or object)' },
  { pattern: /\son[a-z]+\s*=/i, why: 'an event handler attribute (on...)' },
  { pattern: /<!ENTITY/i, why: 'an XML entity declaration' },
  { pattern: /<\?xml-stylesheet/i, why: 'an external style sheet' },
  { pattern: /@import/i, why: 'a style sheet import' },
  { pattern: /javascript:/i, why: 'a javascript: URL' },
  { pattern: /attributeName\s*=\s*["']?([\w-]+:)?href/i, why: 'an animation of a link' },
];

/** Every link of the SVG (href, xlink:href, url(...)) that points outside it: only `#fragment`s and data: images are its own. */
function externalReferences(text: string): string[] {
  const refs = [
    ...[...text.matchAll(/\s(?:[\w.-]+:)?href\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)].map((m) => (m[1] ?? m[2] ?? '').trim()),
    ...[...text.matchAll(/url\(\s*(?:"([^"]*)"|'([^']*)'|([^)]*))\s*\)/gi)].map((m) => (m[1] ?? m[2] ?? m[3] ?? '').trim()),
  ];
  return refs.filter((r) => !r.startsWith('#') && !/^data:image\/(png|jpeg|gif|webp);base64,/i.test(r));
}

/** Why an SVG is refused, or undefined when it is a plain picture. */
export function svgProblem(bytes: Buffer): string | undefined {
  const text = bytes.toString('utf8');
  for (const { pattern, why } of SVG_REFUSED) if (pattern.test(text)) return `The SVG holds ${why}; an SVG asset must be a plain picture.`;
  const external = externalReferences(text);
  if (external.length) return `The SVG refers to ${JSON.stringify(external[0]!.slice(0, 100))} outside itself; an SVG asset may refer only to its own #fragments and data: images.`;
  return undefined;
}

/** A checked asset: its canonical extension, served type and kind. */
export interface CheckedAsset {
  fileExtension: string;
  contentType: string;
  kind: AssetKind;
}

/**
 * Checks an upload: the extension is one taken, the bytes are what it says (and within size),
 * and an SVG is a plain picture. Each refusal says which rule and names the body member.
 */
export function checkAsset(input: { fileExtension: string; bytes: Buffer }): CheckedAsset {
  const ext = input.fileExtension.replace(/^\./, '').toLowerCase();
  const type = TYPES[ext];
  const refuse = (location: string, message: string) => new InvalidThemeAssetError(message, [{ location, message }]);
  if (!type) throw refuse('body.fileExtension', `must be one of ${ASSET_EXTENSIONS.join(', ')}`);
  if (input.bytes.length === 0) throw refuse('body.assetResource', 'is empty');
  if (input.bytes.length > MAX_ASSET_BYTES) throw refuse('body.assetResource', `is ${input.bytes.length} bytes; an asset may be at most ${MAX_ASSET_BYTES} bytes`);
  if (!type.sniff(input.bytes)) throw refuse('body.assetResource', `is not a ${ext} file (its first bytes say otherwise)`);
  if (ext === 'svg') {
    const problem = svgProblem(input.bytes);
    if (problem) throw refuse('body.assetResource', problem);
  }
  return { fileExtension: ext, contentType: type.contentType, kind: type.kind };
}

/** Strict base64 (RFC 4648, padded or not, no line breaks): anything else is refused rather than half decoded. */
export function decodeAssetResource(value: string): Buffer | undefined {
  const s = value.replace(/^data:[\w.+/-]+;base64,/, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 === 1) return undefined;
  return Buffer.from(s, 'base64');
}
