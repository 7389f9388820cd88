/**
 * The face steps' storage and engine, put together here and only here: External Source Face
 * Upload v1 and Match v1 read and write the instance's images and user data through these, and
 * compare with the engine (Rekognition on AWS, the embedded model locally).
 */
import type { FaceEngine } from './model.js';
import type { FaceUploadKey } from '../process-manager/face-uploads.js';
import type { InstanceImageStore, ProcessInstanceStore } from '../process-manager/model.js';
import { faceEngine } from '../store/face-engine.js';
import { imageStore } from '../store/images.js';
import { objectKeys } from '../store/keys.js';
import { processInstanceStore } from '../store/process-instances.js';

export const faces: Pick<FaceEngine, 'name' | 'detect' | 'compare'> = faceEngine;
export const images: Pick<InstanceImageStore, 'uploadUrl' | 'getAtMost'> = imageStore;
export const instances: Pick<ProcessInstanceStore, 'putUserData' | 'countFailedAttempt'> = processInstanceStore;
/** Where an external upload goes, and where a live capture is (always under their tenant and instance). */
export const faceUploadKey: FaceUploadKey = objectKeys.faceUpload;
export const faceCaptureKey = objectKeys.faceCapture;
