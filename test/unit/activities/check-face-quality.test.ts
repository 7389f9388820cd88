/**
 * Face Quality Assessment (the family's checkFaceQualityV1): the newest live capture judged by the
 * engine's figures, each beside its threshold, with a stand-in engine that reports what the test
 * says it sees; the check kept beside the instance and in the session; a capture that falls short
 * raises Failed Face Quality.
 */
import { describe, expect, it } from 'vitest';
import { run } from '../../../functions/activities/check-face-quality.js';
import type { ActivityDeps, Session } from '../../../functions/activities/contract.js';
import { THRESHOLDS } from '../../../functions/faces/quality.js';
import type { DetectedFace, Detection } from '../../../functions/faces/model.js';
import type { StepUserData } from '../../../functions/process-manager/model.js';

const GOOD: DetectedFace = { box: { left: 0.3, top: 0.2, width: 0.35, height: 0.5 }, confidence: 0.99, pose: { yaw: 3, pitch: -2, roll: 1 }, quality: { brightness: 50, sharpness: 60 }, eyes: { open: 0.6, visible: 0.9 } };
const session = (captures = [{ captureId: 'c1', format: 'JPEG' }]): Session =>
  ({ instance: { tenantId: 'demo', processInstanceId: 'p' }, parameters: {}, vars: {}, _faces: { face1: { captures } } }) as unknown as Session;

function harness(faces: DetectedFace[], name: 'embedded' | 'rekognition' = 'embedded') {
  const kept: StepUserData[] = [];
  const read: string[] = [];
  const detection: Detection = { width: 1280, height: 720, faces };
  const deps = {
    faces: { name, detect: async () => detection },
    images: { getAtMost: async (_t: string, _i: string, key: string) => (read.push(key), Buffer.from([0xff, 0xd8])) },
    faceCaptureKey: (t: string, i: string, k: string, c: string, e: string) => `${t}/${i}/faces/${k}/${c}.${e}`,
    instances: { putUserData: async (_t: string, _i: string, data: StepUserData) => void kept.push(data) },
  } as unknown as ActivityDeps;
  const go = (s = session()) => run({ activityId: 'quality', inputs: { 'Face Key': 'face1' }, session: s, tenantId: 'demo', actor: 'journey:p', now: new Date(), expiresAt: 2_000_000_000, deps });
  return { go, kept, read };
}

describe('Face Quality Assessment', () => {
  it('passes a usable face, every figure beside its threshold, in the session and in user data', async () => {
    const h = harness([GOOD]);
    const out = await h.go();
    expect(h.read).toEqual(['demo/p/faces/face1/c1.jpg']);
    const check = (out._checks as any).faces.face1.quality;
    expect(check).toMatchObject({
      result: 'PASS',
      engine: 'embedded',
      captureId: 'c1',
      figures: { faceCount: 1, facePixels: 360, faceShare: 0.35, yaw: 3, pitch: -2, roll: 1, eyesOpen: 0.6, eyesVisible: 0.9, sharpness: 60, brightness: 50 },
      thresholds: { minFacePixels: THRESHOLDS.embedded.minFacePixels, maxYaw: THRESHOLDS.embedded.maxYaw, minSharpness: THRESHOLDS.embedded.minSharpness },
      problems: [],
    });
    expect(h.kept).toHaveLength(1);
    expect(h.kept[0]!.check).toMatchObject({ checkId: 'face1.quality', checkType: 'FACE_QUALITY', result: 'PASS' });
    expect(JSON.parse(h.kept[0]!.check!.moreinfo!)).toMatchObject({ figures: { yaw: 3 }, thresholds: { maxYaw: 25 } });
  });

  it.each([
    ['no face', [], ['noFace']],
    ['two faces', [GOOD, GOOD], ['manyFaces']],
    ['a face turned away', [{ ...GOOD, pose: { yaw: 40, pitch: 0, roll: 0 } }], ['notFrontal']],
    ['a small face', [{ ...GOOD, box: { left: 0.45, top: 0.45, width: 0.05, height: 0.08 } }], ['faceTooSmall']],
    ['eyes behind sunglasses', [{ ...GOOD, eyes: { open: 0.35, visible: 0.26 } }], ['eyesCovered']],
    ['closed eyes', [{ ...GOOD, eyes: { open: 0.1, visible: 0.8 } }], ['eyesClosed']],
    ['eyes at the thresholds', [{ ...GOOD, eyes: { open: THRESHOLDS.embedded.minEyesOpen - 0.001, visible: THRESHOLDS.embedded.minEyesVisible } }], ['eyesClosed']],
    ['a blurred face', [{ ...GOOD, quality: { brightness: 50, sharpness: 10 } }], ['blurry']],
    ['a dark face', [{ ...GOOD, quality: { brightness: 10, sharpness: 60 } }], ['tooDark']],
    ['a face too bright', [{ ...GOOD, quality: { brightness: 80, sharpness: 60 } }], ['tooBright']],
  ] as const)('fails %s as Failed Face Quality, the check saying what to fix', async (_what, faces, problems) => {
    const h = harness([...faces]);
    await expect(h.go()).rejects.toMatchObject({ name: 'FaceQualityFailed' });
    expect(h.kept[0]!.check).toMatchObject({ result: 'FAIL' });
    expect(JSON.parse(h.kept[0]!.check!.moreinfo!).problems).toEqual(problems);
  });

  it('judges by the engine in use: what the embedded model calls too bright, Rekognition (0 to 100) takes', async () => {
    const bright = [{ ...GOOD, quality: { brightness: 80, sharpness: 60 } }];
    await expect(harness(bright, 'embedded').go()).rejects.toMatchObject({ name: 'FaceQualityFailed' });
    await expect(harness(bright, 'rekognition').go()).resolves.toBeDefined();
  });

  it('takes eyes exactly at both thresholds, and judges Rekognition\'s eyes as probabilities', async () => {
    const edge = [{ ...GOOD, eyes: { open: THRESHOLDS.embedded.minEyesOpen, visible: THRESHOLDS.embedded.minEyesVisible } }];
    await expect(harness(edge, 'embedded').go()).resolves.toBeDefined();
    // 0.3 open is an open eye on the mesh's scale, and unlikely open as Rekognition's probability.
    const squint = [{ ...GOOD, eyes: { open: 0.3, visible: 0.9 } }];
    await expect(harness(squint, 'embedded').go()).resolves.toBeDefined();
    await expect(harness(squint, 'rekognition').go()).rejects.toMatchObject({ name: 'FaceQualityFailed' });
  });

  it('fails when the Face Key has no live capture, reading nothing', async () => {
    const h = harness([GOOD]);
    await expect(h.go(session([]))).rejects.toMatchObject({ name: 'FaceQualityFailed' });
    expect(h.read).toEqual([]);
    expect(JSON.parse(h.kept[0]!.check!.moreinfo!).problems).toEqual(['noLiveCapture']);
  });
});
