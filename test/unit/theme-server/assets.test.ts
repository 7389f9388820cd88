import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { MAX_ASSET_BYTES, checkAsset, decodeAssetResource, svgProblem } from '../../../functions/theme-server/assets.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures');
const BPMN_FONT = join(import.meta.dirname, '../../../node_modules/bpmn-js/dist/assets/bpmn-font/font');

function png(): Buffer {
  const image = new PNG({ width: 2, height: 2 });
  image.data.fill(200);
  return PNG.sync.write(image);
}

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return err as { code: string; details: { location: string; message: string }[] };
  }
  throw new Error('not refused');
};

describe('checkAsset', () => {
  it('takes real fonts and images by their bytes, served as what they are', () => {
    expect(checkAsset({ fileExtension: 'woff2', bytes: readFileSync(join(BPMN_FONT, 'bpmn.woff2')) })).toEqual({ fileExtension: 'woff2', contentType: 'font/woff2', kind: 'font' });
    expect(checkAsset({ fileExtension: 'TTF', bytes: readFileSync(join(BPMN_FONT, 'bpmn.ttf')) })).toEqual({ fileExtension: 'ttf', contentType: 'font/ttf', kind: 'font' });
    expect(checkAsset({ fileExtension: '.png', bytes: png() })).toEqual({ fileExtension: 'png', contentType: 'image/png', kind: 'image' });
    expect(checkAsset({ fileExtension: 'jpeg', bytes: readFileSync(join(FIXTURES, 'small-200x150.jpg')) })).toMatchObject({ fileExtension: 'jpeg', contentType: 'image/jpeg' });
    expect(checkAsset({ fileExtension: 'gif', bytes: Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1') }).contentType).toBe('image/gif');
    expect(checkAsset({ fileExtension: 'webp', bytes: Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]) }).contentType).toBe('image/webp');
    expect(checkAsset({ fileExtension: 'ico', bytes: Buffer.from([0, 0, 1, 0, 1, 0, 16, 16, 0, 0]) }).contentType).toBe('image/x-icon');
    expect(checkAsset({ fileExtension: 'svg', bytes: Buffer.from('<?xml version="1.0"?>\n<!-- logo -->\n<svg xmlns="http://www.w3.org/2000/svg"><rect fill="url(#g)"/></svg>') }).contentType).toBe(
      'image/svg+xml',
    );
  });

  it('refuses bytes that are not what the extension says', () => {
    expect(refusal(() => checkAsset({ fileExtension: 'woff2', bytes: png() }))).toMatchObject({
      code: 'INVALID_THEME_ASSET',
      details: [{ location: 'body.assetResource', message: expect.stringMatching(/not a woff2 file/) }],
    });
    expect(refusal(() => checkAsset({ fileExtension: 'png', bytes: Buffer.from('<svg></svg>') })).code).toBe('INVALID_THEME_ASSET');
    expect(refusal(() => checkAsset({ fileExtension: 'svg', bytes: Buffer.from('<html><svg></svg></html>') })).code).toBe('INVALID_THEME_ASSET');
    expect(refusal(() => checkAsset({ fileExtension: 'svg', bytes: png() })).code).toBe('INVALID_THEME_ASSET');
  });

  it('refuses extensions outside the list, naming fileExtension', () => {
    for (const ext of ['html', 'js', 'css', 'exe', 'pdf', '']) {
      expect(refusal(() => checkAsset({ fileExtension: ext, bytes: png() })).details[0]!.location, ext).toBe('body.fileExtension');
    }
  });

  it('takes an asset of exactly 1 MiB and refuses one byte more, and an empty one', () => {
    const at = Buffer.concat([png(), Buffer.alloc(MAX_ASSET_BYTES - png().length)]);
    expect(at.length).toBe(MAX_ASSET_BYTES);
    expect(checkAsset({ fileExtension: 'png', bytes: at }).kind).toBe('image');
    expect(refusal(() => checkAsset({ fileExtension: 'png', bytes: Buffer.concat([at, Buffer.alloc(1)]) })).details[0]!.message).toMatch(/at most 1048576 bytes/);
    expect(refusal(() => checkAsset({ fileExtension: 'png', bytes: Buffer.alloc(0) })).details[0]!.message).toBe('is empty');
  });
});

describe('svgProblem', () => {
  const svg = (inner: string, attrs = '') => Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"${attrs}>${inner}</svg>`);

  it('lets a plain picture through: shapes, gradients and #fragment links, data: images', () => {
    expect(svgProblem(svg('<defs><linearGradient id="g"/></defs><rect fill="url(#g)"/><use href="#g"/><use xlink:href="#g"/>'))).toBeUndefined();
    expect(svgProblem(svg('<image href="data:image/png;base64,iVBORw0KGgo="/>'))).toBeUndefined();
    expect(svgProblem(svg('<style>.a{fill:#1d4ed8}</style><circle class="a" r="4"/>'))).toBeUndefined();
  });

  it.each([
    ['a script', svg('<script>alert(1)</script>')],
    ['a prefixed script', svg('<svg:script>alert(1)</svg:script>')],
    ['an event handler', svg('<rect onclick="alert(1)"/>')],
    ['an event handler on the root', svg('', ' onload="alert(1)"')],
    ['a foreignObject', svg('<foreignObject><div>x</div></foreignObject>')],
    ['an iframe', svg('<iframe src="x"/>')],
    ['an external image', svg('<image href="https://tracker.example/p.png"/>')],
    ['an external use', svg('<use xlink:href="other.svg#a"/>')],
    ['a javascript: link', svg('<a href="javascript:alert(1)"><rect/></a>')],
    ['an external url() in a style', svg('<rect style="fill:url(https://x.example/f.svg#g)"/>')],
    ['a style sheet import', svg('<style>@import "https://x.example/a.css";</style>')],
    ['an entity declaration', Buffer.from('<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg>&x;</svg>')],
    ['an xml-stylesheet', Buffer.from('<?xml-stylesheet href="https://x.example/a.css"?><svg></svg>')],
    ['an animated link', svg('<a><set attributeName="href" to="javascript:alert(1)"/></a>')],
    ['a data: document', svg('<image href="data:text/html;base64,PHNjcmlwdD4="/>')],
  ])('refuses %s', (_what, bytes) => {
    expect(svgProblem(bytes)).toMatch(/SVG/);
  });
});

describe('decodeAssetResource', () => {
  it('decodes strict base64 (padded or not, or as a data: URL) and refuses anything else', () => {
    expect(decodeAssetResource(Buffer.from('hello').toString('base64'))).toEqual(Buffer.from('hello'));
    expect(decodeAssetResource('aGVsbG8')).toEqual(Buffer.from('hello'));
    expect(decodeAssetResource(`data:image/png;base64,${Buffer.from('hello').toString('base64')}`)).toEqual(Buffer.from('hello'));
    for (const bad of ['aGVs bG8=', 'aGVsbG8=\n', 'a', '!!!!', 'aGVsbG8===']) expect(decodeAssetResource(bad), bad).toBeUndefined();
  });
});
