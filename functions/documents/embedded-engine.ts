/**
 * The embedded document engine: the MRZ read with tesseract.js and judged with the `mrz` parser
 * (functions/documents/mrz.ts), in the function itself, locally and on AWS. It reads no visual
 * zone: what the MRZ does not carry (an address, a place of birth) needs Textract or a licensed
 * reader (docs/documents.md).
 */
import { readMrz } from './mrz.js';
import type { DocumentEngine } from './model.js';

export const embeddedDocumentEngine: DocumentEngine = {
  name: 'embedded',
  async read({ pixels }) {
    const mrz = await readMrz(pixels);
    return { engine: 'embedded', visual: {}, ...(mrz ? { mrz } : {}) };
  },
};
