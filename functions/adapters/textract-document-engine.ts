/**
 * The document engine on AWS where a deployment chooses it (DOCUMENT_ENGINE=textract): Amazon
 * Textract's AnalyzeID in the function's own region, one call a side. Its normalised fields give
 * the visual zone; its MRZ_CODE field, or else the lines of its text that have an MRZ's shape,
 * are judged by the same MRZ parsing and check digits as the embedded engine's (the judge
 * functions/documents/deps.ts gives it, functions/documents/mrz.ts), so a broken check digit fails alike on both.
 *
 * AnalyzeID takes a JPEG or PNG of at most 10 MB; the capture limits keep every image inside it.
 */
import type { TextractClient, IdentityDocumentField } from '@aws-sdk/client-textract';
import { traced } from '../observability/tracer.js';
import type { DocumentEngine, DocumentReading, MrzReading, VisualFields } from '../documents/model.js';

type Textract = { client: TextractClient; commands: typeof import('@aws-sdk/client-textract') };

/** AnalyzeID's normalised fields, by the family's field names. */
const FIELDS: Record<string, string> = {
  FIRST_NAME: 'documentFirstName',
  LAST_NAME: 'documentLastName',
  MIDDLE_NAME: 'documentMiddleName',
  DOCUMENT_NUMBER: 'documentNumber',
  EXPIRATION_DATE: 'documentDateOfExpiry',
  DATE_OF_BIRTH: 'documentDateOfBirth',
  DATE_OF_ISSUE: 'documentDateOfIssue',
  STATE_NAME: 'documentIssuingState',
  PLACE_OF_BIRTH: 'documentPlaceOfBirth',
  ID_TYPE: 'documentClassification',
  ADDRESS: 'documentAddressStreetAddress',
  CITY_IN_ADDRESS: 'documentAddressSuburb',
  ZIP_CODE_IN_ADDRESS: 'documentAddressPostalCode',
  STATE_IN_ADDRESS: 'documentAddressState',
};

/** An MRZ line: 30, 36 or 44 of A-Z, 0-9 and `<` (Textract may read a space into it). */
const MRZ_LINE = /^[A-Z0-9<]{30}$|^[A-Z0-9<]{36}$|^[A-Z0-9<]{44}$/;

/** The value of a field: a date as Textract normalises it (`2034-04-15T00:00:00`) written YYYY-MM-DD. */
function valueOf(field: IdentityDocumentField): string | undefined {
  const normalized = field.ValueDetection?.NormalizedValue;
  if (normalized?.ValueType === 'DATE' && typeof normalized.Value === 'string') return normalized.Value.slice(0, 10);
  const text = field.ValueDetection?.Text?.trim();
  return text ? text : undefined;
}

/** The MRZ's lines among what Textract read: its MRZ_CODE field's, or the text lines shaped like one. */
export function mrzLinesOf(fields: readonly IdentityDocumentField[], lines: readonly string[]): string[] {
  const code = fields.find((f) => f.Type?.Text === 'MRZ_CODE')?.ValueDetection?.Text;
  const candidates = (code ? code.split(/\n/) : lines).map((l) => l.replace(/\s+/g, '').toUpperCase()).filter((l) => MRZ_LINE.test(l));
  return candidates;
}

export class TextractDocumentEngine implements DocumentEngine {
  readonly name = 'textract' as const;
  private made: Promise<Textract> | undefined;
  /** Judges MRZ lines (functions/documents/mrz.ts judgeMrzLines), as the embedded engine does. */
  constructor(private readonly judge: (lines: readonly string[]) => MrzReading | undefined) {}

  private textract(): Promise<Textract> {
    this.made ??= import('@aws-sdk/client-textract').then(async (commands) => ({ client: await traced(new commands.TextractClient({})), commands }));
    return this.made;
  }

  async read(image: { bytes: Uint8Array }): Promise<DocumentReading> {
    const { client, commands } = await this.textract();
    const out = await client.send(new commands.AnalyzeIDCommand({ DocumentPages: [{ Bytes: image.bytes }] }));
    const document = out.IdentityDocuments?.[0];
    const fields = document?.IdentityDocumentFields ?? [];
    const visual: VisualFields = {};
    for (const field of fields) {
      const name = field.Type?.Text ? FIELDS[field.Type.Text] : undefined;
      const value = valueOf(field);
      if (name && value !== undefined) visual[name] = value;
    }
    const lines = (document?.Blocks ?? []).filter((b) => b.BlockType === 'LINE' && typeof b.Text === 'string').map((b) => b.Text!);
    const mrz = this.judge(mrzLinesOf(fields, lines));
    return { engine: this.name, visual, ...(mrz ? { mrz } : {}) };
  }
}
