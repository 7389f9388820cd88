/**
 * The document steps' engine, put together here and only here. The engine a function reads documents with: the embedded engine (tesseract.js and
 * the MRZ parser, running in the function: locally, and on AWS by default) or Amazon Textract
 * where the deployment chooses it (DOCUMENT_ENGINE=textract, the stack's `documentEngine`).
 * Both judge the MRZ by the same parsing and check digits (functions/documents/mrz.ts).
 */
import { getStoreConfig } from '../config.js';
import { TextractDocumentEngine } from '../adapters/textract-document-engine.js';
import { embeddedDocumentEngine } from './embedded-engine.js';
import { judgeMrzLines } from './mrz.js';
import type { DocumentEngine } from './model.js';

let textract: TextractDocumentEngine | undefined;

function current(): DocumentEngine {
  if (getStoreConfig().DOCUMENT_ENGINE !== 'textract') return embeddedDocumentEngine;
  textract ??= new TextractDocumentEngine(judgeMrzLines);
  return textract;
}

/** The configured engine, chosen at each call (a test may change the configuration). */
export const documentEngine: DocumentEngine = {
  get name() {
    return current().name;
  },
  read: (image) => current().read(image),
};
