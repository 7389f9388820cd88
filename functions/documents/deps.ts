/**
 * The document steps' engine, put together here and only here. The engine a function reads documents with: the embedded engine (tesseract.js and
 * the MRZ parser, running in the function: locally, and on AWS by default) or Amazon Textract
 * where the deployment chooses it (DOCUMENT_ENGINE=textract, the stack's `documentEngine`).
 * Both judge the MRZ by the same parsing and check digits (functions/documents/mrz.ts).
 */
import { getStoreConfig, localServiceEndpoints } from '../config.js';
import { RegulaDocumentEngine } from '../adapters/regula-document-engine.js';
import { TextractDocumentEngine } from '../adapters/textract-document-engine.js';
import { guardedFetch, type GuardOptions } from '../shared/outbound.js';
import { embeddedDocumentEngine } from './embedded-engine.js';
import { judgeMrzLines } from './mrz.js';
import type { DocumentEngine, DocumentServices } from './model.js';

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

/**
 * A tenant's Regula service is reached as webhooks are: HTTPS to a public address, and locally
 * http:// to loopback too (never in Lambda, where loopback is the Runtime API), never the local
 * runtime's own DynamoDB Local or S3 stand-in.
 */
function documentServiceGuard(): GuardOptions {
  return {
    allowLoopback: getStoreConfig().DOCUMENT_SERVICE_ALLOW_LOOPBACK === 'true' && !process.env.AWS_LAMBDA_FUNCTION_NAME,
    refusedEndpoints: localServiceEndpoints(),
  };
}

/** The engines of tenants' own services, made for each step that names one (functions/documents/regula-service.ts). */
export const documentServices: DocumentServices = {
  regula: (service, options) => new RegulaDocumentEngine(service, options, judgeMrzLines, guardedFetch, documentServiceGuard()),
};
