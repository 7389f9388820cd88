/** `npm run build:activities`: writes the spec index and the activity index from functions/activities. */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_ACTIVITY_INDEX, GENERATED_SPEC_INDEX, generatedActivityIndex, generatedSpecIndex } from '../lib/activity-index.js';

const root = resolve(fileURLToPath(import.meta.url), '../..');
writeFileSync(join(root, GENERATED_SPEC_INDEX), await generatedSpecIndex(root));
writeFileSync(join(root, GENERATED_ACTIVITY_INDEX), await generatedActivityIndex(root));
console.log(`wrote ${GENERATED_SPEC_INDEX} and ${GENERATED_ACTIVITY_INDEX}`);
