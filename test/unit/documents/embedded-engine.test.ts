/**
 * The embedded document engine and analysis on specimen documents rendered here
 * (test/support/specimens.ts): the MRZ of each format read and judged by its check digits, a
 * broken digit named, a turned document read, a photo without an MRZ answered as none; the
 * document found and its quality figures; black-and-white copies and screen replays detected,
 * genuine documents not.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSpecimens, mrzLines, PEOPLE, type SpecimenOptions } from '../../support/specimens.js';
import { decodeImage } from '../../../functions/documents/pixels.js';
import { blackAndWhiteCopy, documentRegion, expectedShape, judgeQuality, screenReplay } from '../../../functions/documents/checks.js';
import { embeddedDocumentEngine } from '../../../functions/documents/embedded-engine.js';
import { judgeMrzLines } from '../../../functions/documents/mrz.js';
import { familyFields, mrzDate } from '../../../functions/documents/fields.js';
import { stopOcr } from '../../../functions/documents/ocr.js';
import type { Rgba } from '../../../functions/documents/model.js';

const CASES = {
  td3: { person: 'a' },
  td3b: { person: 'b' },
  td2: { format: 'TD2', person: 'c' },
  td1: { format: 'TD1', person: 'b' },
  turned: { angle: -3 },
  cropped: { cropped: true, width: 1200 },
  broken: { broken: 'expirationDate' },
  blackAndWhite: { variant: 'blackAndWhite' },
  blackAndWhiteCard: { variant: 'blackAndWhite', format: 'TD1', person: 'c' },
  screen: { variant: 'screen' },
  screenSmall: { variant: 'screen', width: 1200, person: 'b' },
  blur: { variant: 'blur' },
  glare: { variant: 'glare' },
} as const satisfies Record<string, SpecimenOptions>;

const photos = {} as Record<keyof typeof CASES, Rgba>;
const bytes = {} as Record<keyof typeof CASES, Buffer>;

beforeAll(async () => {
  const rendered = await renderSpecimens(Object.values(CASES));
  Object.keys(CASES).forEach((k, i) => {
    bytes[k as keyof typeof CASES] = rendered[i]!;
    photos[k as keyof typeof CASES] = decodeImage(rendered[i]!);
  });
}, 120_000);

afterAll(() => stopOcr());

const read = (k: keyof typeof CASES, type: 'PASSPORT' | 'ID_CARD' = 'PASSPORT') =>
  embeddedDocumentEngine.read({ bytes: bytes[k], pixels: documentRegion(photos[k], expectedShape(type)).pixels });

describe('the embedded engine reads the MRZ', () => {
  it.each([
    ['td3', 'TD3', 'PASSPORT', PEOPLE.a],
    ['td3b', 'TD3', 'PASSPORT', PEOPLE.b],
    ['td2', 'TD2', 'ID_CARD', PEOPLE.c],
    ['td1', 'TD1', 'ID_CARD', PEOPLE.b],
    ['turned', 'TD3', 'PASSPORT', PEOPLE.a],
    ['cropped', 'TD3', 'PASSPORT', PEOPLE.a],
  ] as const)('%s: a %s read whole, every check digit right', async (k, format, type, person) => {
    const reading = await read(k, type);
    expect(reading.mrz).toMatchObject({ format, valid: true });
    expect(reading.mrz!.lines).toEqual(mrzLines(format, person));
    const fields = familyFields(reading, new Date('2026-11-28T00:00:00Z'));
    expect(fields).toMatchObject({ documentLastName: person.surname.replace(' ', ' '), documentNumber: person.documentNumber, documentDateOfBirth: mrzDate(person.birthDate, 'birth', new Date('2026-11-28T00:00:00Z')) });
  }, 30_000);

  it('names the check digit that does not match', async () => {
    const reading = await read('broken');
    expect(reading.mrz?.valid).toBe(false);
    expect(reading.mrz?.checkDigits.filter((d) => !d.valid).map((d) => d.field)).toEqual(['expirationDate']);
  }, 30_000);

  it('finds no MRZ on a face photo', async () => {
    const face = decodeImage(readFileSync(resolve(import.meta.dirname, '../../fixtures/faces/person-a-1.jpg')));
    expect((await embeddedDocumentEngine.read({ bytes: Buffer.alloc(0), pixels: face })).mrz).toBeUndefined();
  }, 30_000);
});

describe('MRZ lines judged', () => {
  it('takes each format at its length and refuses anything else', () => {
    expect(judgeMrzLines(mrzLines('TD3', PEOPLE.a))?.valid).toBe(true);
    expect(judgeMrzLines(mrzLines('TD1', PEOPLE.c))?.format).toBe('TD1');
    const [l1, l2] = mrzLines('TD3', PEOPLE.a);
    expect(judgeMrzLines([l1!, l2!.slice(0, 43)])).toBeUndefined();
    expect(judgeMrzLines([l1!])).toBeUndefined();
    expect(judgeMrzLines([l1!, l2!.replace('L', 'l').replace('<', '?')])).toBeUndefined();
    // A letter O where a date wants a digit is corrected; its check digits still judge it.
    expect(judgeMrzLines([l1!, l2!.replace('740812', '74O812')])?.valid).toBe(true);
  });

  it('dates a birth in the past and an expiry within fifty years', () => {
    const now = new Date('2026-11-28T00:00:00Z');
    expect(mrzDate('740812', 'birth', now)).toBe('1974-08-12');
    expect(mrzDate('011130', 'birth', now)).toBe('2001-11-30');
    expect(mrzDate('340415', 'expiry', now)).toBe('2034-04-15');
    expect(mrzDate('7408', 'birth', now)).toBeUndefined();
  });
});

describe('the embedded analysis', () => {
  it('finds the document in the photo, within a few percent of its true box', () => {
    // The specimen's passport is 70 % of a 1600 px frame: 1120 px wide, centred.
    const judged = judgeQuality(photos.td3, expectedShape('PASSPORT'), true);
    expect(judged.found).toBe(true);
    expect(judged.box!.width).toBeGreaterThan(1120 * 0.97);
    expect(judged.box!.width).toBeLessThan(1120 * 1.04);
    expect(Math.abs(judged.box!.left - 240)).toBeLessThan(1120 * 0.03);
    expect(judged.problems).toEqual([]);
  });

  it('names what is wrong: blur, glare, a document not found', () => {
    expect(judgeQuality(photos.blur, expectedShape('PASSPORT'), true).problems).toEqual(['blurry']);
    expect(judgeQuality(photos.glare, expectedShape('PASSPORT'), true).problems).toEqual(['glare']);
    // A portrait photo, upright: no box of a passport's shape in it, nor is it one.
    const face = decodeImage(readFileSync(resolve(import.meta.dirname, '../../fixtures/faces/person-b-sunglasses.jpg')));
    expect(judgeQuality(face, expectedShape('PASSPORT'), true).problems).toContain('documentNotFound');
    // A white photocopy is bright all over, not glared.
    expect(judgeQuality(photos.blackAndWhite, expectedShape('PASSPORT'), true).problems).toEqual([]);
  });

  it('detects black-and-white copies and no genuine document', () => {
    for (const k of ['blackAndWhite', 'blackAndWhiteCard'] as const) expect(blackAndWhiteCopy(documentRegion(photos[k], expectedShape(undefined)).pixels).score, k).toBeGreaterThanOrEqual(0.5);
    for (const k of ['td3', 'td3b', 'td2', 'td1', 'screen', 'glare'] as const) expect(blackAndWhiteCopy(documentRegion(photos[k], expectedShape(undefined)).pixels).score, k).toBeLessThan(0.5);
  });

  it('detects screen replays and no print, blurred or not', () => {
    for (const k of ['screen', 'screenSmall'] as const) expect(screenReplay(photos[k]).score, k).toBeGreaterThanOrEqual(0.5);
    for (const k of ['td3', 'td3b', 'td2', 'td1', 'turned', 'blur', 'blackAndWhite', 'glare'] as const) expect(screenReplay(photos[k]).score, k).toBeLessThan(0.5);
  });
});
