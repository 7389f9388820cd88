import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientFiles, OPENAPI_FILE, TYPES_FILE } from '../../bin/client-files.js';

describe('clientFiles', () => {
  it('makes what clients/typescript holds: run `npm run build:client` after changing a route', { timeout: 60_000 }, async () => {
    const { openapi, types } = await clientFiles();
    // Compared whole, but failing with a short message rather than a 800 KB diff.
    expect(readFileSync(OPENAPI_FILE, 'utf8') === openapi, 'clients/typescript/openapi.json is out of date').toBe(true);
    expect(readFileSync(TYPES_FILE, 'utf8') === types, 'clients/typescript/src/schema.d.ts is out of date').toBe(true);
  });

  it('types every operation of the document by its path, and the events by their type', async () => {
    const types = readFileSync(TYPES_FILE, 'utf8');
    const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as { paths: Record<string, Record<string, { operationId: string }>>; webhooks: Record<string, unknown> };
    for (const [path, ops] of Object.entries(document.paths)) {
      expect(types).toContain(`    ${JSON.stringify(path)}: {`);
      for (const op of Object.values(ops)) expect(types).toContain(`operations["${op.operationId}"]`);
    }
    for (const type of Object.keys(document.webhooks)) expect(types).toContain(`    ${JSON.stringify(type)}: {`);
  });
});
