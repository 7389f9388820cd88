/**
 * A stand-in for a tenant's Regula Document Reader web service (no licence runs here): it answers
 * `POST /api/process` in the shape Regula's web client reads (ContainerList with a text result,
 * a status result and the recognised document type, as its documentation and its client's models give them), with what the
 * test says the document holds, and keeps every request it got. The tests of the Regula connector
 * use it over HTTP on loopback: unit (functions/adapters/regula-document-engine.ts) and integration.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the stand-in "reads" on the next document: Regula's text field types and values, and its MRZ lines. */
export interface RegulaDocument {
  mrzLines?: string[];
  /** By Regula's TextFieldType number (8 SURNAME, 9 GIVEN_NAMES, 2 DOCUMENT_NUMBER, 5 DATE_OF_BIRTH, ...). */
  fields?: Record<number, string>;
  overallStatus?: 0 | 1 | 2;
  /** The document Regula recognised (its DocumentName). */
  documentName?: string;
}

export interface RegulaRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: { processParam?: Record<string, unknown>; List?: { ImageData?: { image?: string } }[]; [k: string]: unknown };
}

export interface RegulaStandIn {
  url: string;
  requests: RegulaRequest[];
  /** The next answers: a document, or an HTTP status with a body. */
  answer: (next: RegulaDocument | { status: number; body?: string }) => void;
  close: () => Promise<void>;
}

const MRZ_STRINGS = 51;

/** Regula's answer for a document: a text result (type 36) and a status result (type 33). */
export function regulaAnswer(doc: RegulaDocument): unknown {
  const fields = Object.entries({ ...(doc.fields ?? {}), ...(doc.mrzLines ? { [MRZ_STRINGS]: doc.mrzLines.join('^') } : {}) }).map(([type, value]) => ({
    fieldType: Number(type),
    fieldName: `field ${type}`,
    lcid: 0,
    lcidName: 'Latin',
    status: 1,
    validityStatus: 1,
    comparisonStatus: 2,
    value,
    valueList: [{ source: Number(type) === MRZ_STRINGS ? 'MRZ' : 'VISUAL', value, originalValue: value, pageIndex: 0, probability: 95 }],
    validityList: [],
    comparisonList: [],
  }));
  return {
    ContainerList: {
      Count: doc.documentName ? 3 : 2,
      List: [
        ...(doc.documentName ? [{ result_type: 9, light: 6, buf_length: 0, list_idx: 0, page_idx: 0, OneCandidate: { DocumentName: doc.documentName, ID: 1, P: 0.98, RFID_Presence: 0 } }] : []),
        { result_type: 36, light: 6, buf_length: 0, list_idx: 0, page_idx: 0, Text: { status: 1, validityStatus: 1, comparisonStatus: 2, dateFormat: 'yyyy-MM-dd', availableSourceList: [], fieldList: fields } },
        { result_type: 33, light: 0, buf_length: 0, list_idx: 0, page_idx: 0, Status: { overallStatus: doc.overallStatus ?? 1, optical: doc.overallStatus ?? 1, detailsOptical: {}, rfid: 2, portrait: 2, stopList: 2 } },
      ],
    },
    ProcessingFinished: 1,
    TransactionInfo: { TransactionID: 'stand-in', ComputerName: 'stand-in', DateTime: new Date().toISOString() },
    elapsedTime: 12,
  };
}

export async function startRegulaStandIn(): Promise<RegulaStandIn> {
  const requests: RegulaRequest[] = [];
  const queue: (RegulaDocument | { status: number; body?: string })[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      let parsed: RegulaRequest['body'] = {};
      try {
        parsed = JSON.parse(body) as RegulaRequest['body'];
      } catch {
        /* kept as an empty body: the test looks at it */
      }
      requests.push({ path: req.url ?? '', headers: req.headers, body: parsed });
      const next = queue.shift() ?? { status: 500, body: 'no answer queued' };
      if ('status' in next) {
        res.writeHead(next.status, { 'content-type': 'text/plain' }).end(next.body ?? '');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(regulaAnswer(next)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    answer: (next) => void queue.push(next),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
