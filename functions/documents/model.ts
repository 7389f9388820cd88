/**
 * Identity documents: what a capture step keeps in the session, the pixels the document
 * analysis works on, and the document engine port (reading a document's MRZ and visual zone).
 * Quality and authenticity figures are measured on the pixels by functions/documents/analysis
 * (pure JavaScript, the same locally and in Lambda); reading goes through the engine port:
 * the embedded engine (tesseract.js and the `mrz` parser) everywhere, Amazon Textract on AWS
 * where a deployment chooses it.
 */

/** The family's document types (Select Document Type's `documentTypes`). */
export const DOCUMENT_TYPES = ['PASSPORT', 'ID_CARD', 'DRIVERS_LICENSE', 'OTHER'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

export type DocSide = 'FRONT' | 'BACK';

/** One captured side, as the session keeps it under `_documents.{docKey}.captures` (the newest last). */
export interface DocumentCapture {
  captureId: string;
  side: DocSide;
  format: 'JPEG' | 'PNG';
  width: number;
  height: number;
  bytes: number;
  sha256: string;
  capturedAt: string;
  source: 'camera' | 'file';
}

/** What the document steps of one Doc Key keep in the session: `_documents.{docKey}`. */
export interface DocumentSession {
  /** Set by Select Document Type. */
  documentType?: DocumentType;
  /** ISO 3166-1 alpha-2, upper case. */
  country?: string;
  captures?: DocumentCapture[];
}

/** Decoded pixels, RGBA, row by row (as jpeg-js and pngjs give them). */
export interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
}

/** A box in an image's pixels. */
export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The fields of an MRZ, named as the `mrz` package names them. */
export interface MrzFields {
  documentCode?: string;
  issuingState?: string;
  lastName?: string;
  firstName?: string;
  documentNumber?: string;
  nationality?: string;
  birthDate?: string;
  sex?: string;
  expirationDate?: string;
  optional1?: string;
  optional2?: string;
}

/** An MRZ read and judged by its check digits. */
export interface MrzReading {
  format: 'TD1' | 'TD2' | 'TD3';
  /** The lines as read (after corrections), each of the format's length. */
  lines: string[];
  /** Every check digit matches. */
  valid: boolean;
  fields: MrzFields;
  /** Each check digit: which field it guards and whether it matches. */
  checkDigits: { field: string; valid: boolean }[];
  /** Where the MRZ was found, in the pixels given. */
  box: Box;
}

/** Fields of the visual zone, by the family's names (documentFirstName, documentNumber, ...). */
export type VisualFields = Record<string, string>;

export interface DocumentReading {
  engine: DocumentEngine['name'];
  mrz?: MrzReading;
  visual: VisualFields;
}

/** Reads a document: its MRZ (located, read, checked) and its visual zone where it can. */
export interface DocumentEngine {
  readonly name: 'embedded' | 'textract' | 'regula';
  read(image: { bytes: Uint8Array; pixels: Rgba }): Promise<DocumentReading>;
}

/** Where a tenant's Regula Document Reader web service is (functions/documents/regula-service.ts): its base URL and, when its gateway wants one, an Authorization header. */
export interface RegulaService {
  url: string;
  authorization?: string;
}

/** What the Regula step asks of one reading (its inputs). */
export interface RegulaOptions {
  scenario: 'FullProcess' | 'DocType' | 'FullAuth' | 'Mrz' | 'Ocr';
  measureSystem: 'METRIC' | 'IMPERIAL';
  /** Image Profile Cropped: the capture is already cropped to the document. */
  alreadyCropped: boolean;
}

/** The engines a tenant's own licensed service gives, made per step from the tenant's configuration. */
export interface DocumentServices {
  regula(service: RegulaService, options: RegulaOptions): DocumentEngine;
}
