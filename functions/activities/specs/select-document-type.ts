import { key, stepTimeout, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'SELECT_DOCUMENT_TYPE',
  displayName: 'Select Document Type',
  kind: 'user',
  description:
    "The end user chooses the identity document they will capture: its type (passport, ID card, driver's licence, other) and the country that issued it, from what the step offers. The choice is kept under Doc Key for the capture and reading steps that follow.",
  inputs: [
    { ...key('Doc Key', 'doc1', 'Where the document is kept (`_documents.{Doc Key}`); the capture and reading steps of this document name the same key.'), family: { name: 'docKey' } },
    {
      name: 'Default Country',
      type: 'S',
      required: false,
      default: 'au',
      check: 'countryCode',
      description: 'The country selected first: an ISO 3166-1 alpha-2 code, in any case (au, NZ). Ignored when the step does not offer it.',
      family: { name: 'defaultCountry' },
    },
    {
      name: 'Document Types',
      type: 'L',
      required: false,
      check: 'documentTypes',
      description: 'The types offered: any of DRIVERS_LICENSE, ID_CARD, PASSPORT, OTHER, in the order shown. All four when not given.',
      family: { name: 'documentTypes' },
    },
    {
      name: 'Countries',
      type: 'S',
      required: false,
      check: 'documentCountries',
      description:
        'Which types each country offers, as JSON: an object from country code (ISO 3166-1 alpha-2, any case) to a list of document types, for example {"AU": ["DRIVERS_LICENSE", "PASSPORT"], "NZ": ["PASSPORT"]}. A country it lists offers those of its types that Document Types has (none left: the country is not offered); a country it does not list offers all of Document Types. Checked at publish.',
      family: { name: 'countries' },
    },
    {
      name: 'Allowed Countries',
      type: 'L',
      required: false,
      check: 'countryCodes',
      description: 'The countries the end user may choose (ISO 3166-1 alpha-2 codes, any case). Every country when not given.',
      family: { name: 'allowedCountries' },
    },
    stepTimeout,
  ],
  rules: [],
  outputs: [
    { name: 'Document type', variable: 'vars._documentType', description: 'PASSPORT, ID_CARD, DRIVERS_LICENSE or OTHER.' },
    { name: 'Document country', variable: 'vars._documentCountry', description: 'The issuing country, ISO 3166-1 alpha-2 in upper case (AU).' },
    { name: 'Document', variable: '_documents.{Doc Key}', description: '{documentType, country, captures}: the captures of an earlier choice of the same key are dropped.' },
  ],
  errorEvents: [],
  family: { beans: ['selectDocumentTypeV1'], endBean: 'selectDocumentTypeEndV1' },
} as const satisfies ActivitySpec;
