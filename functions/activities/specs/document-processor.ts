import { docKey, errorScreen, exceptionOnMaxAttempts, imageProfile, maxAttempts, serviceId } from '../document-spec.js';
import type { ActivitySpec } from '../spec.js';

export const spec = {
  type: 'DOCUMENT_PROCESSOR',
  displayName: 'Document Processor',
  kind: 'service',
  description:
    "Reads the captured document: its MRZ (ICAO 9303 TD1, TD2 or TD3) located, read and judged by its check digits, and the fields it gives, by the family's names (`documentFirstName`, `documentLastName`, `documentNumber`, `documentDateOfBirth`, ...) in `_idDocs.{Document Key}.fields` for forms, gateways and functions; the check in `_checks.documents.{Document Key}.reading`. No MRZ found, or a check digit that does not match, raises \"Failed Document Processing\" (\"Exceeded Failed Document Processor\" once failed attempts exceed Max Attempts). The family's Regula Document Processor 7.1 V2 steps read through the tenant's own Regula Document Reader service when the tenant holds a cloud secret named as the step's Service ID (its value the service's URL, or JSON with `url` and `authorization`), else on the deployment's document engine (docs/documents.md, \"Engines\"). A service that cannot be used as configured fails the step (DocumentServiceUnusable); one that does not answer, or answers 429 or 5xx, is tried again.",
  inputs: [
    docKey,
    imageProfile('Cropped'),
    maxAttempts,
    exceptionOnMaxAttempts,
    errorScreen,
    {
      ...serviceId,
      description:
        "The family's service name (`docprocessor-regula-71`). When the tenant holds a cloud secret of this name, the step reads through the Regula Document Reader service it describes: the service's base URL, or JSON `{\"url\": ..., \"authorization\": ...}`. Otherwise the deployment's engine reads. Recorded in the check.",
    },
    {
      name: 'Scenario',
      type: 'S',
      required: false,
      default: 'FullProcess',
      enum: ['FullProcess', 'DocType', 'FullAuth', 'Mrz', 'Ocr'],
      description: "Regula's scenario. Here: Mrz reads the MRZ alone; the others read the MRZ and the fields the engine finds in the visual zone. FullAuth's authenticity checks are the detection steps' (docs/documents.md).",
      family: { name: 'scenario' },
    },
    {
      name: 'Original Response Enabled',
      type: 'B',
      required: false,
      default: false,
      description: "True: the engine's own answer (the MRZ lines as read, the fields with their confidence) is kept in the check's details.",
      family: { name: 'originalResponseEnabled' },
    },
    {
      name: 'Measure System',
      type: 'S',
      required: false,
      default: 'METRIC',
      enum: ['METRIC', 'IMPERIAL'],
      description: 'How read measures (height, weight) would be written: the MRZ has none, so it changes nothing the embedded engine reads.',
      family: { name: 'measureSystem' },
    },
  ],
  rules: [],
  failures: ['DocumentServiceUnusable'],
  outputs: [
    { name: 'Document fields', variable: '_idDocs.{Document Key}.fields', description: 'documentFirstName, documentLastName, documentNumber, documentDateOfBirth, documentDateOfExpiry (YYYY-MM-DD), documentType, documentClassification, documentIssuingCountryCode, documentNationality, documentSex' },
    { name: 'Reading check', variable: '_checks.documents.{Document Key}.reading', description: '{result, mrz: {format, valid, checkDigits}, engine}' },
  ],
  errorEvents: [
    { name: 'Failed Document Processing', aslError: 'DocumentProcessingFailed', code: 'failedDocumentProcessing', description: 'No MRZ was found, or a check digit does not match.' },
    { name: 'Exceeded Failed Document Processor', aslError: 'DocumentProcessingAttemptsExceeded', code: 'exceededFailedDocumentProcessor', description: 'Failed attempts exceed Max Attempts (with Exception On Max Attempts Exceeded).' },
  ],
  family: { beans: ['regulaDocumentProcessorV2'], palette: 'DPREG7102', displayName: 'Regula Document Processor 7.1 V2' },
} as const satisfies ActivitySpec;
