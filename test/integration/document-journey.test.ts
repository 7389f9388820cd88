/**
 * A document journey over HTTP, as a relying party and its end user meet it: a passport chosen
 * and photographed (a specimen rendered here, test/support/specimens.ts), its quality judged,
 * its MRZ read into a confirmation form, judged for a black-and-white copy and a screen replay,
 * its portrait matched with a selfie, and every check read back in `userdata/checks`. Each
 * failure takes its own error route and the journey ends there: a broken check digit, a blurred
 * photo, a black-and-white copy, a photo of a screen and another person's selfie.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, finalStatus, multipart, pageUntil } from './client.js';
import { renderSpecimens, type SpecimenOptions } from '../support/specimens.js';
import { face } from '../support/face-images.js';
import { CONFIRMED, NOT_ASSESSED_STEPS, documentJourney } from '../support/document-journey.js';

let token: string;
let name: string;
const fresh = () => Math.random().toString(36).slice(2, 10);

const SPECIMENS = {
  good: { person: 'a' },
  brokenDigit: { person: 'a', broken: 'birthDate' },
  blurred: { person: 'a', variant: 'blur' },
  blackAndWhite: { person: 'a', variant: 'blackAndWhite' },
  screen: { person: 'a', variant: 'screen' },
} as const satisfies Record<string, SpecimenOptions>;
let images: Record<keyof typeof SPECIMENS, Buffer>;

beforeAll(async () => {
  token = await adminToken();
  const rendered = await renderSpecimens(Object.values(SPECIMENS));
  images = Object.fromEntries(Object.keys(SPECIMENS).map((k, i) => [k, rendered[i]!])) as typeof images;
  name = `document-journey-${fresh()}`;
  const made = await call('POST', '/api/process-manager/processDefinitions', { token, body: { ...documentJourney(name, { notAssessed: true }), status: 'DEPLOYED_ACTIVE' } });
  expect(made.status, made.text).toBe(201);
}, 60_000);

const form = (fields: Record<string, string>) => ({ rawBody: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

async function start() {
  const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `${name}-${fresh()}`, processDefnName: name, processDefnVersion: '1', parameters: {} } });
  expect(pt.status, pt.text).toBe(201);
  const made = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(made.status, made.text).toBe(201);
  const url = new URL(made.json.redirectUrl);
  const c = url.searchParams.get('c')!;
  const id = made.json.processInstanceId as string;
  const defnId = (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.processDefnId as string;
  const step = (activityId: string, part = '') => `/journey/${id}/steps/${activityId}${part}?c=${c}&lang=en`;
  return { id, defnId, path: `${url.pathname}${url.search}&lang=en`, step };
}

type Journey = Awaited<ReturnType<typeof start>>;

/** Chooses a UK passport and sends the front. */
async function documentSent(j: Journey, image: Buffer) {
  await pageUntil(j.path, 'id="doc-type-form"');
  expect((await call('POST', j.step('selectDocument'), form({ documentType: 'PASSPORT', country: 'GB' }))).status).toBe(303);
  await pageUntil(j.path, 'id="doc-form"');
  expect((await call('POST', j.step('captureFront', '/face'), multipart(image, { field: 'image', name: 'passport.jpg' }))).status).toBe(303);
}

const checksOf = async (j: Journey) => {
  const res = await call('GET', `/api/userdata-server/processDefinitions/${j.defnId}/processInstances/${j.id}/userdata/checks`, { token });
  expect(res.status, res.text).toBe(200);
  return Object.fromEntries((res.json as { checkId: string; result: string; moreinfo?: string }[]).map((c) => [c.checkId, { result: c.result, more: JSON.parse(c.moreinfo ?? '{}') }]));
};

describe('a document journey, over HTTP', () => {
  it('reads the passport, shows its fields to confirm, judges it genuine, matches the selfie and ends with every check', async () => {
    const j = await start();
    await documentSent(j, images.good);
    const confirm = await pageUntil(j.path, 'Check your details', {}, 60_000);
    for (const value of ['PEDERSEN', 'JESPER', 'L898902C3', '1974-08-12']) expect(confirm).toContain(`value="${value}"`);
    expect((await call('POST', j.step('confirm'), form(CONFIRMED))).status).toBe(303);
    await pageUntil(j.path, 'id="face-form"', {}, 60_000);
    expect((await call('POST', j.step('captureFace', '/face'), multipart(face('person-a-2.jpg')))).status).toBe(303);
    // Four detections no engine here judges: accepted as NOT_ASSESSED, which the decider counts.
    expect(await finalStatus(j.id, token)).toBe('REVIEW');
    const checks = await checksOf(j);
    expect(checks['doc1.quality']?.result).toBe('PASS');
    expect(checks['doc1.reading']).toMatchObject({ result: 'PASS', more: { mrz: { format: 'TD3', valid: true } } });
    expect(checks['doc1.blackAndWhiteCopy']).toMatchObject({ result: 'PASS', more: { engine: expect.any(String), threshold: 0.5 } });
    expect(checks['doc1.screenReplay']?.result).toBe('PASS');
    for (const [check] of NOT_ASSESSED_STEPS) expect(checks[`doc1.${check}`]).toMatchObject({ result: 'NOT_ASSESSED', more: { engine: null } });
    expect(checks['doc1.faceMatch']).toMatchObject({ result: 'PASS', more: { similarity: expect.any(Number), threshold: expect.any(Number) } });
  });

  it.each([
    ['a broken check digit', 'brokenDigit', 'doc1.reading', 'doc1.blackAndWhiteCopy'],
    ['a blurred photo', 'blurred', 'doc1.quality', 'doc1.reading'],
    ['a black-and-white copy', 'blackAndWhite', 'doc1.blackAndWhiteCopy', 'doc1.screenReplay'],
    ['a photo of a screen', 'screen', 'doc1.screenReplay', 'doc1.faceMatch'],
  ] as const)('takes its error route for %s', async (_what, specimen, failed, never) => {
    const j = await start();
    await documentSent(j, images[specimen]);
    if (specimen !== 'brokenDigit' && specimen !== 'blurred') {
      await pageUntil(j.path, 'Check your details', {}, 60_000);
      expect((await call('POST', j.step('confirm'), form(CONFIRMED))).status).toBe(303);
    }
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_ERROR');
    const checks = await checksOf(j);
    expect(checks[failed]?.result).toBe('FAIL');
    expect(checks[never]).toBeUndefined();
  });

  it("takes its error route for another person's selfie", async () => {
    const j = await start();
    await documentSent(j, images.good);
    await pageUntil(j.path, 'Check your details', {}, 60_000);
    expect((await call('POST', j.step('confirm'), form(CONFIRMED))).status).toBe(303);
    await pageUntil(j.path, 'id="face-form"', {}, 60_000);
    expect((await call('POST', j.step('captureFace', '/face'), multipart(face('eileen-collins.jpg')))).status).toBe(303);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_ERROR');
    expect((await checksOf(j))['doc1.faceMatch']).toMatchObject({ result: 'FAIL', more: { reason: 'noMatch' } });
  });
});
