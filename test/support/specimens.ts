/**
 * Specimen identity documents made here, for the document tests and the bench: a passport data
 * page (TD3), an ID card (TD1) or a TD2 card, drawn as HTML in Chromium and photographed as a
 * camera would see it (on a table, in a 16:9 frame). The MRZ is printed in OCR-B (Debian's
 * `fonts-ocr-b`, which .ci/run installs) at ICAO 9303's fixed pitch of 2.54 mm, one cell per
 * character; its check digits are right unless `broken` names one to get wrong. The portrait
 * is one of the licensed face fixtures (test/fixtures/faces/README.md). The people, numbers and
 * the state "UTO" (Utopia, ICAO 9303's own specimen state) are invented.
 *
 * Variants: `blackAndWhite` (a grey photocopy), `screen` (the page shown on a display and
 * photographed again: its pixel grid and the moiré it makes), `blur` (out of focus) and `glare`
 * (a light's reflection burning out part of the page).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM } from '../e2e/browser.js';

export type MrzFormat = 'TD1' | 'TD2' | 'TD3';
export type SpecimenVariant = 'genuine' | 'blackAndWhite' | 'screen' | 'blur' | 'glare';
/** A check digit to get wrong. */
export type BrokenDigit = 'documentNumber' | 'birthDate' | 'expirationDate' | 'composite';

export interface SpecimenPerson {
  surname: string;
  givenNames: string;
  documentNumber: string;
  /** YYMMDD */
  birthDate: string;
  expirationDate: string;
  sex: 'M' | 'F' | '<';
  nationality: string;
  personalNumber: string;
  /** A file of test/fixtures/faces. */
  face: string;
}

export const PEOPLE = {
  a: {
    surname: 'PEDERSEN',
    givenNames: 'JESPER KARL',
    documentNumber: 'L898902C3',
    birthDate: '740812',
    expirationDate: '340415',
    sex: 'M',
    nationality: 'UTO',
    personalNumber: 'ZE184226B',
    face: 'person-a-crop-qtlogo.jpg',
  },
  b: {
    surname: 'HANSEN',
    givenNames: 'ANNE HELENE',
    documentNumber: 'D23145890',
    birthDate: '850301',
    expirationDate: '310930',
    sex: 'F',
    nationality: 'UTO',
    personalNumber: '',
    face: 'person-b-crop-bar55-2.jpg',
  },
  c: {
    surname: 'O NEILL',
    givenNames: 'WAYNE',
    documentNumber: 'X4R7T0015',
    birthDate: '011130',
    expirationDate: '290101',
    sex: 'M',
    nationality: 'UTO',
    personalNumber: '',
    face: 'person-c-crop-qtlogo.jpg',
  },
} as const satisfies Record<string, SpecimenPerson>;

const VALUES: Record<string, number> = { '<': 0 };
for (let i = 0; i < 10; i++) VALUES[String(i)] = i;
for (let i = 0; i < 26; i++) VALUES[String.fromCharCode(65 + i)] = 10 + i;

/** ICAO 9303's check digit: weights 7, 3, 1 over the characters' values, modulo 10. */
export function checkDigit(text: string): string {
  let sum = 0;
  [...text].forEach((c, i) => {
    sum += (VALUES[c] ?? 0) * [7, 3, 1][i % 3]!;
  });
  return String(sum % 10);
}

const fill = (text: string, length: number) => (text + '<'.repeat(length)).slice(0, length);
const name = (person: SpecimenPerson, length: number) =>
  fill(`${person.surname.replaceAll(' ', '<')}<<${person.givenNames.replaceAll(' ', '<')}`, length);
/** A digit that is surely not `digit`. */
const wrong = (digit: string) => String((Number(digit) + 5) % 10);

/** The MRZ lines of a person's document in a format, with one check digit broken if asked. */
export function mrzLines(format: MrzFormat, person: SpecimenPerson, broken?: BrokenDigit): string[] {
  const digit = (field: BrokenDigit, text: string) => (broken === field ? wrong(checkDigit(text)) : checkDigit(text));
  const number = person.documentNumber + digit('documentNumber', person.documentNumber);
  const birth = person.birthDate + digit('birthDate', person.birthDate);
  const expiry = person.expirationDate + digit('expirationDate', person.expirationDate);
  if (format === 'TD3') {
    const optional = fill(person.personalNumber, 14);
    const optionalDigit = checkDigit(optional);
    const composite = number + birth + expiry + optional + optionalDigit;
    return [
      `P<UTO${name(person, 39)}`,
      `${number}${person.nationality}${birth}${person.sex}${expiry}${optional}${optionalDigit}${digit('composite', composite)}`,
    ];
  }
  if (format === 'TD2') {
    const optional = fill(person.personalNumber, 7);
    const composite = number + birth + expiry + optional;
    return [`I<UTO${name(person, 31)}`, `${number}${person.nationality}${birth}${person.sex}${expiry}${optional}${digit('composite', composite)}`];
  }
  const optional1 = fill(person.personalNumber, 15);
  const optional2 = fill('', 11);
  const line1 = `I<UTO${number}${optional1}`;
  const line2 = `${birth}${person.sex}${expiry}${person.nationality}${optional2}`;
  const composite = line1.slice(5, 30) + line2.slice(0, 7) + line2.slice(8, 15) + line2.slice(18, 29);
  return [line1, `${line2}${digit('composite', composite)}`, name(person, 30)];
}

export interface SpecimenOptions {
  format?: MrzFormat;
  person?: keyof typeof PEOPLE;
  broken?: BrokenDigit;
  variant?: SpecimenVariant;
  /** The frame's width in pixels (16:9); 1600 unless given. */
  width?: number;
  /** The document's width as a share of the frame's; 0.7 unless given. */
  fill?: number;
  /** The document's turn in degrees; 0 unless given. */
  angle?: number;
  /** The document alone, cropped to its edges (no table around it). */
  cropped?: boolean;
  type?: 'jpeg' | 'png';
}

/** The document's size in millimetres (ICAO 9303: TD1 is ID-1, TD2 is ID-2, TD3 the passport's ID-3). */
const SIZES: Record<MrzFormat, { width: number; height: number }> = {
  TD1: { width: 85.6, height: 53.98 },
  TD2: { width: 105, height: 74 },
  TD3: { width: 125, height: 88 },
};

const FACES = resolve(import.meta.dirname, '../fixtures/faces');
const OCR_B = '/usr/share/fonts/opentype/ocr-b/OCRB.otf';

const escape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;');

function date(yymmdd: string): string {
  const months = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
  const year = Number(yymmdd.slice(0, 2));
  return `${yymmdd.slice(4, 6)} ${months[Number(yymmdd.slice(2, 4)) - 1]} ${year > 40 ? 1900 + year : 2000 + year}`;
}

/** The page as HTML: the document in millimetres, scaled to `docPx` pixels wide. */
function html(o: Required<Omit<SpecimenOptions, 'broken'>> & { broken?: BrokenDigit }): string {
  const person: SpecimenPerson = PEOPLE[o.person];
  const size = SIZES[o.format];
  const height = Math.round((o.width * 9) / 16);
  const docPx = o.cropped ? o.width : Math.round(o.width * o.fill);
  const mm = docPx / size.width;
  const lines = mrzLines(o.format, person, o.broken);
  const face = readFileSync(resolve(FACES, person.face)).toString('base64');
  const font = readFileSync(OCR_B).toString('base64');
  // ICAO 9303: 2.54 mm a character; lines about 4.23 mm apart, the last 4 to 6 mm above the edge.
  const mrz = lines
    .map((line, row) =>
      [...line]
        .map((c, i) => `<span style="left:${(i * 2.54 * mm).toFixed(2)}px;top:${(row * 4.23 * mm).toFixed(2)}px">${escape(c)}</span>`)
        .join(''),
    )
    .join('');
  const mrzTop = (size.height - 5 - (lines.length - 1) * 4.23 - 3) * mm;
  const mrzLeft = ((size.width - lines[0]!.length * 2.54) / 2) * mm;
  const card = o.format === 'TD3' ? 'PASSPORT' : 'IDENTITY CARD';
  // A TD1 card's MRZ takes its lower third (ICAO 9303 puts it on the back; here the front shows
  // both, smaller portrait and fields above the MRZ).
  const portrait = { left: 5 * mm, top: (o.format === 'TD1' ? 9 : 12) * mm, width: (o.format === 'TD1' ? 18 : 32) * mm, height: (o.format === 'TD1' ? 23 : 40) * mm };
  const fields = [
    ['Surname', person.surname],
    ['Given names', person.givenNames],
    ['Nationality', 'UTOPIAN'],
    ['Date of birth', date(person.birthDate)],
    ['Sex', person.sex],
    ['Date of expiry', date(person.expirationDate)],
    ['Document no.', person.documentNumber],
  ].slice(0, o.format === 'TD1' ? 5 : 7);
  const fieldRows = fields
    .map(([label, value], i) => `<div class="f" style="top:${(o.format === 'TD1' ? 9 + i * 4.4 : 12 + i * 5.5) * mm}px"><i>${label}</i> ${escape(value!)}</div>`)
    .join('');
  const filter = { genuine: '', blackAndWhite: 'grayscale(1) contrast(1.15) brightness(1.05)', screen: 'saturate(1.3) brightness(1.08)', blur: 'blur(5px)', glare: '' }[o.variant];
  const overlay = {
    genuine: '',
    blackAndWhite: '',
    blur: '',
    // A display's subpixels (red, green, blue stripes) and rows, about 3 px each in the photo.
    screen: `<div style="position:absolute;inset:0;background:repeating-linear-gradient(90deg,rgba(255,0,0,.16) 0 1px,rgba(0,255,0,.16) 1px 2px,rgba(0,0,255,.16) 2px 3px),repeating-linear-gradient(0deg,rgba(0,0,0,.22) 0 1px,transparent 1px 3px)"></div>
<div style="position:absolute;inset:0;background:repeating-linear-gradient(31deg,rgba(0,0,0,.07) 0 2px,transparent 2px 7px)"></div>`,
    glare: `<div style="position:absolute;inset:0;background:radial-gradient(ellipse 30% 24% at 62% 40%,#fff 0 55%,rgba(255,255,255,.7) 75%,transparent 100%)"></div>`,
  }[o.variant];
  const doc = `<div class="doc" style="width:${docPx}px;height:${(size.height * mm).toFixed(1)}px;transform:rotate(${o.angle}deg);filter:${filter || 'none'}">
<div class="guilloche"></div>
<div class="title" style="left:${5 * mm}px;top:${3 * mm}px;font-size:${4 * mm}px">UTOPIA &middot; ${card}</div>
<img src="data:image/jpeg;base64,${face}" style="left:${portrait.left}px;top:${portrait.top}px;width:${portrait.width}px;height:${portrait.height}px">
<div style="position:absolute;left:${portrait.left + portrait.width + 5 * mm}px;top:0;font-size:${(o.format === 'TD1' ? 2.1 : 2.6) * mm}px">${fieldRows}</div>
<div class="mrz" style="left:${mrzLeft}px;top:${mrzTop}px;font-size:${3.3 * mm}px">${mrz}</div>${overlay}</div>`;
  const scene = o.cropped
    ? `<body style="margin:0;width:${docPx}px">${doc}</body>`
    : `<body style="margin:0;width:${o.width}px;height:${height}px;display:flex;align-items:center;justify-content:center;background:linear-gradient(160deg,#6b4f3a,#3e2c20)">${
        o.variant === 'screen'
          ? `<div style="background:#0c0c0c;padding:${2 * mm}px;border-radius:${3 * mm}px">${doc}</div>`
          : doc
      }</body>`;
  return `<!doctype html><style>
@font-face{font-family:ocrb;src:url(data:font/otf;base64,${font})}
.doc{position:relative;overflow:hidden;border-radius:${o.format === 'TD3' ? 4 : 3 * mm}px;background:#eef0e6;font-family:sans-serif;color:#1d2430;box-shadow:0 ${mm}px ${4 * mm}px rgba(0,0,0,.55)}
.guilloche{position:absolute;inset:0;background:repeating-radial-gradient(circle at 70% 30%,rgba(40,120,160,.10) 0 ${0.4 * mm}px,transparent ${0.4 * mm}px ${1.6 * mm}px),linear-gradient(120deg,#e4efd9,#dce6f3 60%,#f1e2e8)}
.title{position:absolute;color:#23456e;letter-spacing:.05em}
.doc img{position:absolute;object-fit:cover}
.f{position:absolute;left:0;white-space:nowrap}.f i{display:block;font-style:normal;font-size:.62em;color:#4b5b78}
.mrz{position:absolute;font-family:ocrb;color:#111;line-height:1}.mrz span{position:absolute;width:${(2.54 * mm).toFixed(2)}px;text-align:center}
</style>${scene}`;
}

/** Renders specimens in one browser, in order. */
export async function renderSpecimens(options: SpecimenOptions[]): Promise<Buffer[]> {
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const out: Buffer[] = [];
    for (const given of options) {
      const o = { format: 'TD3', person: 'a', variant: 'genuine', width: 1600, fill: 0.7, angle: 0, cropped: false, type: 'jpeg', ...given } as const;
      const size = SIZES[o.format];
      const height = o.cropped ? Math.round((o.width * size.height) / size.width) : Math.round((o.width * 9) / 16);
      const page = await browser.newPage({ viewport: { width: o.width, height } });
      await page.setContent(html(o));
      await page.evaluate(() => (globalThis as any).document.fonts.ready);
      out.push(await page.screenshot(o.type === 'jpeg' ? { type: 'jpeg', quality: 92 } : { type: 'png' }));
      await page.close();
    }
    return out;
  } finally {
    await browser.close();
  }
}

export async function renderSpecimen(options: SpecimenOptions = {}): Promise<Buffer> {
  const [bytes] = await renderSpecimens([options]);
  return bytes!;
}

// `npx tsx test/support/specimens.ts out-dir`: writes one of each to look at.
if (process.argv[1] === import.meta.filename) {
  const { writeFileSync, mkdirSync } = await import('node:fs');
  const dir = process.argv[2] ?? '/tmp/specimens';
  mkdirSync(dir, { recursive: true });
  const list: [string, SpecimenOptions][] = [
    ['td3', { type: 'png' }],
    ['td1', { format: 'TD1', person: 'b', type: 'png' }],
    ['td2', { format: 'TD2', person: 'c', type: 'png', angle: 4 }],
    ['bw', { variant: 'blackAndWhite', type: 'png' }],
    ['screen', { variant: 'screen', type: 'png' }],
    ['blur', { variant: 'blur', type: 'png' }],
    ['glare', { variant: 'glare', type: 'png' }],
    ['cropped', { cropped: true, width: 1000, type: 'png' }],
  ];
  const images = await renderSpecimens(list.map(([, o]) => o));
  list.forEach(([name], i) => writeFileSync(`${dir}/${name}.png`, images[i]!));
}
