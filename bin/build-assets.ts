/**
 * `npm run build:assets`: bundles the journey pages' browser scripts into
 * functions/journey/assets.generated.ts and the console's into functions/console/assets.generated.ts.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_ASSETS, GENERATED_CONSOLE_ASSETS, generatedAssetsModule, generatedConsoleAssetsModule } from '../lib/assets.js';

const root = resolve(fileURLToPath(import.meta.url), '../..');
writeFileSync(join(root, GENERATED_ASSETS), await generatedAssetsModule(root));
console.log(`wrote ${GENERATED_ASSETS}`);
writeFileSync(join(root, GENERATED_CONSOLE_ASSETS), await generatedConsoleAssetsModule(root));
console.log(`wrote ${GENERATED_CONSOLE_ASSETS}`);
