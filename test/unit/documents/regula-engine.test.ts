/**
 * The Regula connector: Regula's own web client, its requests sent through the guarded outbound
 * HTTP to a stand-in of the service on loopback, its answers mapped to the port, and every way a
 * call can go wrong sorted into "try again" and "the configuration's fault".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegulaDocumentEngine, regulaMrzLines } from '../../../functions/adapters/regula-document-engine.js';
import type { RegulaOptions } from '../../../functions/documents/model.js';
import { DocumentServiceUnavailable, DocumentServiceUnusable } from '../../../functions/shared/document-service-errors.js';
import { judgeMrzLines } from '../../../functions/documents/mrz.js';
import { regulaServiceOf } from '../../../functions/documents/regula-service.js';
import { guardedFetch, type GuardOptions } from '../../../functions/shared/outbound.js';
import { mrzLines, PEOPLE } from '../../support/specimens.js';
import { startRegulaStandIn, type RegulaStandIn } from '../../support/regula-stand-in.js';

const OPTIONS: RegulaOptions = { scenario: 'FullProcess', measureSystem: 'METRIC', alreadyCropped: true };
const image = { bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]) };
const LOOPBACK = { allowLoopback: true };
let standIn: RegulaStandIn;
const engine = (opts: Partial<RegulaOptions> = {}, authorization?: string, guard: GuardOptions = LOOPBACK) =>
  new RegulaDocumentEngine({ url: standIn.url, ...(authorization ? { authorization } : {}) }, { ...OPTIONS, ...opts }, judgeMrzLines, guardedFetch, guard);

beforeAll(async () => {
  standIn = await startRegulaStandIn();
});
afterAll(() => standIn.close());

describe('RegulaDocumentEngine', () => {
  it("sends the side once, with the step's scenario, to /api/process, and maps Regula's fields to the family's names", async () => {
    standIn.answer({
      mrzLines: mrzLines('TD3', PEOPLE.a),
      fields: { 8: 'PEDERSEN', 9: 'JESPER', 2: 'L898902C3', 5: '1974-08-12', 3: '2034-04-15', 1: 'UTO', 17: '1 Main St' },
      documentName: 'Utopia - Passport (2020)',
    });
    const before = standIn.requests.length;
    const out = await engine({ scenario: 'FullAuth', measureSystem: 'IMPERIAL' }, 'Bearer tenant-token').read(image);
    expect(out.engine).toBe('regula');
    expect(out.visual).toEqual({
      documentLastName: 'PEDERSEN',
      documentFirstName: 'JESPER',
      documentNumber: 'L898902C3',
      documentDateOfBirth: '1974-08-12',
      documentDateOfExpiry: '2034-04-15',
      documentIssuingCountryCode: 'UTO',
      documentClassification: 'Utopia - Passport (2020)',
    });
    expect(out.mrz).toMatchObject({ format: 'TD3', valid: true, fields: { documentNumber: 'L898902C3', lastName: 'PEDERSEN' } });
    expect(out.regulaStatus).toEqual({ overallStatus: 1, optical: 1 });
    const sent = standIn.requests[before]!;
    expect(sent.path).toBe('/api/process');
    expect(sent.headers.authorization).toBe('Bearer tenant-token');
    expect(sent.body.List).toEqual([{ ImageData: { image: Buffer.from(image.bytes).toString('base64') }, light: 6, page_idx: 0 }]);
    // The image once: not also under the client's `images` shorthand.
    expect(sent.body).not.toHaveProperty('images');
    expect(sent.body.processParam).toMatchObject({ scenario: 'FullAuth', measureSystem: 1, dateFormat: 'yyyy-MM-dd', alreadyCropped: true, resultTypeOutput: [36, 33, 9] });
  });

  it('judges the MRZ Regula read by the same check digits: a broken one is not valid, whatever Regula says', async () => {
    standIn.answer({ mrzLines: mrzLines('TD1', PEOPLE.b, 'birthDate'), overallStatus: 1 });
    const out = await engine().read(image);
    expect(out.mrz).toMatchObject({ format: 'TD1', valid: false });
    expect(out.mrz!.checkDigits.filter((d) => !d.valid).map((d) => d.field)).toEqual(['birthDate']);
  });

  it('keeps no date in another shape, no over-long value, and no MRZ when Regula found none', async () => {
    standIn.answer({ fields: { 5: '12.08.1974', 8: 'X'.repeat(201), 9: 'ANNA' }, overallStatus: 0 });
    const out = await engine().read(image);
    expect(out.visual).toEqual({ documentFirstName: 'ANNA' });
    expect(out.mrz).toBeUndefined();
    expect(out.regulaStatus).toEqual({ overallStatus: 0, optical: 0 });
  });

  it.each([
    [503, DocumentServiceUnavailable],
    [429, DocumentServiceUnavailable],
    [500, DocumentServiceUnavailable],
    [400, DocumentServiceUnusable],
    [401, DocumentServiceUnusable],
    [404, DocumentServiceUnusable],
  ] as const)('sorts an answer %i into %o', async (status, kind) => {
    standIn.answer({ status, body: 'nope' });
    await expect(engine().read(image)).rejects.toBeInstanceOf(kind);
  });

  it('takes a 200 that is not a Regula answer for a service it cannot use, not for an unreadable document', async () => {
    standIn.answer({ status: 200, body: '<html>login</html>' });
    await expect(engine().read(image)).rejects.toBeInstanceOf(DocumentServiceUnusable);
  });

  it('refuses a URL to loopback, a private address or cloud metadata where the guard does (on AWS), before sending anything', async () => {
    const before = standIn.requests.length;
    await expect(engine({}, undefined, {}).read(image)).rejects.toThrow(/refused/);
    for (const url of ['https://10.0.0.8', 'https://169.254.169.254', 'http://example.com']) {
      const e = new RegulaDocumentEngine({ url }, OPTIONS, judgeMrzLines, guardedFetch, {});
      await expect(e.read(image)).rejects.toBeInstanceOf(DocumentServiceUnusable);
    }
    expect(standIn.requests.length).toBe(before);
  });

  it('takes a service that does not answer for one worth trying again', async () => {
    // A port nothing listens on.
    const e = new RegulaDocumentEngine({ url: 'http://127.0.0.1:9' }, OPTIONS, judgeMrzLines, guardedFetch, LOOPBACK);
    await expect(e.read(image)).rejects.toBeInstanceOf(DocumentServiceUnavailable);
  });

  it("reads Regula's MRZ lines, separated by ^ or line breaks", () => {
    expect(regulaMrzLines('P<UTO^L898902C3')).toEqual(['P<UTO', 'L898902C3']);
    expect(regulaMrzLines('P<UTO\r\nL898 902C3\n')).toEqual(['P<UTO', 'L898902C3']);
    expect(regulaMrzLines(undefined)).toEqual([]);
  });
});

describe('the Regula service a cloud secret names', () => {
  it('is a base URL, or JSON with the URL and an Authorization header', () => {
    expect(regulaServiceOf('https://regula.example.com/')).toEqual({ ok: true, service: { url: 'https://regula.example.com' } });
    expect(regulaServiceOf(' {"url": "https://api.regulaforensics.com", "authorization": "Bearer abc"} ')).toEqual({
      ok: true,
      service: { url: 'https://api.regulaforensics.com', authorization: 'Bearer abc' },
    });
  });

  it.each([
    ['not a URL', 'regula'],
    ['another scheme', 'ftp://regula.example.com'],
    ['credentials in the URL', 'https://user:pw@regula.example.com'],
    ['a query', 'https://regula.example.com?key=1'],
    ['broken JSON', '{"url": '],
    ['a JSON array', '["https://regula.example.com"]'],
    ['an unknown property', '{"url": "https://regula.example.com", "license": "x"}'],
    ['a header with a line break', '{"url": "https://regula.example.com", "authorization": "a\\r\\nX-Evil: 1"}'],
    ['a header that is not text', '{"url": "https://regula.example.com", "authorization": 5}'],
  ])('refuses %s, saying why without the value', (_what, value) => {
    const out = regulaServiceOf(value);
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.problem).not.toContain('regula.example.com');
  });
});
