import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERATED_ASSETS, generatedAssetsModule } from '../../lib/assets.js';

describe('the journey pages\u2019 browser scripts', () => {
  it('are bundled from their sources as they are now (npm run build:assets)', async () => {
    const root = resolve(import.meta.dirname, '../..');
    expect(readFileSync(join(root, GENERATED_ASSETS), 'utf8')).toBe(await generatedAssetsModule(root));
  }, 30_000);
});
