/**
 * A Capture Face Image step under Liveness Check REKOGNITION (functions/activities/capture-face-image.ts
 * with face-liveness-session-step.ts): the session the page names, its result read from
 * Rekognition the way AWS answers it (aws-sdk-client-mock): scored, not finished, failed, expired,
 * gone, half an answer, a throttle; the reference image kept as the capture and the audit images
 * beside it, and the check made of the confidence against Rekognition Threshold.
 */
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { GetFaceLivenessSessionResultsCommand, RekognitionClient } from '@aws-sdk/client-rekognition';
import { screens, submission } from '../../../functions/activities/capture-face-image.js';
import type { spec } from '../../../functions/activities/specs/capture-face-image.js';
import type { StepView } from '../../../functions/activities/contract.js';
import { NEAR_MISS_BAND, sessionResult } from '../../../functions/activities/face-liveness-session-step.js';
import { RekognitionFaceLiveness } from '../../../functions/adapters/face-liveness.js';
import type { FaceLivenessSessionRecord, FaceLivenessSessionStore } from '../../../functions/faces/model.js';
import { screenOf } from '../../../functions/journey/screen-context.js';
import type { CheckRecord, ImageRecord, ProcessInstanceRecord } from '../../../functions/process-manager/model.js';
import { objectKeys } from '../../../functions/store/keys.js';
import { isTransientError } from '../../../functions/shared/aws-errors.js';

const rekognition = mockClient(RekognitionClient);
const SESSION = '0f3c3b2e-6a61-4d5e-9b1a-2c7d9e8f1a2b';
const OTHER = '7d0c1d5e-2b3a-4c4d-8e9f-0a1b2c3d4e5f';
const NOW = new Date('2030-01-01T00:00:00Z');
const reference = readFileSync(new URL('../../fixtures/face-640x480.jpg', import.meta.url));
const audit = readFileSync(new URL('../../fixtures/faces/person-a-1.jpg', import.meta.url));
const named = (name: string, extra: object = {}) => Object.assign(new Error(name), { name, ...extra });

/** The sessions in memory, as functions/store/face-liveness-sessions.ts keeps them. */
function memorySessions(): FaceLivenessSessionStore & { records: Map<string, FaceLivenessSessionRecord> } {
  const records = new Map<string, FaceLivenessSessionRecord>();
  const k = (t: string, i: string, s: string) => `${t}/${i}/${s}`;
  return {
    records,
    async reserve() {
      return true;
    },
    async put(r) {
      records.set(k(r.tenantId, r.instanceId, r.sessionId), { ...r });
    },
    async get(t, i, s, now) {
      const r = records.get(k(t, i, s));
      return r && r.expiresAt * 1000 > now.getTime() ? { ...r } : undefined;
    },
    async use(r, at) {
      const kept = records.get(k(r.tenantId, r.instanceId, r.sessionId));
      if (!kept || kept.usedAt) return false;
      kept.usedAt = at;
      return true;
    },
  };
}

const record = { id: 'p1', tenantId: 'demo', retentionDays: 30 } as ProcessInstanceRecord;
const stepOf = (inputs: Record<string, unknown>, state: Record<string, unknown> = {}) =>
  ({ activityId: 'selfie', activityType: 'CAPTURE_FACE_IMAGE', inputs, state, taskToken: 't', since: '' }) as unknown as NonNullable<ProcessInstanceRecord['currentStep']>;

type Deps = 'faces' | 'images' | 'faceCaptureKey' | 'livenessChallenges' | 'faceLiveness' | 'faceLivenessSessions';

function setup(opts: { service?: boolean } = {}) {
  const put = vi.fn(async (..._args: unknown[]) => undefined);
  const sessions = memorySessions();
  const service = new RekognitionFaceLiveness('arn:aws:iam::111122223333:role/x');
  const faces = { name: 'rekognition', detect: vi.fn(), liveness: vi.fn(), measureChallenge: vi.fn() };
  const deps = { images: { put }, faceCaptureKey: objectKeys.faceCapture, faces, livenessChallenges: {}, faceLiveness: () => (opts.service === false ? undefined : service), faceLivenessSessions: sessions };
  const view = (inputs: Record<string, unknown> = {}) => {
    const all = {
      'Face Key': 'face1', 'Image Format': 'JPEG', 'Camera Width': 1280, 'Camera Height': 720, 'Timeout (in seconds)': 60,
      'Require Consent': false, 'Require Live Camera': false, 'Liveness Check': 'REKOGNITION', 'Liveness Near Miss': 'FAIL',
      'Offer Another Way': false, 'Rekognition Challenge': 'FaceMovementAndLightChallenge', 'Rekognition Threshold': 0.6, 'Rekognition Audit Images': 2,
      ...inputs,
    };
    return { ...screenOf(record, stepOf(all), 'cap', 'en', 'face-capture'), inputs: all, deps } as unknown as StepView<typeof spec, Deps>;
  };
  const started = (sessionId = SESSION, activityId = 'selfie') =>
    sessions.put({ tenantId: 'demo', instanceId: 'p1', activityId, sessionId, challenge: 'FaceMovementAndLightChallenge', createdAt: NOW.toISOString(), expiresAt: NOW.getTime() / 1000 + 900 });
  return { put, sessions, view, started, faces };
}

async function post(fields: Record<string, string>) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const response = new Response(form);
  return { upload: { contentType: response.headers.get('content-type')!, bytes: Buffer.from(await response.arrayBuffer()) } };
}

const succeeded = (confidence: number, audits = 2) => ({
  SessionId: SESSION,
  Status: 'SUCCEEDED' as const,
  Confidence: confidence,
  ReferenceImage: { Bytes: new Uint8Array(reference) },
  AuditImages: Array.from({ length: audits }, () => ({ Bytes: new Uint8Array(audit) })),
  Challenge: { Type: 'FaceMovementAndLightChallenge' as const, Version: '2.0.0' },
});

type Complete = { complete: { result: { _checks: Record<string, Record<string, unknown>>; _faces: Record<string, { captures: { captureId: string }[] }> }; values: Record<string, unknown>; check: CheckRecord; images: ImageRecord[] } };
const refusal = (outcome: unknown) => (outcome as { refused?: { code: string; errors: { image: string } } }).refused;

beforeEach(() => rekognition.reset());

describe('Capture Face Image, Liveness Check REKOGNITION', () => {
  it('keeps the reference image as the capture and the audit images beside it, and passes at or above the threshold', async () => {
    const { put, view, started, sessions, faces } = setup();
    await started();
    rekognition.on(GetFaceLivenessSessionResultsCommand).resolves(succeeded(93.1));
    const outcome = (await submission.submit(view(), await post({ livenessSession: SESSION }), NOW)) as unknown as Complete;
    const { complete } = outcome;
    expect(complete.check).toMatchObject({ checkId: 'face1', checkType: 'FACE_CAPTURE', result: 'PASS' });
    expect(complete.check.reports).toEqual([{ name: 'liveness', result: 'PASS', description: expect.stringContaining('Value 0.931, threshold 0.6.') }]);
    expect(JSON.parse(complete.check.moreinfo!)).toMatchObject({ method: 'REKOGNITION', score: 0.931, threshold: 0.6, sessionId: SESSION, challenge: 'FaceMovementAndLightChallenge' });
    expect(complete.result._checks.face1).toEqual({ result: 'PASS', checkType: 'FACE_CAPTURE', displayName: 'Face image capture with Rekognition Face Liveness', liveness: 0.931, method: 'REKOGNITION' });
    const [capture, ...audits] = complete.images;
    expect(capture).toMatchObject({ imageKey: 'face1', kind: 'FACE', format: 'JPEG', width: 640, height: 480, bytes: reference.length });
    expect(audits).toHaveLength(2);
    expect(audits.map((a) => a.auditOf)).toEqual([capture!.captureId, capture!.captureId]);
    expect(audits.map((a) => a.captureId)).toEqual([`${capture!.captureId}-audit-1`, `${capture!.captureId}-audit-2`]);
    // Every image under the tenant and instance, the bytes as Rekognition sent them.
    expect(put.mock.calls.map((c) => c[0])).toEqual(complete.images.map((i) => i.objectKey));
    for (const i of complete.images) expect(i.objectKey).toMatch(/^tenants\/demo\/instances\/p1\/faces\//);
    expect(Buffer.from(put.mock.calls[0]![1] as Uint8Array)).toEqual(reference);
    expect(complete.result._faces.face1!.captures.map((c) => c.captureId)).toEqual([capture!.captureId]);
    expect(complete.values).toMatchObject({ faceKey: 'face1', source: 'rekognition', auditImages: 2 });
    // The engine's own checks are not asked: Rekognition judged the video.
    expect(faces.detect).not.toHaveBeenCalled();
    expect(rekognition.commandCalls(GetFaceLivenessSessionResultsCommand)[0]!.args[0].input).toEqual({ SessionId: SESSION });
    // The session is taken: sent again, it is refused without asking Rekognition.
    expect([...sessions.records.values()][0]!.usedAt).toBe(NOW.toISOString());
    expect(refusal(await submission.submit(view(), await post({ livenessSession: SESSION }), NOW))).toEqual({ code: 'LIVENESS_CHALLENGE_USED', errors: { image: 'challengeUsed' } });
    expect(rekognition.commandCalls(GetFaceLivenessSessionResultsCommand)).toHaveLength(1);
  });

  it('fails under the threshold, and sends a near miss to review where the step says so', async () => {
    expect(sessionResult(0.6, 0.6, 'FAIL')).toBe('PASS');
    expect(sessionResult(0.599, 0.6, 'FAIL')).toBe('FAIL');
    expect(sessionResult(0.6 - NEAR_MISS_BAND, 0.6, 'REVIEW')).toBe('REVIEW');
    expect(sessionResult(0.49, 0.6, 'REVIEW')).toBe('FAIL');
    for (const [confidence, nearMiss, result] of [[55, 'FAIL', 'FAIL'], [55, 'REVIEW', 'REVIEW'], [12.5, 'REVIEW', 'FAIL']] as const) {
      const { view, started } = setup();
      await started();
      rekognition.reset();
      rekognition.on(GetFaceLivenessSessionResultsCommand).resolves(succeeded(confidence, 0));
      const { complete } = (await submission.submit(view({ 'Liveness Near Miss': nearMiss }), await post({ livenessSession: SESSION }), NOW)) as unknown as Complete;
      expect(complete.check.result).toBe(result);
      expect(complete.result._checks.face1).toMatchObject({ result, liveness: confidence / 100 });
      expect(complete.images).toHaveLength(1);
    }
  });

  it('refuses a session Rekognition has not finished without spending it, and takes it once it has', async () => {
    const { view, started } = setup();
    await started();
    rekognition.on(GetFaceLivenessSessionResultsCommand).resolvesOnce({ SessionId: SESSION, Status: 'IN_PROGRESS' }).resolvesOnce(succeeded(88, 0));
    expect(refusal(await submission.submit(view(), await post({ livenessSession: SESSION }), NOW))).toEqual({ code: 'LIVENESS_SESSION_PENDING', errors: { image: 'sessionPending' } });
    expect(((await submission.submit(view(), await post({ livenessSession: SESSION }), NOW)) as unknown as Complete).complete.check.result).toBe('PASS');
  });

  it('passes a throttle on (the route answers 503) with the session still unspent', async () => {
    const { view, started } = setup();
    await started();
    rekognition.on(GetFaceLivenessSessionResultsCommand).rejectsOnce(named('ThrottlingException', { $retryable: { throttling: true } })).resolvesOnce(succeeded(90, 0));
    const err = await submission.submit(view(), await post({ livenessSession: SESSION }), NOW).catch((e: unknown) => e);
    expect(isTransientError(err)).toBe(true);
    expect(((await submission.submit(view(), await post({ livenessSession: SESSION }), NOW)) as unknown as Complete).complete.check.result).toBe('PASS');
  });

  it('refuses what Rekognition could not score, an expired or unknown session, and half an answer; each spent', async () => {
    const cases: [object | Error, string][] = [
      [{ SessionId: SESSION, Status: 'FAILED' }, 'LIVENESS_SESSION_FAILED'],
      [{ SessionId: SESSION, Status: 'EXPIRED' }, 'LIVENESS_CHALLENGE_EXPIRED'],
      [named('SessionNotFoundException'), 'LIVENESS_CHALLENGE_EXPIRED'],
      [{ ...succeeded(99), ReferenceImage: undefined }, 'LIVENESS_SESSION_FAILED'],
      [{ ...succeeded(99), Confidence: undefined }, 'LIVENESS_SESSION_FAILED'],
      // A reference image that is no image the capture takes.
      [{ ...succeeded(99), ReferenceImage: { Bytes: Uint8Array.from([0xff, 0xd8, 0xff, 1, 2, 3]) } }, 'LIVENESS_SESSION_FAILED'],
    ];
    for (const [answer, code] of cases) {
      const { view, started, put } = setup();
      await started();
      rekognition.reset();
      if (answer instanceof Error) rekognition.on(GetFaceLivenessSessionResultsCommand).rejects(answer);
      else rekognition.on(GetFaceLivenessSessionResultsCommand).resolves(answer);
      expect(refusal(await submission.submit(view(), await post({ livenessSession: SESSION }), NOW))?.code).toBe(code);
      expect(put).not.toHaveBeenCalled();
      expect(refusal(await submission.submit(view(), await post({ livenessSession: SESSION }), NOW))?.code).toBe('LIVENESS_CHALLENGE_USED');
    }
  });

  it("refuses a post with no session, a malformed one, another step's, an unknown one or one past its keeping, asking Rekognition nothing", async () => {
    const { view, started } = setup();
    await started(OTHER, 'another-step');
    await started(SESSION);
    const code = async (fields: Record<string, string>, at = NOW) => refusal(await submission.submit(view(), await post(fields), at))?.code;
    expect(await code({})).toBe('LIVENESS_CHALLENGE_REQUIRED');
    expect(await code({ livenessSession: 'not-a-session' })).toBe('LIVENESS_CHALLENGE_REQUIRED');
    expect(await code({ livenessSession: OTHER })).toBe('LIVENESS_CHALLENGE_EXPIRED');
    expect(await code({ livenessSession: '11111111-2222-4333-8444-555555555555' })).toBe('LIVENESS_CHALLENGE_EXPIRED');
    expect(await code({ livenessSession: SESSION }, new Date(NOW.getTime() + 901_000))).toBe('LIVENESS_CHALLENGE_EXPIRED');
    expect(rekognition.calls()).toHaveLength(0);
    // A deployment without the service (moved, or misconfigured) takes no session.
    const none = setup({ service: false });
    await none.started();
    expect(refusal(await submission.submit(none.view(), await post({ livenessSession: SESSION }), NOW))?.code).toBe('LIVENESS_CHALLENGE_EXPIRED');
  });

  it('asks for the consent before anything, and takes another way under Offer Another Way', async () => {
    const { view, started } = setup();
    await started();
    expect(refusal(await submission.submit(view({ 'Require Consent': true }), await post({ livenessSession: SESSION }), NOW))?.code).toBe('CONSENT_REQUIRED');
    expect(rekognition.calls()).toHaveLength(0);
    const declined = await submission.submit(view({ 'Offer Another Way': true }), await post({ action: 'decline' }), NOW);
    expect(declined).toEqual({ fail: { error: 'LivenessChallengeDeclined', cause: expect.stringContaining('another way at selfie') } });
    // Without Offer Another Way there is no other way: the post is a capture without a session.
    expect(refusal(await submission.submit(view(), await post({ action: 'decline' }), NOW))?.code).toBe('LIVENESS_CHALLENGE_REQUIRED');
  });

  it("renders the page that starts a session and loads Amazon's component, warning of the flashing only for the light challenge", async () => {
    const { view } = setup();
    const html = await screens.render['face-capture']!(view({ 'Offer Another Way': true }));
    expect(html).toContain('<script src="/journey/liveness/face-liveness.js" defer></script>');
    expect(html).toContain('data-session-url="/journey/p1/steps/selfie/face/liveness-session?c=cap&amp;lang=en"');
    expect(html).toContain('name="livenessSession"');
    expect(html).toContain('id="face-flash"');
    expect(html).toContain('Amazon Web Services');
    expect(html).toContain('name="action" value="decline"');
    expect(html).not.toContain('/journey/assets/face-capture.js');
    const calm = await screens.render['face-capture']!(view({ 'Rekognition Challenge': 'FaceMovementChallenge' }));
    expect(calm).not.toContain('id="face-flash"');
    expect(calm).not.toContain('value="decline"');
  });
});
