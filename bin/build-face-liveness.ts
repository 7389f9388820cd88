/**
 * `tsx bin/build-face-liveness.ts <folder>`: builds the Face Liveness capture's browser script
 * into the folder (lib/liveness-asset.ts). The stack runs it on the getFaceLivenessAsset
 * function's bundle when it bundles it, where the region has Rekognition Face Liveness.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFaceLivenessAsset } from '../lib/liveness-asset.js';

const out = process.argv[2];
if (!out) {
  console.error('usage: tsx bin/build-face-liveness.ts <folder>');
  process.exit(2);
}
const root = resolve(fileURLToPath(import.meta.url), '../..');
console.log(`wrote ${await buildFaceLivenessAsset(root, resolve(out))}`);
