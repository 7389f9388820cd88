/**
 * A reading's fields by the family's names (`documentFirstName`, `documentNumber`, ...), as its
 * data forms and functions read them: the MRZ's first (its check digits vouch for them), then
 * what the engine read in the visual zone for the names the MRZ has no value for.
 */
import type { DocumentReading, MrzReading } from './model.js';

/** YYMMDD as YYYY-MM-DD: a birth date is in the past (a year after this one is the last century), an expiry within 50 years of now. */
export function mrzDate(yymmdd: string | undefined, kind: 'birth' | 'expiry', now = new Date()): string | undefined {
  if (!yymmdd || !/^\d{6}$/.test(yymmdd)) return undefined;
  const yy = Number(yymmdd.slice(0, 2));
  const century = Math.floor(now.getUTCFullYear() / 100) * 100;
  const thisYear = now.getUTCFullYear() % 100;
  let year = century + yy;
  if (kind === 'birth' && yy > thisYear) year -= 100;
  if (kind === 'expiry' && year > now.getUTCFullYear() + 50) year -= 100;
  return `${year}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`;
}

/** The family's document type from the MRZ's document code (ICAO 9303: P passports, I, A and C identity cards, V visas). */
export function documentTypeOf(code: string | undefined): string | undefined {
  const first = code?.[0];
  if (first === 'P') return 'PASSPORT';
  if (first === 'I' || first === 'A' || first === 'C') return 'ID_CARD';
  return first ? 'OTHER' : undefined;
}

const SEX: Record<string, string> = { male: 'M', female: 'F', nonspecified: 'X', M: 'M', F: 'F', X: 'X', '<': 'X' };

function fromMrz(mrz: MrzReading, now: Date): Record<string, string> {
  const f = mrz.fields;
  const given = f.firstName?.trim().split(/\s+/) ?? [];
  const out: Record<string, string | undefined> = {
    documentFirstName: given[0],
    documentMiddleName: given.length > 1 ? given.slice(1).join(' ') : undefined,
    documentLastName: f.lastName?.trim(),
    documentNumber: f.documentNumber,
    documentDateOfBirth: mrzDate(f.birthDate, 'birth', now),
    documentDateOfExpiry: mrzDate(f.expirationDate, 'expiry', now),
    documentType: documentTypeOf(f.documentCode),
    documentClassification: `${mrz.format}${f.documentCode ? ` ${f.documentCode}` : ''}`,
    documentIssuingCountryCode: f.issuingState,
    documentIssuingState: f.issuingState,
    documentNationality: f.nationality,
    documentSex: f.sex ? SEX[f.sex] : undefined,
    documentPersonalNumber: f.optional1 || undefined,
  };
  return Object.fromEntries(Object.entries(out).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''));
}

/** The fields of a reading by the family's names: the MRZ's, then the visual zone's for the rest. */
export function familyFields(reading: Pick<DocumentReading, 'mrz' | 'visual'>, now = new Date()): Record<string, string> {
  return { ...reading.visual, ...(reading.mrz ? fromMrz(reading.mrz, now) : {}) };
}
