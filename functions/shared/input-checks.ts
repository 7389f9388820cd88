/**
 * Checks of an input's literal value beyond its type, named by an activity spec (`check` on the
 * input): a definition whose value fails one is refused at publish (statemachines/validate.ts),
 * and the step's module runs the same check on a value that was a reference. Each returns why the
 * value is refused (after the input's name), or undefined.
 */
import { parseAdditionalDocuments } from './additional-documents.js';
import { countryCode, documentTypeName, DOCUMENT_TYPE_NAMES, parseDocumentCountries } from './document-countries.js';

export const INPUT_CHECKS = {
  /** An ISO 3166-1 alpha-2 country code, in any case. */
  countryCode: (value: unknown) => (value === '' || countryCode(value) ? undefined : 'must be an ISO 3166-1 alpha-2 country code (au, NZ, ...)'),
  /** A list of ISO 3166-1 alpha-2 country codes. */
  countryCodes: (value: unknown) => {
    const bad = Array.isArray(value) ? value.find((v) => !countryCode(v)) : undefined;
    return bad === undefined ? undefined : `names "${String(bad).slice(0, 20)}", which is not an ISO 3166-1 alpha-2 country code`;
  },
  /** A list of the family's document types. */
  documentTypes: (value: unknown) => {
    const bad = Array.isArray(value) ? value.find((v) => !documentTypeName(v)) : undefined;
    return bad === undefined ? undefined : `names "${String(bad).slice(0, 20)}", which is not one of ${DOCUMENT_TYPE_NAMES.join(', ')}`;
  },
  /** Select Document Type's countries configuration (document-countries.ts). */
  documentCountries: (value: unknown) => {
    if (typeof value !== 'string') return undefined;
    const parsed = parseDocumentCountries(value);
    return 'problem' in parsed ? parsed.problem : undefined;
  },
  /** The additional documents configuration (additional-documents.ts). */
  additionalDocuments: (value: unknown) => {
    if (typeof value !== 'string') return undefined;
    const parsed = parseAdditionalDocuments(value);
    return 'problem' in parsed ? parsed.problem : undefined;
  },
} as const satisfies Record<string, (value: unknown) => string | undefined>;

export type InputCheckName = keyof typeof INPUT_CHECKS;
