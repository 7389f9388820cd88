/** `npm run build:activities`: writes functions/activities/index.generated.ts from the activity modules. */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_ACTIVITY_INDEX, generatedActivityIndex } from '../lib/activity-index.js';

const root = resolve(fileURLToPath(import.meta.url), '../..');
writeFileSync(join(root, GENERATED_ACTIVITY_INDEX), await generatedActivityIndex(root));
console.log(`wrote ${GENERATED_ACTIVITY_INDEX}`);
