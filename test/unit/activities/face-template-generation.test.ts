/**
 * Face Template Generation (the family's faceTemplateGenerationV1): the newest live capture made
 * into the embedded model's descriptor, written beside the image, the state holding only where it
 * is; with the local engine on real photographs for what a template is, and a stand-in engine for
 * the faces it must refuse.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { run } from '../../../functions/activities/face-template-generation.js';
import type { ActivityDeps, Session } from '../../../functions/activities/contract.js';
import { FaceImageRefusedError, type FaceEngine } from '../../../functions/faces/model.js';
import type { StepUserData } from '../../../functions/process-manager/model.js';
import { startLocalFaceEngine } from '../../../lib/local/face-engine.js';
import { face } from '../../support/face-images.js';

const engine = startLocalFaceEngine({});
afterAll(() => engine.stop());

const session = (captures = [{ captureId: 'c1', format: 'JPEG' }]): Session =>
  ({ instance: { tenantId: 'demo', processInstanceId: 'p' }, parameters: {}, vars: {}, _faces: { face1: { captures } } }) as unknown as Session;

function harness(photo: Buffer, faces: Pick<FaceEngine, 'name' | 'template'> = engine) {
  const kept: StepUserData[] = [];
  const written = new Map<string, { bytes: Uint8Array; contentType: string; sha256: string }>();
  const deps = {
    faces,
    images: {
      getAtMost: async () => photo,
      put: async (objectKey: string, bytes: Uint8Array, contentType: string, sha256: string) => void written.set(objectKey, { bytes, contentType, sha256 }),
    },
    faceCaptureKey: (t: string, i: string, k: string, c: string, e: string) => `${t}/${i}/faces/${k}/${c}.${e}`,
    faceTemplateKey: (t: string, i: string, k: string, c: string) => `${t}/${i}/faces/${k}/${c}.template`,
    instances: { putUserData: async (_t: string, _i: string, data: StepUserData) => void kept.push(data) },
  } as unknown as ActivityDeps;
  const go = (s = session()) => run({ activityId: 'template', inputs: { 'Face Key': 'face1' }, session: s, tenantId: 'demo', actor: 'journey:p', now: new Date('2026-11-29T10:00:00Z'), expiresAt: 2_000_000_000, deps });
  return { go, kept, written };
}

const vectorOf = (bytes: Uint8Array) => [...new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))];
const cosine = (a: number[], b: number[]) => a.reduce((s, v, i) => s + v * b[i]!, 0) / Math.sqrt(a.reduce((s, v) => s + v * v, 0) * b.reduce((s, v) => s + v * v, 0));

describe('Face Template Generation', () => {
  it('writes the descriptor beside the capture, the state holding only its reference and SHA-256', async () => {
    const h = harness(face('person-a-crop-qtlogo.jpg'));
    const out = await h.go();
    const written = h.written.get('demo/p/faces/face1/c1.template')!;
    expect(written.contentType).toBe('application/octet-stream');
    // 1,024 little-endian 32-bit floats.
    expect(written.bytes.byteLength).toBe(4096);
    expect(written.sha256).toBe(createHash('sha256').update(written.bytes).digest('hex'));
    const reference = (out._faces as any).face1.template;
    expect(reference).toEqual({ captureId: 'c1', model: 'human-faceres', dimensions: 1024, sha256: written.sha256, createdAt: '2026-11-29T10:00:00.000Z' });
    // The captures stay; no vector or pixel anywhere in the state.
    expect((out._faces as any).face1.captures).toEqual([{ captureId: 'c1', format: 'JPEG' }]);
    expect(JSON.stringify(out).length).toBeLessThan(2000);
    expect((out._checks as any).faces.face1.template).toMatchObject({ result: 'PASS', checkType: 'FACE_TEMPLATE', model: 'human-faceres', dimensions: 1024, faceCount: 1 });
    expect(h.kept[0]!.check).toMatchObject({ checkId: 'face1.template', result: 'PASS' });
    expect(JSON.stringify(h.kept[0])).not.toContain(String(vectorOf(written.bytes)[0]));
  });

  it('makes templates that are closer for the same person than for two people', async () => {
    const template = async (name: string) => {
      const h = harness(face(name));
      await h.go();
      return vectorOf(h.written.get('demo/p/faces/face1/c1.template')!.bytes);
    };
    const [a1, a2, c] = [await template('person-a-crop-bar55-2.jpg'), await template('person-a-crop-qtlogo.jpg'), await template('person-c-crop-qtlogo.jpg')];
    expect(cosine(a1, a2)).toBeGreaterThan(cosine(a1, c) + 0.1);
    expect(cosine(a2, a1)).toBeGreaterThan(cosine(a2, c) + 0.1);
  });

  it('raises Failed Template Generation on a photo without a face, writing nothing', async () => {
    const h = harness(face('no-face-landscape.jpg'));
    await expect(h.go()).rejects.toMatchObject({ name: 'FaceTemplateGenerationFailed' });
    expect(h.written.size).toBe(0);
    expect(h.kept[0]!.check).toMatchObject({ result: 'FAIL' });
    expect(JSON.parse(h.kept[0]!.check!.moreinfo!)).toMatchObject({ problem: 'noFace', faceCount: 0 });
  });

  it.each([
    ['two faces', async () => ({ faceCount: 2, template: { model: 'human-faceres' as const, vector: [1, 2] } }), 'manyFaces'],
    ['an image the engine refuses', async () => Promise.reject(new FaceImageRefusedError('unreadable', 'bad')), 'unreadable'],
  ])('raises Failed Template Generation on %s', async (_what, template, problem) => {
    const h = harness(Buffer.from([0xff, 0xd8]), { name: 'rekognition', template });
    await expect(h.go()).rejects.toMatchObject({ name: 'FaceTemplateGenerationFailed' });
    expect(h.written.size).toBe(0);
    expect(JSON.parse(h.kept[0]!.check!.moreinfo!).problem).toBe(problem);
  });

  it('raises Failed Template Generation when the Face Key has no live capture, asking the engine nothing', async () => {
    let asked = 0;
    const h = harness(Buffer.alloc(0), { name: 'embedded', template: async () => (asked++, { faceCount: 0 }) });
    await expect(h.go(session([]))).rejects.toMatchObject({ name: 'FaceTemplateGenerationFailed' });
    expect(asked).toBe(0);
    expect(JSON.parse(h.kept[0]!.check!.moreinfo!).problem).toBe('noLiveCapture');
  });

  it('lets an engine failure that is not the image\'s through, for the state machine to retry', async () => {
    const h = harness(Buffer.from([0xff, 0xd8]), { name: 'rekognition', template: async () => Promise.reject(Object.assign(new Error('slow down'), { name: 'ThrottlingException' })) });
    await expect(h.go()).rejects.toMatchObject({ name: 'ThrottlingException' });
    expect(h.kept).toHaveLength(0);
  });
});
