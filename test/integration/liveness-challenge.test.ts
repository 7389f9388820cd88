/**
 * The active liveness challenge over HTTP: a Capture Face Image step with Liveness Check ACTIVE
 * draws a challenge when the page asks, takes the photo and the frames that answer it once, and
 * records every measurement in the check the relying party reads. Frames are the synthetic
 * sequences of test/support/liveness-frames.ts, made for the challenge the server drew.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { adminToken, call, finalStatus, openNewJourney, pageUntil } from './client.js';
import { attacks, genuine, loadFace, type Face, type Sequence } from '../support/liveness-frames.js';

// Each attack's refusal by the real model is in test/unit/faces/liveness-sequences.test.ts, a still face's in
// Chromium in test/e2e/liveness-challenge.test.ts: here, what HTTP adds (binding, single use, replayed bytes, timing, routing).
import type { ChallengePlan } from '../../functions/faces/challenge.js';

let token: string;
let person: Face;
let other: Face;
const fresh = () => Math.random().toString(36).slice(2, 10);

/** A multipart body of text fields and files, in order. */
function form(parts: ({ name: string; value: string } | { name: string; file: Uint8Array })[]) {
  const boundary = `----arthr${fresh()}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    if ('value' in p) chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`));
    else chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.name}.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`), Buffer.from(p.file), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { rawBody: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const answer = (nonce: string, sequence: Sequence, times = sequence.frames.map((f) => f.at)) =>
  form([
    { name: 'image', file: sequence.still },
    { name: 'source', value: 'camera' },
    { name: 'challenge', value: nonce },
    ...sequence.frames.map((f) => ({ name: 'frame', file: f.bytes })),
    { name: 'frameTimes', value: times.join(',') },
  ]);

/** `liveness`: a Face Liveness step after the capture, its failure leading back to the capture. */
async function journey(inputs: Record<string, unknown> = {}, liveness?: Record<string, unknown>) {
  const { id, path, c } = await openNewJourney(
    token,
    'liveness',
    'captureFace',
    {
      captureFace: {
        type: 'CAPTURE_FACE_IMAGE',
        inputs: { 'Face Key': 'face1', 'Liveness Check': 'ACTIVE', 'Offer Another Way': true, ...inputs },
        errorEvents: { 'Liveness Challenge Declined': 'declined' },
        next: liveness ? 'liveness' : 'done',
      },
      ...(liveness
        ? {
            liveness: {
              type: 'CHECK_FACE_LIVENESS',
              inputs: { 'Face Key': 'face1', ...liveness },
              errorEvents: { 'Failed Face Liveness': 'captureFace', 'Exceed Failed Liveness Count': 'declined' },
              next: 'done',
            },
          }
        : {}),
      done: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
      declined: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'FAIL' } },
    },
    'id="face-form"',
  );
  const step = `/journey/${id}/steps/captureFace`;
  return {
    id,
    capability: c,
    page: () => call('GET', path),
    challengeCall: () => call('POST', `${step}/face/challenge?c=${c}&lang=en`),
    challenge: async () => {
      const res = await call('POST', `${step}/face/challenge?c=${c}&lang=en`);
      expect(res.status, res.text).toBe(200);
      return res.json as ChallengePlan;
    },
    send: (body: ReturnType<typeof form>) => call('POST', `${step}/face?c=${c}&lang=en`, body),
    /** Waits as long as the challenge takes to do (an answer sooner fails its timing). */
    done: async (plan: ChallengePlan) => {
      const wait = Date.parse(plan.issuedAt) + plan.durationMs - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    },
  };
}

async function captureCheck(id: string) {
  const defnId = (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.processDefnId as string;
  const res = await call('GET', `/api/userdata-server/processDefinitions/${defnId}/processInstances/${id}/userdata/checks`, { token });
  expect(res.status, res.text).toBe(200);
  const c = (res.json as { checkId: string; result: string; moreinfo?: string; reports: { name: string; result: string }[] }[]).find((x) => x.checkId === 'face1')!;
  return { result: c.result, more: JSON.parse(c.moreinfo ?? '{}') as { method: string; reason: string | null; measurements: { name: string; result: string; value: number; threshold: number }[] }, reports: c.reports };
}

beforeAll(async () => {
  token = await adminToken();
  person = await loadFace('person-a-1.jpg');
  other = await loadFace('eileen-collins.jpg');
}, 60_000);

describe('the active liveness challenge over HTTP', () => {
  it('passes a genuine answer, records each measurement with its threshold, and refuses the same frames for another challenge', async () => {
    const j = await journey();
    const plan = await j.challenge();
    expect(plan.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const sequence = genuine(person, plan);
    await j.done(plan);
    const sent = await j.send(answer(plan.nonce, sequence));
    expect(sent.status, sent.text).toBe(303);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const check = await captureCheck(j.id);
    expect(check.more.measurements.filter((m) => m.result !== 'PASS')).toEqual([]);
    expect(check).toMatchObject({ result: 'PASS', more: { method: 'ACTIVE', reason: null } });
    for (const m of check.more.measurements) expect(typeof m.threshold, m.name).toBe('number');
    expect(check.reports.map((r) => r.name)).toEqual(expect.arrayContaining(['freshFrames', 'samePerson', 'continuity', 'colours', 'coloursOnFace']));

    // The same frames, byte for byte, for another journey's challenge: refused as sent before.
    const again = await journey();
    const second = await again.challenge();
    const replay: Sequence = { still: sequence.still, frames: second.frames.map((at, i) => ({ at, bytes: sequence.frames[Math.min(i, sequence.frames.length - 1)]!.bytes })) };
    await again.done(second);
    expect((await again.send(answer(second.nonce, replay))).status).toBe(303);
    expect(await finalStatus(again.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const replayed = await captureCheck(again.id);
    expect(replayed.result).toBe('FAIL');
    expect(replayed.more.measurements.find((m) => m.name === 'freshFrames')).toMatchObject({ result: 'FAIL' });
  }, 180_000);

  it('refuses, before judging, an answer with no challenge, frames off the schedule, a challenge used or early, and keeps the step waiting', async () => {
    const j = await journey();
    const plan = await j.challenge();
    const sequence = genuine(person, plan);
    const refusal = async (body: ReturnType<typeof form>) => {
      expect((await j.send(body)).status).toBe(303);
      return /data-refusal="([A-Z_]+)"/.exec((await j.page()).text)?.[1];
    };
    expect(await refusal(form([{ name: 'image', file: sequence.still }]))).toBe('LIVENESS_CHALLENGE_REQUIRED');
    expect(await refusal(answer('A'.repeat(43), sequence))).toBe('LIVENESS_CHALLENGE_EXPIRED');
    expect(await refusal(answer(plan.nonce, { ...sequence, frames: sequence.frames.slice(1) }))).toBe('LIVENESS_FRAMES_INVALID');
    expect(await refusal(answer(plan.nonce, sequence, sequence.frames.map((f, i) => (i === 4 ? f.at + 300 : f.at))))).toBe('LIVENESS_FRAMES_INVALID');
    // Sent at once (sooner than the challenge takes): judged, and failed on its timing. A fresh
    // challenge: the refusals above may have taken longer than the first one lasts on a busy machine.
    const fresh = await j.challenge();
    // Its own noise (seed 3): frames of another test's answer would be refused as seen before.
    const early = genuine(person, fresh, 3);
    expect((await j.send(answer(fresh.nonce, early))).status).toBe(303);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const check = await captureCheck(j.id);
    expect(check).toMatchObject({ result: 'FAIL', more: { reason: 'timing' } });

    // A used challenge is refused on the next journey that names it (and a challenge is its own journey's).
    const k = await journey();
    expect((await k.send(answer(fresh.nonce, early))).status).toBe(303);
    expect(/data-refusal="([A-Z_]+)"/.exec((await k.page()).text)?.[1]).toBe('LIVENESS_CHALLENGE_EXPIRED');
  }, 180_000);

  it('routes Face Liveness on its errors: a still photo fails back to the capture, which names the attempts left; a genuine answer then passes', async () => {
    const j = await journey({}, { Threshold: 0.5, 'Max Attempts': 2 });
    const first = await j.challenge();
    const still = attacks({ person, other }, first).stillPhoto!;
    await j.done(first);
    expect((await j.send(answer(first.nonce, still))).status).toBe(303);
    // Back at the capture, by Failed Face Liveness: the page says how many attempts are left.
    const page = await pageUntil(`/journey/${j.id}?c=${j.capability}&lang=en`, 'attempts left: 2', {}, 45_000);
    expect(page).toContain('id="face-challenge-start"');
    const second = await j.challenge();
    const sequence = genuine(person, second, 2);
    await j.done(second);
    expect((await j.send(answer(second.nonce, sequence))).status).toBe(303);
    expect(await finalStatus(j.id, token)).toBe('COMPLETED_ENDED_SUCCESS');
    const defnId = (await call('GET', `/api/process-manager/processInstances/${j.id}`, { token })).json.processDefnId as string;
    const checks = (await call('GET', `/api/userdata-server/processDefinitions/${defnId}/processInstances/${j.id}/userdata/checks`, { token })).json as { checkId: string; result: string; moreinfo: string }[];
    expect(checks.find((c) => c.checkId === 'face1.liveness')).toMatchObject({ result: 'PASS' });
    expect(JSON.parse(checks.find((c) => c.checkId === 'face1.liveness')!.moreinfo)).toMatchObject({ method: 'ACTIVE', score: 1, threshold: 0.5 });
  }, 240_000);

  it('answers 409 for a capture without the challenge, and takes the way out the step offers', async () => {
    const passive = await journey({ 'Liveness Check': 'PASSIVE' });
    const res = await passive.challengeCall();
    expect(res.status, res.text).toBe(409);
    // A wrong capability: the journey is not found.
    expect((await call('POST', `/journey/${passive.id}/steps/captureFace/face/challenge?c=${'x'.repeat(20)}`)).status).toBe(404);

    const declining = await journey();
    expect((await declining.send(form([{ name: 'action', value: 'decline' }]))).status).toBe(303);
    expect(await finalStatus(declining.id, token)).toBe('COMPLETED_ENDED_ERROR');
  }, 120_000);

  it('has no Rekognition Face Liveness locally: the option is refused at publish, its session route and script are not there', async () => {
    const definition = {
      name: `rekognition-${Math.random().toString(36).slice(2, 8)}`,
      version: 1,
      retentionDays: 1,
      startActivityId: 'captureFace',
      activities: {
        captureFace: { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': 'face1', 'Liveness Check': 'REKOGNITION' }, next: 'done' },
        done: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'PASS' } },
      },
    };
    const refused = await call('POST', '/api/process-manager/processDefinitions', { token, body: definition });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.details).toEqual([
      { location: 'body.activities.captureFace.inputs.Liveness Check', message: expect.stringMatching(/needs Amazon Rekognition Face Liveness, which this deployment does not have: it runs only on AWS, in us-east-1, .*\(the local runtime has no such service\)\. Choose ACTIVE/) },
    ]);
    expect((await call('GET', `/api/process-manager/processDefinitions?name=${definition.name}`, { token })).json.content ?? []).toEqual([]);
    // A capture of another kind takes no session (409), and the component's script is no asset here (404).
    const active = await journey();
    const session = await call('POST', `/journey/${active.id}/steps/captureFace/face/liveness-session?c=${active.capability}&lang=en`);
    expect(session.status, session.text).toBe(409);
    expect(session.json.code).toBe('STEP_NOT_WAITING');
    const script = await call('GET', '/journey/liveness/face-liveness.js');
    expect(script.status).toBe(404);
    expect(script.json.code).toBe('FACE_LIVENESS_NOT_AVAILABLE');
  }, 120_000);
});
