import { faceUploadSlot, faceUploadTicket, type ImageFormat } from '../process-manager/instances/face-uploads.js';
import type { ActivityAccess, ServiceRun, Session } from './contract.js';
import { key } from './spec.js';
import { spec } from './specs/external-source-face-upload-v1.js';

/** Pre-signing a PUT is the function role's s3:PutObject (nothing is called). */
export const aws = { images: ['PutObject'] } as const satisfies ActivityAccess;

/**
 * A new upload slot for the image key, as instance creation makes for a token's
 * `externalSources.faceUploads` (process-manager/instances/face-uploads.ts): the slot replaces any earlier
 * one of the key in `_externalSources`, so External Source Face Match v1 reads what this URL
 * uploads. The URL and its headers go to the process variables, for a cloud function to PUT to.
 */
export const run: ServiceRun<typeof spec> = async ({ inputs, session, tenantId, deps: { faceUploadKey, images } }) => {
  const imageKey = inputs['Image Key'];
  const format: ImageFormat = inputs['Image Format'] === 'PNG' ? 'PNG' : 'JPEG';
  const processInstanceId = session.instance.processInstanceId;
  const slot = faceUploadSlot(faceUploadKey, tenantId, processInstanceId, imageKey, format);
  const ticket = await faceUploadTicket(images, tenantId, processInstanceId, slot);
  const sources = (session._externalSources ?? {}) as { faceUploads?: Record<string, unknown> };
  const output = inputs['Output Variable'];
  return {
    ...session,
    _externalSources: { ...sources, faceUploads: { ...(sources.faceUploads ?? {}), [imageKey]: slot } },
    vars: { ...(session.vars ?? {}), [output]: ticket.uploadUrl, [`${output}_headers`]: ticket.uploadHeaders },
  } satisfies Session;
};
