/**
 * The local face engine's worker thread: runs the embedded model off the runtime's event loop
 * (an inference takes 50-800 ms of CPU). It answers one message at a time.
 */
import { parentPort } from 'node:worker_threads';
import { imageRefusal, type ImageRefusal } from '../../functions/faces/model.js';
import { analyseChallenge, analyseImage, descriptorSimilarity } from '../../functions/adapters/embedded-face-model.js';

export type FaceWorkerRequest =
  | { id: number; op: 'analyse'; bytes: Uint8Array }
  | { id: number; op: 'similarities'; probe: number[]; others: number[][] }
  | { id: number; op: 'challenge'; still: Uint8Array; frames: Uint8Array[]; frameMaxSide: number };

/** A failure says whether it was the image's refusal: an error's class does not cross the thread. */
export type FaceWorkerReply = { id: number; result: unknown } | { id: number; error: string; refused?: ImageRefusal };

parentPort?.on('message', (message: FaceWorkerRequest) => {
  void (async () => {
    try {
      const result =
        message.op === 'analyse'
          ? await analyseImage(message.bytes)
          : message.op === 'challenge'
            ? await analyseChallenge(message.still, message.frames, message.frameMaxSide)
            : await Promise.all(message.others.map((other) => descriptorSimilarity(message.probe, other)));
      parentPort?.postMessage({ id: message.id, result } satisfies FaceWorkerReply);
    } catch (err) {
      const refused = imageRefusal(err);
      parentPort?.postMessage({
        id: message.id,
        error: err instanceof Error ? err.message : String(err),
        ...(refused ? { refused } : {}),
      } satisfies FaceWorkerReply);
    }
  })();
});
