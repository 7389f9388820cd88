/**
 * Face images uploaded from outside a journey (a token's
 * `processInstanceInit.externalSources.faceUploads`, or the External Source Face Upload v1
 * step): each image key gets an upload slot under the instance's prefix in S3, and the relying
 * party (or a cloud function) PUTs the bytes to a pre-signed URL made for that slot alone. The
 * slots travel in the session under `_externalSources.faceUploads`, where External Source Face
 * Match v1 will find them.
 */
import { randomUUID } from 'node:crypto';
import type { InstanceImageStore } from '../model.js';

/** How long an upload URL is good for: the relying party uploads right after it creates the instance. */
export const FACE_UPLOAD_URL_SECONDS = 15 * 60;
/** The largest upload used: Rekognition's limit on an image passed as bytes (5 MB). Larger ones are not read. */
export const MAX_FACE_UPLOAD_BYTES = 5 * 1024 * 1024;

export type ImageFormat = 'JPEG' | 'PNG';

export interface FaceUploadSlot {
  imageFormat: ImageFormat;
  /** Names this upload (the object's name under the image key). */
  captureKey: string;
  objectKey: string;
}

/** What the creation response (and the upload step's variables) give for one image key. */
export interface FaceUploadTicket {
  imageFormat: ImageFormat;
  captureKey: string;
  uploadUrl: string;
  uploadHeaders: Record<string, string>;
}

export const contentTypeOf = (format: ImageFormat) => (format === 'PNG' ? 'image/png' : 'image/jpeg');

/** Where an upload goes in S3 (store/keys.ts `objectKeys.faceUpload`, always under its tenant and instance). */
export type FaceUploadKey = (tenantId: string, processInstanceId: string, imageKey: string, captureKey: string, extension: 'jpg' | 'png') => string;

export function faceUploadSlot(
  objectKey: FaceUploadKey,
  tenantId: string,
  processInstanceId: string,
  imageKey: string,
  imageFormat: ImageFormat,
): FaceUploadSlot {
  const captureKey = randomUUID();
  return { imageFormat, captureKey, objectKey: objectKey(tenantId, processInstanceId, imageKey, captureKey, imageFormat === 'PNG' ? 'png' : 'jpg') };
}

export async function faceUploadTicket(
  images: Pick<InstanceImageStore, 'uploadUrl'>,
  tenantId: string,
  processInstanceId: string,
  slot: FaceUploadSlot,
): Promise<FaceUploadTicket> {
  const { url, headers } = await images.uploadUrl(tenantId, processInstanceId, slot.objectKey, contentTypeOf(slot.imageFormat), FACE_UPLOAD_URL_SECONDS);
  return { imageFormat: slot.imageFormat, captureKey: slot.captureKey, uploadUrl: url, uploadHeaders: headers };
}
