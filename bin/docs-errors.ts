/** `npm run docs:errors`: rewrites the error table of README.md ("## Errors") from functions/errors.ts. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withErrorTable } from '../lib/error-docs.js';

const readme = join(resolve(fileURLToPath(import.meta.url), '../..'), 'README.md');
const before = readFileSync(readme, 'utf8');
const after = withErrorTable(before);
if (after !== before) writeFileSync(readme, after);
console.log(after === before ? 'README.md error table is up to date' : 'rewrote the error table of README.md');
