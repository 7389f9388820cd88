/** The document engine on AWS: Textract's AnalyzeID mapped to the port, with aws-sdk-client-mock. */
import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { AnalyzeIDCommand, TextractClient } from '@aws-sdk/client-textract';
import { TextractDocumentEngine as Engine } from '../../../functions/adapters/textract-document-engine.js';
import { judgeMrzLines } from '../../../functions/documents/mrz.js';
import { isTransientError } from '../../../functions/shared/aws-errors.js';
import { mrzLines, PEOPLE } from '../../support/specimens.js';

const textract = mockClient(TextractClient);
class TextractDocumentEngine extends Engine {
  constructor() {
    super(judgeMrzLines);
  }
}
const pixels = { width: 1, height: 1, data: new Uint8Array(4) };
const image = { bytes: new Uint8Array([0xff, 0xd8, 0xff]), pixels };
const field = (type: string, text: string, normalized?: string) => ({
  Type: { Text: type },
  ValueDetection: { Text: text, Confidence: 99, ...(normalized ? { NormalizedValue: { Value: normalized, ValueType: 'DATE' as const } } : {}) },
});

beforeEach(() => textract.reset());

describe('TextractDocumentEngine', () => {
  it('maps AnalyzeID fields to the family names and judges its MRZ_CODE by the check digits', async () => {
    const lines = mrzLines('TD3', PEOPLE.a);
    textract.on(AnalyzeIDCommand).resolves({
      IdentityDocuments: [
        {
          DocumentIndex: 1,
          IdentityDocumentFields: [
            field('FIRST_NAME', 'JESPER'),
            field('LAST_NAME', 'PEDERSEN'),
            field('DOCUMENT_NUMBER', 'L898902C3'),
            field('EXPIRATION_DATE', '15 APR 2034', '2034-04-15T00:00:00'),
            field('DATE_OF_BIRTH', '12 AUG 1974', '1974-08-12T00:00:00'),
            field('MRZ_CODE', lines.join('\n')),
            field('VETERAN', ''),
          ],
        },
      ],
    });
    const out = await new TextractDocumentEngine().read(image);
    expect(out.engine).toBe('textract');
    expect(out.visual).toEqual({
      documentFirstName: 'JESPER',
      documentLastName: 'PEDERSEN',
      documentNumber: 'L898902C3',
      documentDateOfExpiry: '2034-04-15',
      documentDateOfBirth: '1974-08-12',
    });
    expect(out.mrz).toMatchObject({ format: 'TD3', valid: true });
    expect(out.mrz?.fields.documentNumber).toBe('L898902C3');
    expect(textract.commandCalls(AnalyzeIDCommand)[0]!.args[0].input).toEqual({ DocumentPages: [{ Bytes: image.bytes }] });
  });

  it('finds the MRZ among the text lines when there is no MRZ_CODE field, and names a broken check digit', async () => {
    const lines = mrzLines('TD1', PEOPLE.b, 'birthDate');
    textract.on(AnalyzeIDCommand).resolves({
      IdentityDocuments: [
        {
          IdentityDocumentFields: [field('LAST_NAME', 'HANSEN')],
          Blocks: [
            { BlockType: 'LINE', Text: 'UTOPIA IDENTITY CARD' },
            ...lines.map((l) => ({ BlockType: 'LINE' as const, Text: l.replace(/(.{10})/, '$1 ') })),
            { BlockType: 'WORD', Text: lines[0] },
          ],
        },
      ],
    });
    const out = await new TextractDocumentEngine().read(image);
    expect(out.mrz).toMatchObject({ format: 'TD1', valid: false });
    expect(out.mrz?.checkDigits.filter((d) => !d.valid).map((d) => d.field)).toEqual(['birthDate']);
  });

  it('answers no MRZ for a document without one', async () => {
    textract.on(AnalyzeIDCommand).resolves({ IdentityDocuments: [{ IdentityDocumentFields: [field('LAST_NAME', 'SAMPLE')] }] });
    const out = await new TextractDocumentEngine().read(image);
    expect(out.mrz).toBeUndefined();
    expect(out.visual).toEqual({ documentLastName: 'SAMPLE' });
  });

  it('lets a throttle through as a transient error for the step to retry', async () => {
    textract.on(AnalyzeIDCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ProvisionedThroughputExceededException', $metadata: { httpStatusCode: 400 } }));
    const err = await new TextractDocumentEngine().read(image).catch((e: unknown) => e);
    expect(isTransientError(err)).toBe(true);
  });
});
