/**
 * The exports' storage and services, put together here and only here: the job items, the
 * exports bucket, the queue jobs go to and the sealer of archive passwords.
 */
import { exportObjects, exportStore } from '../store/exports.js';
import { exportQueue } from '../adapters/export-queue.js';
import { secretSealer } from '../adapters/sealer.js';
import type { ExportObjects, ExportQueue, ExportStore, SecretSealer } from './model.js';

export const jobs: ExportStore = exportStore;
export const objects: ExportObjects = exportObjects;
export const queue: ExportQueue = exportQueue;
export const sealer: SecretSealer = secretSealer;
