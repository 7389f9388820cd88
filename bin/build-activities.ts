/** `npm run build:activities`: writes the spec index and the activity index from functions/activities. */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedIndexes } from '../lib/activity-index.js';

const root = resolve(fileURLToPath(import.meta.url), '../..');
for (const [path, text] of Object.entries(await generatedIndexes(root))) {
  writeFileSync(join(root, path), text);
  console.log(`wrote ${path}`);
}
