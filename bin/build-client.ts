/**
 * `npm run build:client`: writes the typed client's OpenAPI snapshot and its generated types
 * (clients/typescript/openapi.json, clients/typescript/src/schema.d.ts) from the route table.
 * Run it after changing a route's schemas; `npm test` fails while they are out of date.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { clientFiles, OPENAPI_FILE, TYPES_FILE } from './client-files.js';

const { openapi, types } = await clientFiles();
writeFileSync(OPENAPI_FILE, openapi);
writeFileSync(TYPES_FILE, types);
for (const file of [OPENAPI_FILE, TYPES_FILE]) console.log(`wrote ${fileURLToPath(file)}`);
