/**
 * The face steps' and watchlists' storage and engine, put together here and only here: External
 * Source Face Upload v1, Match v1 and Watchlist Match read and write the instance's images through
 * these (its user data through the process manager's instances), the watchlist routes their
 * watchlists, and all of them ask the engine (Rekognition on AWS, the embedded model locally).
 */
import type { FaceEngine, WatchlistStore } from './model.js';
import type { FaceUploadKey } from '../process-manager/instances/face-uploads.js';
import type { InstanceImageStore } from '../process-manager/model.js';
import { faceEngine } from '../adapters/face-engine.js';
import { jpegThumbnail } from '../adapters/face-image.js';
import { imageStore } from '../adapters/images.js';
import { objectKeys } from '../store/keys.js';
import { watchlistStore } from '../store/watchlists.js';

export const faces: Pick<FaceEngine, 'name' | 'detect' | 'compare' | 'search' | 'template'> = faceEngine;
/** What the watchlist routes ask of the engine: a collection per watchlist, a template per member. */
export const watchlistEngine: Pick<FaceEngine, 'detect' | 'createWatchlist' | 'deleteWatchlist' | 'addMember' | 'removeMember'> = faceEngine;
export const watchlists: WatchlistStore = watchlistStore;
export const images: Pick<InstanceImageStore, 'uploadUrl' | 'getAtMost' | 'put'> = imageStore;
/** Where an external upload goes, and where a live capture is (always under their tenant and instance). */
export const faceUploadKey: FaceUploadKey = objectKeys.faceUpload;
export const faceCaptureKey = objectKeys.faceCapture;
/** Where a face template made of a capture is kept (beside it). */
export const faceTemplateKey = objectKeys.faceTemplate;
/** A small upright JPEG of a capture, for a journey page to show inline (Confirm Image). */
export const thumbnail: (bytes: Uint8Array, maxSide: number, quality: number) => { jpeg: Buffer; width: number; height: number } = jpegThumbnail;
