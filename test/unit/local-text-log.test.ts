import { describe, expect, it } from 'vitest';
import { recordLine, requestLine, shownPath, textLog } from '../../lib/local/text-log.js';

const AT = new Date(2026, 10, 28, 14, 3, 4);
const KEY = 'ak_0123456789abcdef0123456789abcdef_sWlYnhpFL67FNGICEfo3xUjf-2pnGLRCxWk-N2efqmU';
const CAPABILITY = 'an1uffFZwUmn6XXOoSavc9MauDlqvQj-v303loseaTE';

describe('requestLine', () => {
  it('says method, path, status and time on one short line', () => {
    expect(requestLine({ method: 'GET', url: '/api/arthr/apiKeys?size=5', status: 200, durationMs: 12.4 }, AT)).toBe('14:03:04 GET /api/arthr/apiKeys 200 12 ms');
  });

  it('names the error code of a refusal', () => {
    expect(requestLine({ method: 'GET', url: '/nope', status: 404, errorCode: 'ROUTE_NOT_FOUND', durationMs: 1 }, AT)).toBe('14:03:04 GET /nope 404 ROUTE_NOT_FOUND 1 ms');
  });

  it('never shows a query, where journey capabilities, switch and resume secrets travel', () => {
    for (const query of [`c=${CAPABILITY}`, `s=${CAPABILITY}`, `r=${CAPABILITY}`, `pt=x&c=${CAPABILITY}`]) {
      const line = requestLine({ method: 'GET', url: `/journey/4a032909-28b1-4cf9-83df-ff0156596726?${query}`, status: 200, durationMs: 3 }, AT);
      expect(line).toBe('14:03:04 GET /journey/4a032909-28b1-4cf9-83df-ff0156596726 200 3 ms');
    }
  });

  it('masks a path segment long enough to be a key, a token or a capability, and keeps ids', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlc2lnbmF0dXJlc2lnbmF0dXJl';
    expect(shownPath(`/api/arthr/apiKeys/${KEY}`)).toBe('/api/arthr/apiKeys/***');
    expect(shownPath(`/api/arthr/apiKeys/ak_short`)).toBe('/api/arthr/apiKeys/***');
    expect(shownPath(`/journey/${CAPABILITY}`)).toBe('/journey/***');
    expect(shownPath(`/x/${jwt}/y`)).toBe('/x/***/y');
    expect(shownPath('/api/process-manager/processInstances/4a032909-28b1-4cf9-83df-ff0156596726')).toBe('/api/process-manager/processInstances/4a032909-28b1-4cf9-83df-ff0156596726');
  });

  it('cannot be made to write control characters to the terminal', () => {
    const line = requestLine({ method: 'GET', url: '/a\u001b[2J\r\nfake 200', status: 404, durationMs: 1 }, AT);
    expect(line).not.toMatch(/[\u0000-\u001f]/);
  });
});

describe('recordLine', () => {
  it('writes level, message and fields, without the request scope', () => {
    const line = recordLine('WARN', 'execution end recorded by the reconciler', { requestId: 'r', correlationId: 'r', operationId: 'x', cold_start: false, tenantId: 'demo', status: 'COMPLETED_TERMINATED', note: 'two words' }, AT);
    expect(line).toBe('14:03:04 WARN  execution end recorded by the reconciler tenantId=demo status=COMPLETED_TERMINATED note="two words"');
  });

  it('gives an event of the local bus as its type and subject', () => {
    const event = { type: 'process-instance.created', subject: { type: 'process-instance', id: 'i-1' }, tenantId: 'demo', data: { big: 'x'.repeat(500) } };
    expect(recordLine('INFO', 'event', { event }, AT)).toBe('14:03:04 event process-instance.created process-instance i-1 tenant=demo');
  });

  it("gives an error's name and message, and for an ERROR its stack below", () => {
    const error = new TypeError('boom');
    const line = recordLine('ERROR', 'could not record an execution end', { error }, AT);
    expect(line.split('\n')[0]).toBe('14:03:04 ERROR could not record an execution end error="TypeError: boom"');
    expect(line.split('\n')[1]).toMatch(/^ {4}at /);
    expect(recordLine('WARN', 'retrying', { error }, AT)).not.toContain('\n');
  });
});

describe('textLog', () => {
  it("leaves out the handler's access record and the gateway's refusal record: the request line says it", () => {
    const out: string[] = [];
    const err: string[] = [];
    const log = textLog({ write: (s: string) => out.push(s) }, { write: (s: string) => err.push(s) });
    log.sink('INFO', 'request', { route: 'GET /x', status: 200 });
    log.sink('INFO', 'gateway refusal', { status: 404 });
    log.sink('INFO', 'swept expired items', { deleted: 2 });
    log.sink('ERROR', 'gateway error', { error: new Error('x') });
    log.request({ method: 'POST', url: '/api/arthr/apiKeys/issue', status: 200, durationMs: 5 });
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(/ INFO  swept expired items deleted=2\n$/);
    expect(out[1]).toMatch(/ POST \/api\/arthr\/apiKeys\/issue 200 5 ms\n$/);
    expect(err).toHaveLength(1);
  });
});
