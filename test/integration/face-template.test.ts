/**
 * Face Template Generation over HTTP, through the local runtime: a capture, then the template
 * made of it and kept beside the image; the state and user data name it, never hold it; a Face
 * Key with no capture takes the step's error route.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, finalStatus, multipart, openNewJourney } from './client.js';

const FACE = readFileSync(join(resolve(import.meta.dirname, '../..'), 'test/fixtures/face-640x480.jpg'));
let token: string;
beforeAll(async () => {
  token = await adminToken();
});

async function journey(templateKey: string) {
  const j = await openNewJourney(
    token,
    'template',
    'captureFace',
    {
      captureFace: { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': 'face1' }, next: 'template' },
      template: { type: 'FACE_TEMPLATE_GENERATION', inputs: { 'Face Key': templateKey }, errorEvents: { 'Failed Template Generation': 'failed' }, next: 'done' },
      done: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
      failed: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'FAIL' } },
    },
    'id="face-form"',
  );
  const sent = await call('POST', `/journey/${j.id}/steps/captureFace/face?c=${j.c}&lang=en`, multipart(FACE));
  expect(sent.status, sent.text).toBe(303);
  const status = await finalStatus(j.id, token);
  const defnId = (await call('GET', `/api/process-manager/processInstances/${j.id}`, { token })).json.processDefnId;
  const checks = (await call('GET', `/api/userdata-server/processDefinitions/${defnId}/processInstances/${j.id}/userdata/checks`, { token })).json as { checkId: string; result: string; moreinfo: string }[];
  return { status, checks };
}

describe('Face Template Generation', () => {
  it('makes the template of the capture, its check naming the model, size and hash and never the values', async () => {
    const { status, checks } = await journey('face1');
    expect(status).toBe('COMPLETED_ENDED_SUCCESS');
    const check = checks.find((c) => c.checkId === 'face1.template')!;
    expect(check).toMatchObject({ result: 'PASS' });
    const more = JSON.parse(check.moreinfo);
    expect(more).toMatchObject({ model: 'human-faceres', dimensions: 1024, faceCount: 1 });
    expect(more.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(check.moreinfo.length).toBeLessThan(600);
  }, 120_000);

  it('takes Failed Template Generation for a Face Key with no capture', async () => {
    const { status, checks } = await journey('face2');
    expect(status).toBe('COMPLETED_ENDED_ERROR');
    expect(JSON.parse(checks.find((c) => c.checkId === 'face2.template')!.moreinfo)).toMatchObject({ problem: 'noLiveCapture' });
  }, 120_000);
});
