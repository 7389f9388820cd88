import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { faceCaptureCheck, faceImageRecord, inspectFaceImage } from '../../functions/journey/face-capture.js';
import { MAX_FACE_IMAGE_BYTES } from '../../functions/journey/face-limits.js';
import { THRESHOLDS } from '../../functions/faces/quality.js';
import { keys, objectKeys } from '../../functions/store/keys.js';
import { imageStore } from '../../functions/adapters/images.js';
import { expiredInstance, handler as expiredHandler } from '../../functions/userdata/on-instance-expired.js';
import { journeyScreens } from '../../functions/journey/pages.js';
import { identityStores } from '../../functions/identity-store/deps.js';
import { SCREENS as STEP_SCREENS } from '../../functions/activities/index.generated.js';

import type { ProcessInstanceRecord } from '../../functions/process-manager/instances/instances.js';
import { jpegClaiming, pngWithEmptyChunks, truncatedJpeg, truncatedPng } from '../support/broken-images.js';

const { byComponent: SCREENS, screenOf } = journeyScreens(STEP_SCREENS, { identityStores });

const FACE = readFileSync(resolve(import.meta.dirname, '../fixtures/face-640x480.jpg'));
const PNG = readFileSync(resolve(import.meta.dirname, '../fixtures/face-320x240.png'));

/** The fixture with an EXIF APP1 segment carrying `orientation`, inserted after SOI. */
function withOrientation(jpeg: Buffer, orientation: number): Buffer {
  // TIFF header (big endian), one IFD entry: tag 0x0112 (Orientation), SHORT, count 1.
  const tiff = Buffer.from([0x4d, 0x4d, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, orientation, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const app1 = Buffer.concat([Buffer.from([0xff, 0xe1]), Buffer.from([(body.length + 2) >> 8, (body.length + 2) & 0xff]), body]);
  return Buffer.concat([jpeg.subarray(0, 2), app1, jpeg.subarray(2)]);
}

describe('inspectFaceImage', () => {
  it('knows a JPEG and a PNG by their bytes and reads their size', () => {
    expect(inspectFaceImage(FACE)).toEqual({ format: 'JPEG', contentType: 'image/jpeg', extension: 'jpg', width: 640, height: 480 });
    expect(inspectFaceImage(PNG)).toEqual({ format: 'PNG', contentType: 'image/png', extension: 'png', width: 320, height: 240 });
  });

  it('refuses anything else, whatever it claims to be', () => {
    expect(inspectFaceImage(new Uint8Array())).toEqual({ problem: 'missing' });
    expect(inspectFaceImage(Buffer.from('GIF89a....'))).toEqual({ problem: 'notAnImage' });
    expect(inspectFaceImage(Buffer.from('%PDF-1.7'))).toEqual({ problem: 'notAnImage' });
    expect(inspectFaceImage(Buffer.from([0xff, 0xd8]))).toEqual({ problem: 'notAnImage' });
    expect(inspectFaceImage(FACE.subarray(0, 30))).toEqual({ problem: 'unreadable' });
    expect(inspectFaceImage(PNG.subarray(0, 12))).toEqual({ problem: 'unreadable' });
  });

  it('refuses an image whose header is all there is: it must decode fully', () => {
    // The attack that passed: a 97-byte PNG (signature, IHDR claiming 100000 x 100000, an empty
    // IDAT, IEND); and the same header claiming a size within bounds; and a JPEG cut short.
    const chunk = (type: string, data: Buffer) => {
      const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
      const len = Buffer.alloc(4);
      len.writeUInt32BE(data.length);
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(crc32(body));
      return Buffer.concat([len, body, crc]);
    };
    const header = (w: number, h: number) => {
      const ihdr = Buffer.alloc(13);
      ihdr.writeUInt32BE(w, 0);
      ihdr.writeUInt32BE(h, 4);
      ihdr.set([8, 6, 0, 0, 0], 8);
      return Buffer.concat([PNG.subarray(0, 8), chunk('IHDR', ihdr), chunk('IDAT', Buffer.alloc(0)), chunk('IEND', Buffer.alloc(0))]);
    };
    expect(inspectFaceImage(header(100_000, 100_000))).toEqual({ problem: 'tooLarge' });
    expect(inspectFaceImage(header(640, 480))).toEqual({ problem: 'unreadable' });
    expect(inspectFaceImage(FACE.subarray(0, Math.floor(FACE.length / 2)))).toEqual({ problem: 'unreadable' });
    expect(inspectFaceImage(PNG.subarray(0, PNG.length - 40))).toEqual({ problem: 'unreadable' });
    expect(inspectFaceImage(PNG)).toMatchObject({ format: 'PNG', width: 320, height: 240 });
  });

  it('rejects when an image only the face engine decodes is cut short, claims about 40 MP or has 100,000 chunks', () => {
    // Without `decode` (the watchlist routes, External Source Face Match v1) nothing here decodes
    // the pixels: the structure is judged alone, and must still refuse these before the engine.
    const headerOnly = (bytes: Buffer) => inspectFaceImage(bytes, 5 * 1024 * 1024, false);
    expect(headerOnly(truncatedJpeg())).toEqual({ problem: 'unreadable' });
    expect(headerOnly(truncatedPng())).toEqual({ problem: 'unreadable' });
    expect(headerOnly(jpegClaiming(7720, 5140))).toEqual({ problem: 'tooLarge' });
    expect(headerOnly(pngWithEmptyChunks(100_000))).toEqual({ problem: 'unreadable' });
    expect(headerOnly(FACE)).toMatchObject({ format: 'JPEG', width: 640, height: 480 });
  });

  it('holds the size limit at its edge', () => {
    const pad = (n: number) => Buffer.concat([FACE, Buffer.alloc(n - FACE.length)]);
    expect(inspectFaceImage(pad(MAX_FACE_IMAGE_BYTES))).toMatchObject({ format: 'JPEG' });
    expect(inspectFaceImage(pad(MAX_FACE_IMAGE_BYTES + 1))).toEqual({ problem: 'tooLarge' });
  });

  it('swaps the sides of a JPEG that EXIF turns a quarter', () => {
    expect(inspectFaceImage(withOrientation(FACE, 6))).toMatchObject({ width: 480, height: 640 });
    expect(inspectFaceImage(withOrientation(FACE, 3))).toMatchObject({ width: 640, height: 480 });
  });
});

describe('faceCaptureCheck', () => {
  const record = (width: number, height: number) =>
    faceImageRecord({
      faceKey: 'face',
      image: { format: 'JPEG', contentType: 'image/jpeg', extension: 'jpg', width, height },
      bytes: FACE,
      objectKey: (id) => objectKeys.faceCapture('demo', '6f1c2b9e-8d1a-4c3b-9e7f-0a1b2c3d4e5f', 'face', id, 'jpg'),
      now: new Date('2026-11-22T00:00:00Z'),
    });

  const face = { box: { left: 0.3, top: 0.2, width: 0.4, height: 0.5 }, confidence: 0.9, pose: { yaw: 2, pitch: 5, roll: -1 }, quality: { brightness: 50, sharpness: 97 }, eyes: { open: 0.35, visible: 0.8 } };
  const check = (liveness: number) =>
    faceCaptureCheck({ faceKey: 'face', activityId: 'captureFace', image: record(640, 480), engine: 'embedded', thresholds: THRESHOLDS.embedded, face, liveness, now: new Date() });

  it('is judged by liveness against the engine band, with the measurements and thresholds in moreinfo', () => {
    const t = THRESHOLDS.embedded.liveness;
    expect(check(t.pass).result).toBe('PASS');
    expect(check(t.fail).result).toBe('REVIEW');
    expect(check(t.fail - 0.01).result).toBe('FAIL');
    const passed = check(0.9);
    expect(passed.reports.map((r) => [r.name, r.result])).toEqual([
      ['format', 'PASS'],
      ['face', 'PASS'],
      ['pose', 'PASS'],
      ['eyes', 'PASS'],
      ['quality', 'PASS'],
      ['liveness', 'PASS'],
    ]);
    const more = JSON.parse(passed.moreinfo!);
    expect(more).toMatchObject({ engine: 'embedded', faceCount: 1, face: { pixels: 240, pose: face.pose, quality: face.quality, eyes: face.eyes }, liveness: { score: 0.9, result: 'PASS' } });
    expect(more.thresholds.maxYaw).toBe(THRESHOLDS.embedded.maxYaw);
    expect(more.thresholds.minEyesVisible).toBe(THRESHOLDS.embedded.minEyesVisible);
  });

  it('records the digest of the bytes and an object key under the tenant and instance', () => {
    const r = record(640, 480);
    expect(r.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(r.objectKey).toMatch(/^tenants\/demo\/instances\/6f1c2b9e-8d1a-4c3b-9e7f-0a1b2c3d4e5f\/faces\/ZmFjZQ\/[0-9a-f-]{36}\.jpg$/);
  });
});

describe('object keys and the image store', () => {
  it('cannot be made to leave a tenant or an instance', () => {
    expect(() => objectKeys.instancePrefix('de/mo', 'x')).toThrow();
    expect(() => objectKeys.instancePrefix('demo', '../other')).toThrow();
    expect(() => objectKeys.faceCapture('demo', 'abc', 'face', '../../x', 'jpg')).toThrow();
    // A face key is free text, so it is encoded: no separator survives.
    expect(objectKeys.faceCapture('demo', 'abc', '../x/y', 'c1', 'jpg')).toBe('tenants/demo/instances/abc/faces/Li4veC95/c1.jpg');
  });

  it('refuses to read an object outside the instance it is asked for, before any S3 call', async () => {
    const other = objectKeys.faceCapture('other', 'abc', 'face', 'c1', 'jpg');
    await expect(imageStore.get('demo', 'abc', other)).rejects.toThrow('outside its instance');
    await expect(imageStore.get('demo', 'abc', objectKeys.faceCapture('demo', 'abd', 'face', 'c1', 'jpg'))).rejects.toThrow('outside its instance');
    await expect(imageStore.get('demo', 'ab', objectKeys.faceCapture('demo', 'abc', 'face', 'c1', 'jpg'))).rejects.toThrow('outside its instance');
  });
});

describe('expiredInstance (the table stream filter, in code as well)', () => {
  const record = (over: Record<string, unknown> = {}) => ({
    eventID: '1',
    eventName: 'REMOVE',
    userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' },
    dynamodb: { Keys: { PK: { S: 'TNT#demo#PI#abc' }, SK: { S: 'PI' } } },
    ...over,
  });

  it('takes only TTL removals of instance items', () => {
    expect(expiredInstance(record())).toEqual({ tenantId: 'demo', processInstanceId: 'abc' });
    expect(expiredInstance(record({ userIdentity: undefined }))).toBeUndefined();
    expect(expiredInstance(record({ eventName: 'MODIFY' }))).toBeUndefined();
    expect(expiredInstance(record({ dynamodb: { Keys: { PK: { S: 'TNT#demo#PI#abc' }, SK: { S: 'USERDATA#x' } } } }))).toBeUndefined();
    expect(expiredInstance(record({ dynamodb: { Keys: { PK: { S: 'TNT#demo#PTOKENS' }, SK: { S: 'PI' } } } }))).toBeUndefined();
    expect(keys.parseInstance(keys.instance('demo', 'abc'))).toEqual({ tenantId: 'demo', processInstanceId: 'abc' });
  });

  it('reports a record whose images could not be deleted by its sequence number, so Lambda retries it', async () => {
    const spy = vi.spyOn(imageStore, 'deleteInstance').mockImplementation(async (_t, id) => {
      if (id === 'bad') throw new Error('S3 unavailable');
      return 1;
    });
    const at = (id: string, seq: string) => record({ dynamodb: { Keys: { PK: { S: `TNT#demo#PI#${id}` }, SK: { S: 'PI' } }, SequenceNumber: seq } });
    const out = await expiredHandler({ Records: [at('good', '100'), at('bad', '200'), record({ eventName: 'INSERT' })] });
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: '200' }] });
    expect(spy.mock.calls).toEqual([['demo', 'good'], ['demo', 'bad']]);
    spy.mockRestore();
  });
});

describe('the screens framework', () => {
  const record = { id: 'abc' } as ProcessInstanceRecord;
  const step = (activityType: string, inputs: Record<string, unknown> = {}) =>
    ({ activityId: 'a', activityType, inputs, state: {}, taskToken: 't', since: '' }) as unknown as NonNullable<ProcessInstanceRecord['currentStep']>;

  it("picks a step's component and screens from its inputs, or its activity's own", () => {
    expect(screenOf(record, step('CAPTURE_FACE_IMAGE'), 'c', 'en')).toMatchObject({ component: 'face-capture', screen: 'face-capture', screens: ['face-capture'] });
    expect(screenOf(record, step('WAIT_ON_PUSH', { 'Starting Component ID': 'push-notification-wait', 'UI Component ID': 'wait-init', 'List of Screens': ['wait-init', 'wait-done'] }), 'c', 'en')).toMatchObject({
      component: 'push-notification-wait',
      screen: 'wait-init',
      screens: ['wait-init', 'wait-done'],
    });
    expect(Object.keys(SCREENS).sort()).toEqual([
      'capture',
      'country-selection',
      'custom-page',
      'data-form',
      'document-capture',
      'document-type-selection',
      'face-capture',
      'mobile-switch',
      'passcode-authentication',
      'passcode-registration',
      'passkey-authentication',
      'passkey-registration',
      'paused',
      'preview',
      'review',
      'selection',
      'switch-device',
      'switch-to-desktop',
    ]);
  });

  it('renders the face capture page with its own script and the action of its step', () => {
    const html = SCREENS['face-capture']!(screenOf(record, step('CAPTURE_FACE_IMAGE'), 'cap', 'de'));
    expect(html).toContain('action="/journey/abc/steps/a/face?c=cap&amp;lang=de"');
    expect(html).toContain(`data-max-bytes="${MAX_FACE_IMAGE_BYTES}"`);
    expect(html).toContain('Ein Foto Ihres Gesichts');
  });
});
