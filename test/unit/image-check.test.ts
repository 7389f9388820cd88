/** The one judgement of an image before anything decodes it: what it is, and whether it is whole and within bounds. */
import { describe, expect, it } from 'vitest';
import { checkImage, MAX_JPEG_SCANS, MAX_PNG_CHUNKS } from '../../functions/shared/image-check.js';
import { JPEG_640, jpegClaiming, PNG_320, pngWithEmptyChunks, truncatedJpeg, truncatedPng } from '../support/broken-images.js';

const limits = { maxBytes: 5 * 1024 * 1024, maxPixels: 16_000_000 };

/** The fixture's scan (SOS and its entropy-coded data) repeated until there are `count`. */
function jpegWithScans(count: number): Buffer {
  const sos = JPEG_640.indexOf(Buffer.from([0xff, 0xda]));
  const eoi = JPEG_640.lastIndexOf(Buffer.from([0xff, 0xd9]));
  const scan = JPEG_640.subarray(sos, eoi);
  return Buffer.concat([JPEG_640.subarray(0, sos), ...Array.from({ length: count }, () => scan), JPEG_640.subarray(eoi)]);
}

describe('checkImage', () => {
  it('takes whole JPEGs and PNGs, and bytes after the end of an image', () => {
    expect(checkImage(JPEG_640, limits)).toMatchObject({ header: { format: 'JPEG', width: 640, height: 480 } });
    expect(checkImage(PNG_320, limits)).toMatchObject({ header: { format: 'PNG', width: 320, height: 240 } });
    expect(checkImage(Buffer.concat([JPEG_640, Buffer.alloc(1000)]), limits)).toMatchObject({ header: { format: 'JPEG' } });
    expect(checkImage(pngWithEmptyChunks(100), limits)).toMatchObject({ header: { format: 'PNG' } });
    expect(checkImage(jpegWithScans(MAX_JPEG_SCANS), limits)).toMatchObject({ header: { format: 'JPEG' } });
  });

  it('rejects when it is neither a JPEG nor a PNG, or more bytes than the limit', () => {
    expect(checkImage(Buffer.from('GIF89a....'), limits)).toEqual({ problem: 'notAnImage' });
    expect(checkImage(JPEG_640, { ...limits, maxBytes: JPEG_640.length - 1 })).toEqual({ problem: 'tooLarge' });
  });

  it('rejects when a JPEG is cut short', () => {
    expect(checkImage(truncatedJpeg(), limits)).toEqual({ problem: 'unreadable' });
    expect(checkImage(JPEG_640.subarray(0, JPEG_640.length - 2), limits)).toEqual({ problem: 'unreadable' });
  });

  it('rejects when a PNG is cut short', () => {
    expect(checkImage(truncatedPng(), limits)).toEqual({ problem: 'unreadable' });
    expect(checkImage(PNG_320.subarray(0, PNG_320.length - 12), limits)).toEqual({ problem: 'unreadable' });
  });

  it('rejects when a JPEG header claims about 40 MP, before anything is decoded', () => {
    expect(checkImage(jpegClaiming(7720, 5140), limits)).toEqual({ problem: 'tooLarge' });
    expect(checkImage(jpegClaiming(4000, 4001), limits)).toEqual({ problem: 'tooLarge' });
  });

  it('rejects when a PNG has 100,000 empty chunks', () => {
    expect(checkImage(pngWithEmptyChunks(100_000), limits)).toEqual({ problem: 'unreadable' });
    expect(checkImage(pngWithEmptyChunks(MAX_PNG_CHUNKS), limits)).toEqual({ problem: 'unreadable' });
  });

  it('rejects when a JPEG has more scans than a progressive JPEG needs', () => {
    expect(checkImage(jpegWithScans(MAX_JPEG_SCANS + 1), limits)).toEqual({ problem: 'unreadable' });
  });
});
