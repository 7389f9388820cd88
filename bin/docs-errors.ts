/** `npm run docs:errors`: rewrites the error table of docs/errors.md from functions/errors.ts. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_DOCS_FILE, withErrorTable } from '../lib/error-docs.js';

const page = join(resolve(fileURLToPath(import.meta.url), '../..'), ERROR_DOCS_FILE);
const before = readFileSync(page, 'utf8');
const after = withErrorTable(before);
if (after !== before) writeFileSync(page, after);
console.log(after === before ? `${ERROR_DOCS_FILE} error table is up to date` : `rewrote the error table of ${ERROR_DOCS_FILE}`);
