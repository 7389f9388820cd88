/**
 * Face Quality Assessment (the family's checkFaceQualityV1) in a journey over HTTP: a selfie
 * taken, judged by the face engine's figures, the check read back by the relying party; a
 * definition that judges a Face Key with no capture takes its Failed Face Quality route.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, finalStatus, multipart, pageUntil } from './client.js';
import { face } from '../support/face-images.js';

let token: string;
const fresh = () => Math.random().toString(36).slice(2, 10);

/** `judged`: the Face Key the quality step judges (`face1` is the one captured). */
async function journey(judged: string) {
  const name = `face-quality-${fresh()}`;
  const made = await call('POST', '/api/process-manager/processDefinitions', {
    token,
    body: {
      name,
      version: 1,
      status: 'DEPLOYED_ACTIVE',
      startActivityId: 'captureFace',
      activities: {
        captureFace: { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': 'face1' }, next: 'quality' },
        quality: { type: 'CHECK_FACE_QUALITY', inputs: { 'Face Key': judged }, errorEvents: { 'Failed Face Quality': 'qualityFailed' }, next: 'done' },
        done: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
        qualityFailed: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'FAIL' } },
      },
    },
  });
  expect(made.status, made.text).toBe(201);
  const pt = await call('POST', '/api/process-manager/processTokens', { token, body: { name: `${name}-pt`, processDefnName: name, processDefnVersion: '1', parameters: {} } });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
  expect(created.status, created.text).toBe(201);
  const url = new URL(created.json.redirectUrl);
  const id = created.json.processInstanceId as string;
  await pageUntil(`${url.pathname}${url.search}&lang=en`, 'id="face-form"');
  expect((await call('POST', `/journey/${id}/steps/captureFace/face?c=${url.searchParams.get('c')}&lang=en`, multipart(face('person-a-2.jpg')))).status).toBe(303);
  const defnId = (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.processDefnId as string;
  return { id, defnId };
}

async function qualityCheck(j: { id: string; defnId: string }, faceKey: string) {
  const res = await call('GET', `/api/userdata-server/processDefinitions/${j.defnId}/processInstances/${j.id}/userdata/checks`, { token });
  expect(res.status, res.text).toBe(200);
  const c = (res.json as { checkId: string; result: string; checkType: string; moreinfo?: string }[]).find((x) => x.checkId === `${faceKey}.quality`);
  return c && { result: c.result, checkType: c.checkType, more: JSON.parse(c.moreinfo ?? '{}') as Record<string, unknown> };
}

beforeAll(async () => {
  token = await adminToken();
});

describe('Face Quality Assessment in a journey', () => {
  it('judges the selfie by its figures and goes on: the relying party reads each figure beside its threshold', async () => {
    const j = await journey('face1');
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const check = await qualityCheck(j, 'face1');
    expect(check).toMatchObject({ result: 'PASS', checkType: 'FACE_QUALITY', more: { engine: expect.any(String), faceKey: 'face1', problems: [] } });
    const { figures, thresholds } = check!.more as { figures: Record<string, number>; thresholds: Record<string, number> };
    expect(figures.faceCount).toBe(1);
    expect(figures.facePixels).toBeGreaterThanOrEqual(thresholds.minFacePixels!);
    expect(Math.abs(figures.yaw!)).toBeLessThanOrEqual(thresholds.maxYaw!);
    expect(figures.sharpness).toBeGreaterThanOrEqual(thresholds.minSharpness!);
  });

  it('takes the Failed Face Quality route when the Face Key has no capture', async () => {
    const j = await journey('face2');
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_ERROR');
    expect(await qualityCheck(j, 'face2')).toMatchObject({ result: 'FAIL', more: { problems: ['noLiveCapture'] } });
  });
});
