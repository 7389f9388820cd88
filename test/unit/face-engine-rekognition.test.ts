/** The face engine on AWS: Rekognition's answers mapped to the port, with aws-sdk-client-mock. */
import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import {
  CompareFacesCommand,
  CreateCollectionCommand,
  DeleteCollectionCommand,
  DeleteFacesCommand,
  DetectFacesCommand,
  IndexFacesCommand,
  RekognitionClient,
  SearchFacesByImageCommand,
} from '@aws-sdk/client-rekognition';
import { RekognitionFaceEngine } from '../../functions/adapters/face-engine.js';
import { imageRefusal, isMissingCollection } from '../../functions/faces/model.js';
import { face } from '../support/face-images.js';
import { truncatedJpeg } from '../support/broken-images.js';
import { isTransientError } from '../../functions/shared/aws-errors.js';

const rekognition = mockClient(RekognitionClient);
const image = { bytes: face('person-a-1.jpg') };
const ref = { tenantId: 'demo', watchlistId: 'w1' };
const named = (name: string) => Object.assign(new Error(name), { name });

beforeEach(() => rekognition.reset());

describe('RekognitionFaceEngine', () => {
  it('maps DetectFaces to boxes, pose, quality and eyes, largest first, with the size from the image header', async () => {
    rekognition.on(DetectFacesCommand).resolves({
      FaceDetails: [
        { BoundingBox: { Left: 0.1, Top: 0.1, Width: 0.1, Height: 0.1 }, Confidence: 99, Pose: { Yaw: 1, Pitch: 2, Roll: 3 }, Quality: { Brightness: 60, Sharpness: 80 } },
        {
          BoundingBox: { Left: 0.4, Top: 0.2, Width: 0.3, Height: 0.4 },
          Confidence: 99.9,
          Pose: { Yaw: -5, Pitch: 0, Roll: 0 },
          Quality: { Brightness: 50, Sharpness: 90 },
          EyesOpen: { Value: false, Confidence: 80 },
          Sunglasses: { Value: true, Confidence: 97.5 },
        },
      ],
    });
    const out = await new RekognitionFaceEngine('arthr-fir').detect(image);
    expect(out.width).toBe(800);
    expect(out.height).toBe(532);
    expect(out.faces[0]).toEqual({
      box: { left: 0.4, top: 0.2, width: 0.3, height: 0.4 },
      confidence: 0.999,
      pose: { yaw: -5, pitch: 0, roll: 0 },
      quality: { brightness: 50, sharpness: 90 },
      // Closed with 80% confidence: 0.2 likely open; sunglasses with 97.5%: 0.025 likely bare.
      eyes: { open: 0.2, visible: 0.025 },
    });
    // Attributes Rekognition did not answer count as not seen: such a face fails the eyes rules.
    expect(out.faces[1]!.eyes).toEqual({ open: 0, visible: 0 });
    expect(rekognition.commandCalls(DetectFacesCommand)[0]!.args[0].input).toMatchObject({ Image: { Bytes: image.bytes }, Attributes: ['DEFAULT', 'EYES_OPEN', 'SUNGLASSES'] });
  });

  it('maps CompareFaces to a similarity of 0 to 1, and a source without a face to noFace', async () => {
    const engine = new RekognitionFaceEngine('arthr-fir');
    rekognition
      .on(CompareFacesCommand)
      .resolvesOnce({ FaceMatches: [{ Similarity: 97.5, Face: { BoundingBox: { Width: 0.5, Height: 0.5 } } }] })
      .resolvesOnce({ FaceMatches: [], UnmatchedFaces: [] })
      .rejectsOnce(named('InvalidParameterException'))
      .rejectsOnce(named('ThrottlingException'));
    expect(await engine.compare(image, image)).toEqual({ similarity: 0.975 });
    expect(await engine.compare(image, image)).toEqual({ noFace: 'target' });
    expect(await engine.compare(image, image)).toEqual({ noFace: 'source' });
    await expect(engine.compare(image, image)).rejects.toMatchObject({ name: 'ThrottlingException' });
  });

  it('makes a face template with the embedded model in the function, asking Rekognition nothing', async () => {
    const out = await new RekognitionFaceEngine('arthr-fir').template(image);
    expect(out.faceCount).toBe(1);
    expect(out.template?.model).toBe('human-faceres');
    expect(out.template?.vector).toHaveLength(1024);
    expect(rekognition.calls()).toHaveLength(0);
    // An image cut short is refused as Rekognition would refuse it.
    const refused = await new RekognitionFaceEngine('arthr-fir').template({ bytes: truncatedJpeg() }).catch((err: unknown) => err);
    expect(imageRefusal(refused)).toBeDefined();
  });

  it('keeps watchlists as collections under the deployment prefix, idempotently', async () => {
    const engine = new RekognitionFaceEngine('arthr-fir');
    rekognition.on(CreateCollectionCommand).rejects(named('ResourceAlreadyExistsException'));
    await engine.createWatchlist(ref);
    expect(rekognition.commandCalls(CreateCollectionCommand)[0]!.args[0].input).toEqual({ CollectionId: 'arthr-fir.demo.w1' });
    rekognition.on(DeleteCollectionCommand).rejects(named('ResourceNotFoundException'));
    await engine.deleteWatchlist(ref);
    rekognition.on(IndexFacesCommand).resolvesOnce({ FaceRecords: [{ Face: { FaceId: 'f-1' } }] }).resolvesOnce({ FaceRecords: [] });
    expect(await engine.addMember(ref, 'm-1', image)).toEqual({ faceId: 'f-1' });
    expect(await engine.addMember(ref, 'm-2', image)).toBeUndefined();
    expect(rekognition.commandCalls(IndexFacesCommand)[0]!.args[0].input).toMatchObject({ CollectionId: 'arthr-fir.demo.w1', ExternalImageId: 'm-1', MaxFaces: 1 });
    rekognition.on(DeleteFacesCommand).resolves({});
    await engine.removeMember(ref, 'f-1');
    expect(rekognition.commandCalls(DeleteFacesCommand)[0]!.args[0].input).toEqual({ CollectionId: 'arthr-fir.demo.w1', FaceIds: ['f-1'] });
  });

  it('searches with the threshold in percent, and maps no face in the image to noFace', async () => {
    const engine = new RekognitionFaceEngine('arthr-fir');
    rekognition
      .on(SearchFacesByImageCommand)
      .resolvesOnce({ FaceMatches: [{ Similarity: 91, Face: { ExternalImageId: 'm-1' } }, { Similarity: 99, Face: { ExternalImageId: 'm-2' } }] })
      .rejectsOnce(named('InvalidParameterException'));
    expect(await engine.search(ref, image, 0.9, 5)).toEqual([
      { memberId: 'm-2', similarity: 0.99 },
      { memberId: 'm-1', similarity: 0.91 },
    ]);
    expect(rekognition.commandCalls(SearchFacesByImageCommand)[0]!.args[0].input).toMatchObject({ CollectionId: 'arthr-fir.demo.w1', FaceMatchThreshold: 90, MaxFaces: 5 });
    expect(await engine.search(ref, image, 0.9, 5)).toEqual({ noFace: true });
  });

  it('passes a throttle on as the transient error the wrapper answers 503 (Retry-After) and a Task retries', async () => {
    rekognition.on(DetectFacesCommand).rejects(Object.assign(named('ProvisionedThroughputExceededException'), { $retryable: { throttling: true } }));
    const err = await new RekognitionFaceEngine('arthr-fir').detect(image).catch((e: unknown) => e);
    expect(isTransientError(err)).toBe(true);
  });

  it("passes Rekognition's refusals on under the names the steps and routes turn into 400s, template failures and Not Found", async () => {
    const engine = new RekognitionFaceEngine('arthr-fir');
    rekognition.on(IndexFacesCommand).rejects(named('ImageTooLargeException'));
    rekognition.on(DetectFacesCommand).rejects(named('InvalidImageFormatException'));
    rekognition.on(SearchFacesByImageCommand).rejects(named('ResourceNotFoundException'));
    expect(imageRefusal(await engine.addMember(ref, 'm-1', image).catch((e: unknown) => e))).toBe('tooLarge');
    expect(imageRefusal(await engine.detect(image).catch((e: unknown) => e))).toBe('unreadable');
    const gone = await engine.search(ref, image, 0.9, 5).catch((e: unknown) => e);
    expect(isMissingCollection(gone)).toBe(true);
    expect(imageRefusal(gone)).toBeUndefined();
  });

  it('rejects when Rekognition refuses the image, with the refusal the embedded engine gives, whichever call refused', async () => {
    const engine = new RekognitionFaceEngine('arthr-fir');
    rekognition.on(DetectFacesCommand).rejects(named('InvalidImageFormatException'));
    rekognition.on(IndexFacesCommand).rejects(named('ImageTooLargeException'));
    rekognition.on(CompareFacesCommand).rejects(named('InvalidImageFormatException'));
    rekognition.on(SearchFacesByImageCommand).rejects(named('ImageTooLargeException'));
    await expect(engine.detect(image)).rejects.toMatchObject({ name: 'FaceImageRefusedError', reason: 'unreadable' });
    await expect(engine.addMember(ref, 'm-1', image)).rejects.toMatchObject({ name: 'FaceImageRefusedError', reason: 'tooLarge' });
    await expect(engine.compare(image, image)).rejects.toMatchObject({ name: 'FaceImageRefusedError', reason: 'unreadable' });
    await expect(engine.search(ref, image, 0.9, 5)).rejects.toMatchObject({ name: 'FaceImageRefusedError', reason: 'tooLarge' });
  });

  it('rejects when the image is cut short, before asking Rekognition', async () => {
    const engine = new RekognitionFaceEngine('arthr-fir');
    rekognition.on(DetectFacesCommand).resolves({ FaceDetails: [] });
    await expect(engine.detect({ bytes: truncatedJpeg() })).rejects.toMatchObject({ name: 'FaceImageRefusedError', reason: 'unreadable' });
    expect(rekognition.commandCalls(DetectFacesCommand)).toHaveLength(0);
  });

  it('refuses collection calls without its prefix configured', async () => {
    await expect(new RekognitionFaceEngine(undefined).createWatchlist(ref)).rejects.toThrow('FACE_COLLECTION_PREFIX');
  });
});
