/**
 * The document engine of a tenant that licenses Regula Document Reader: its web service (Regula's
 * cloud, or the tenant's own deployment of it) through Regula's own JS client, one `process` call
 * a side. The client builds the request and reads the answer; the request itself goes through the
 * service's guarded outbound HTTP (functions/shared/outbound.ts: HTTPS to public addresses only,
 * every redirect checked, a time and a size bound), since the URL is the tenant's.
 *
 * The visual zone's fields come from Regula's text result by the family's names; the MRZ Regula
 * read is judged by the same parsing and check digits as the other engines' (the judge given),
 * so a broken check digit fails alike on every engine. Regula's own overall status is kept beside
 * the reading for the check's details.
 */
import axios, { AxiosHeaders, type AxiosAdapter, type InternalAxiosRequestConfig } from 'axios';
import { DocumentReaderApi, Light, MeasureSystem, Result, Scenario, TextFieldType } from '@regulaforensics/document-reader-webclient';
import { OutboundFailed, OutboundRefused, type GuardedFetch, type GuardOptions } from '../shared/outbound.js';
import type { DocumentEngine, DocumentReading, MrzReading, RegulaOptions, RegulaService, VisualFields } from '../documents/model.js';
import { DocumentServiceUnavailable, DocumentServiceUnusable } from '../shared/document-service-errors.js';

/** A reading through Regula: the engine's reading, and Regula's overall status (1 ok, 0 not, 2 not done) for the check. */
export type RegulaReading = DocumentReading & { regulaStatus?: { overallStatus?: number; optical?: number } };

/** Regula's text fields, by the family's names (the MRZ's own fields come from the judged MRZ first: functions/documents/fields.ts). */
const FIELDS: [TextFieldType, string][] = [
  [TextFieldType.GIVEN_NAMES, 'documentFirstName'],
  [TextFieldType.SURNAME, 'documentLastName'],
  [TextFieldType.MIDDLE_NAME, 'documentMiddleName'],
  [TextFieldType.DOCUMENT_NUMBER, 'documentNumber'],
  [TextFieldType.DATE_OF_BIRTH, 'documentDateOfBirth'],
  [TextFieldType.DATE_OF_EXPIRY, 'documentDateOfExpiry'],
  [TextFieldType.DATE_OF_ISSUE, 'documentDateOfIssue'],
  [TextFieldType.ISSUING_STATE_CODE, 'documentIssuingCountryCode'],
  [TextFieldType.ISSUING_STATE_NAME, 'documentIssuingState'],
  [TextFieldType.NATIONALITY_CODE, 'documentNationality'],
  [TextFieldType.SEX, 'documentSex'],
  [TextFieldType.PLACE_OF_BIRTH, 'documentPlaceOfBirth'],
  [TextFieldType.DOCUMENT_CLASS_NAME, 'documentClassification'],
  [TextFieldType.ADDRESS_STREET, 'documentAddressStreetAddress'],
  [TextFieldType.ADDRESS_CITY, 'documentAddressSuburb'],
  [TextFieldType.ADDRESS_POSTAL_CODE, 'documentAddressPostalCode'],
  [TextFieldType.ADDRESS_STATE, 'documentAddressState'],
];

/** Dates are asked for as YYYY-MM-DD; a value in another shape is not taken for one. */
const DATE_FIELDS = new Set(['documentDateOfBirth', 'documentDateOfExpiry', 'documentDateOfIssue']);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A field's value is text of a sensible length: anything else is not kept. */
const MAX_FIELD_CHARS = 200;

/** The time Regula may take for one side, and the largest answer read (text and status only are asked for). */
export const REGULA_TIMEOUT_MS = 30_000;
export const REGULA_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** axios' transport replaced by the guarded fetch: the client's request, sent where the guard allows. */
function guardedAdapter(fetch: GuardedFetch, guard: GuardOptions): AxiosAdapter {
  return async (config: InternalAxiosRequestConfig) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(AxiosHeaders.from(config.headers).toJSON())) {
      if (typeof value === 'string') headers[name] = value;
    }
    const body = typeof config.data === 'string' ? config.data : config.data === undefined ? undefined : JSON.stringify(config.data);
    const res = await fetch(
      new URL(config.url ?? '', config.baseURL).toString(),
      { method: (config.method ?? 'get').toUpperCase(), headers, ...(body !== undefined ? { body } : {}) },
      { ...guard, timeoutMs: REGULA_TIMEOUT_MS, maxResponseBytes: REGULA_MAX_RESPONSE_BYTES, maxRedirects: 0 },
    );
    // An adapter settles the answer itself: a status outside 2xx is sorted here.
    if (res.status === 429 || res.status >= 500) throw new DocumentServiceUnavailable(`the Regula service answered ${res.status}`);
    if (res.status < 200 || res.status >= 300) throw new DocumentServiceUnusable(`the Regula service answered ${res.status}`);
    return { data: res.body.toString('utf8'), status: res.status, statusText: res.statusText, headers: res.headers, config, request: {} };
  };
}

/** The lines of Regula's MRZ_STRINGS value (separated by `^`, or by line breaks). */
export function regulaMrzLines(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(/\^|\r?\n/)
    .map((l) => l.replace(/\s+/g, '').toUpperCase())
    .filter((l) => l.length > 0);
}

export class RegulaDocumentEngine implements DocumentEngine {
  readonly name = 'regula' as const;
  private readonly api: DocumentReaderApi;

  constructor(
    service: RegulaService,
    private readonly options: RegulaOptions,
    private readonly judge: (lines: readonly string[]) => MrzReading | undefined,
    fetch: GuardedFetch,
    guard: GuardOptions,
  ) {
    const client = axios.create({ adapter: guardedAdapter(fetch, guard) });
    this.api = new DocumentReaderApi(
      { basePath: service.url.replace(/\/+$/, ''), ...(service.authorization ? { baseOptions: { headers: { Authorization: service.authorization } } } : {}) },
      undefined,
      client,
    );
  }

  async read(image: { bytes: Uint8Array }): Promise<RegulaReading> {
    let answer: Awaited<ReturnType<DocumentReaderApi['process']>>;
    try {
      // The request as Regula's API takes it (the client's `images` shorthand would send the image twice).
      answer = await this.api.process({
        List: [{ ImageData: { image: Buffer.from(image.bytes).toString('base64') }, light: Light.WHITE, page_idx: 0 }],
        processParam: {
          scenario: this.options.scenario as Scenario,
          resultTypeOutput: [Result.TEXT, Result.STATUS, Result.DOCUMENT_TYPE],
          dateFormat: 'yyyy-MM-dd',
          measureSystem: this.options.measureSystem === 'IMPERIAL' ? MeasureSystem.IMPERIAL : MeasureSystem.METRIC,
          alreadyCropped: this.options.alreadyCropped,
        },
      });
    } catch (err) {
      throw classify(err);
    }
    const raw = answer.rawResponse as unknown;
    if (!raw || typeof raw !== 'object' || !('ContainerList' in raw)) throw new DocumentServiceUnusable('the service answered, but not as Regula Document Reader does (no ContainerList)');
    const visual: VisualFields = {};
    for (const [type, name] of FIELDS) {
      const value = answer.text?.getField(type)?.value?.trim();
      if (!value || value.length > MAX_FIELD_CHARS) continue;
      if (DATE_FIELDS.has(name) && !ISO_DATE.test(value)) continue;
      visual[name] = value;
    }
    // The document Regula recognised (DocType's whole answer), when the text has no class name.
    const candidate = answer.documentType(0) as { DocumentName?: unknown } | undefined;
    if (!visual.documentClassification && typeof candidate?.DocumentName === 'string' && candidate.DocumentName.length <= MAX_FIELD_CHARS) {
      visual.documentClassification = candidate.DocumentName;
    }
    const mrz = this.judge(regulaMrzLines(answer.text?.getField(TextFieldType.MRZ_STRINGS)?.value));
    const status = answer.status as { overallStatus?: number; optical?: number } | undefined;
    return {
      engine: this.name,
      visual,
      ...(mrz ? { mrz } : {}),
      ...(status ? { regulaStatus: { overallStatus: status.overallStatus, optical: status.optical } } : {}),
    };
  }
}

/** What went wrong with a call, in the step's terms: worth retrying, or the configuration's fault. */
function classify(err: unknown): Error {
  if (err instanceof OutboundRefused) return new DocumentServiceUnusable(`the Regula service's URL is refused: ${err.message}`);
  if (err instanceof OutboundFailed) {
    // A redirect (none is followed), a request or an answer over its bound: trying again changes nothing.
    const lasting = err.reason === 'too-many-redirects' || err.reason === 'request-too-large' || err.reason === 'response-too-large' || err.reason === 'invalid-request';
    return lasting ? new DocumentServiceUnusable(`the Regula service cannot be used: ${err.message}`) : new DocumentServiceUnavailable(`the Regula service did not answer: ${err.message}`);
  }
  if (err instanceof DocumentServiceUnusable || err instanceof DocumentServiceUnavailable) return err;
  return new DocumentServiceUnusable(`the Regula service's answer could not be read: ${err instanceof Error ? err.message : String(err)}`);
}
