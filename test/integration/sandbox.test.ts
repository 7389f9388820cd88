import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { adminToken, call, finalStatus, issueToken, multipart, pageUntil, until } from './client.js';

/** What a headless browser's fake camera sends: a whole image with no face in it. */
const NO_FACE = readFileSync(join(resolve(import.meta.dirname, '../fixtures/faces'), 'no-face-landscape.jpg'));

let token: string;
beforeAll(async () => {
  token = await adminToken();
});
const fresh = () => Math.random().toString(36).slice(2, 10);

/** A process token of the selfie-match example (capture, match with an upload, decider) with `extra`. */
const processToken = (extra: Record<string, unknown>) =>
  call('POST', '/api/process-manager/processTokens', { token, body: { name: `sb-${fresh()}`, processDefnName: 'selfie-match', processDefnVersion: 1, ...extra } });

/**
 * A test-mode journey of selfie-match, run as a developer would locally: the capture gets the fake
 * camera's faceless image, and no reference photo is uploaded. Without forcing it could never pass.
 */
async function sandboxJourney(sandbox: Record<string, unknown>) {
  const pt = await processToken({ forTest: 'true', sandbox });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status).toBe(201);
  const id = created.json.processInstanceId as string;
  const url = new URL(created.json.redirectUrl);
  const c = url.searchParams.get('c')!;
  const page = await pageUntil(`${url.pathname}${url.search}&lang=en`, 'id="face-form"');
  const posted = await call('POST', `/journey/${id}/steps/captureFace/face?c=${c}&lang=en`, multipart(NO_FACE));
  expect(posted.status, posted.text.slice(0, 300)).toBe(303);
  return { id, page, path: `${url.pathname}${url.search}&lang=en`, status: await finalStatus(id, token) };
}

describe('a test-mode (forTest) process token', () => {
  it.each([
    ['PASS', 'COMPLETED_ENDED_SUCCESS'],
    ['REVIEW', 'REVIEW'],
    ['FAIL', 'COMPLETED_ENDED_ERROR'],
  ])('ends a journey forced to %s in %s, whatever its checks found', async (decision, status) => {
    const j = await sandboxJourney({ checks: { face: 'PASS', faceMatch: 'PASS' }, decision });
    expect(j.status).toBe(status);
  });

  it.each([
    [{ face: 'PASS', faceMatch: 'PASS' }, 'COMPLETED_ENDED_SUCCESS'],
    [{ face: 'REVIEW', faceMatch: 'PASS' }, 'REVIEW'],
    [{ face: 'PASS', faceMatch: 'FAIL' }, 'COMPLETED_ENDED_ERROR'],
  ])('lets the decider decide from forced checks %j: %s', async (checks, status) => {
    expect((await sandboxJourney({ checks })).status).toBe(status);
  });

  it('records each forced check as forced, with what it found, and marks every read and page', async () => {
    const j = await sandboxJourney({ checks: { face: 'PASS', faceMatch: 'PASS' } });
    expect(j.page).toContain('data-test-mode="true"');
    expect(j.page).toContain('Test mode:');
    const read = await call('GET', `/api/process-manager/processInstances/${j.id}`, { token });
    expect(read.json.forTest).toBe(true);
    const rows = await until('the search row', async () => {
      const res = await call('GET', `/api/process-manager/processInstances/search?searchString=${j.id}`, { token });
      return res.json.content?.find((r: { id: string }) => r.id === j.id);
    });
    expect(rows.forTest).toBe(true);
    const data = await call('GET', `/api/userdata-server/processDefinitions/${read.json.processDefnId}/processInstances/${j.id}/userdata`, { token });
    expect(data.status).toBe(200);
    expect(data.json.forTest).toBe(true);
    const face = data.json.checks.find((ch: { checkId: string }) => ch.checkId === 'face');
    expect(face.result).toBe('PASS');
    expect(JSON.parse(face.moreinfo)).toMatchObject({ forced: true, actualResult: 'FAIL' });
    const match = data.json.checks.find((ch: { checkId: string }) => ch.checkId === 'faceMatch');
    expect(match.result).toBe('PASS');
    expect(JSON.parse(match.moreinfo)).toMatchObject({ forced: true, actualResult: 'FAIL', reason: 'noUploadRequested' });
    // The journey page after its end still says so (the done page).
    expect((await call('GET', j.path)).text).toContain('data-test-mode="true"');
  });

  it('is read by no other tenant', async () => {
    const j = await sandboxJourney({ checks: { face: 'PASS', faceMatch: 'PASS' }, decision: 'PASS' });
    const other = await issueToken(inject('otherKey'), 'other');
    const res = await call('GET', `/api/process-manager/processInstances/${j.id}`, { token: other, tenant: 'other' });
    expect(res.status).toBe(404);
  });

  it('keeps its instances out of the metrics, which count a live instance', async () => {
    const j = await sandboxJourney({ checks: { face: 'PASS', faceMatch: 'PASS' }, decision: 'PASS' });
    const live = await processToken({});
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${live.json.id}`, { token });
    const liveId = created.json.processInstanceId as string;
    const emf = () =>
      readFileSync(inject('logFile'), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{') && l.includes('"_aws"'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    await until('the live instance counted', () => (emf().some((m) => m.processInstanceId === liveId && m.InstancesCreated === 1) ? true : undefined));
    expect(emf().filter((m) => m.processInstanceId === j.id)).toEqual([]);
  });
});

describe('a live process token', () => {
  it('refuses forced outcomes with SANDBOX_NOT_FOR_TEST', async () => {
    for (const forTest of [undefined, false, 'false']) {
      const res = await processToken({ ...(forTest === undefined ? {} : { forTest }), sandbox: { decision: 'PASS' } });
      expect(res.status).toBe(400);
      expect(res.json.code).toBe('SANDBOX_NOT_FOR_TEST');
    }
  });

  it('refuses a malformed sandbox on a test token', async () => {
    const res = await processToken({ forTest: true, sandbox: { decision: 'pass', extra: 1 } });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('VALIDATION_FAILED');
  });

  it('has no forTest on its instance read (strict clients map it)', async () => {
    const pt = await processToken({});
    expect('forTest' in pt.json).toBe(false);
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    const read = await call('GET', `/api/process-manager/processInstances/${created.json.processInstanceId}`, { token });
    expect('forTest' in read.json).toBe(false);
  });
});
