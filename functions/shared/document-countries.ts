/**
 * Countries and document types for Select Document Type: the ISO 3166-1 alpha-2 codes, and the
 * step's `countries` configuration (which document types each country offers), checked the same
 * way when a definition is published (statemachines/validate.ts, through input-checks.ts) and
 * when the step begins. Names come from the runtime's CLDR data (Intl.DisplayNames), in the
 * page's language.
 */

/** The family's document types (functions/documents/model.ts DOCUMENT_TYPES, which a unit test holds equal). */
export const DOCUMENT_TYPE_NAMES = ['PASSPORT', 'ID_CARD', 'DRIVERS_LICENSE', 'OTHER'] as const;
export type DocumentTypeName = (typeof DOCUMENT_TYPE_NAMES)[number];

/**
 * The 249 officially assigned ISO 3166-1 alpha-2 codes (ISO 3166 Maintenance Agency). Intl knows
 * more region codes (EU, UN, the withdrawn YU and the user-assigned XK among them): a country a
 * document is issued by is one of these.
 */
const ASSIGNED = `AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ
BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR
CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR
GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU
ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ
LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ
MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF
PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI
SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR
TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW`;

export const COUNTRY_CODES: readonly string[] = ASSIGNED.split(/\s+/);
const ASSIGNED_SET = new Set(COUNTRY_CODES);

/** An assigned alpha-2 code, upper case, from any case (`au` → `AU`); undefined otherwise. */
export function countryCode(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const code = value.trim().toUpperCase();
  return ASSIGNED_SET.has(code) ? code : undefined;
}

/** A country's name in `lang` (the runtime's CLDR data), or its code where the runtime has none. */
export function countryName(code: string, lang: string): string {
  try {
    return new Intl.DisplayNames([lang, 'en'], { type: 'region', fallback: 'code' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** A document type from its name in any case; undefined when it is none of the family's. */
export function documentTypeName(value: unknown): DocumentTypeName | undefined {
  if (typeof value !== 'string') return undefined;
  const upper = value.trim().toUpperCase();
  return (DOCUMENT_TYPE_NAMES as readonly string[]).includes(upper) ? (upper as DocumentTypeName) : undefined;
}

/** The most countries a configuration lists (there are 249). */
export const MAX_CONFIGURED_COUNTRIES = COUNTRY_CODES.length;

/**
 * The `countries` configuration: a JSON object from country code (ISO 3166-1 alpha-2, any case)
 * to the document types that country offers, for example
 * `{"AU": ["DRIVERS_LICENSE", "PASSPORT"], "NZ": ["PASSPORT"]}`. A country it lists offers its
 * types (within the step's documentTypes); one it does not list offers all of documentTypes.
 * Empty text: no configuration. Returns the configuration with upper-case codes, or why it is
 * refused (the first problem found).
 */
export function parseDocumentCountries(text: string): { countries: Record<string, DocumentTypeName[]> } | { problem: string } {
  if (text.trim() === '') return { countries: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: 'must be JSON: an object from country code to a list of document types' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { problem: 'must be a JSON object from country code to a list of document types' };
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (entries.length > MAX_CONFIGURED_COUNTRIES) return { problem: `must list at most ${MAX_CONFIGURED_COUNTRIES} countries` };
  const countries: Record<string, DocumentTypeName[]> = {};
  for (const [key, types] of entries) {
    const code = countryCode(key);
    if (!code) return { problem: `names "${key.slice(0, 20)}", which is not an ISO 3166-1 alpha-2 country code` };
    if (Object.hasOwn(countries, code)) return { problem: `lists ${code} twice` };
    if (!Array.isArray(types) || types.length === 0) return { problem: `must give ${code} a non-empty list of document types` };
    const named: DocumentTypeName[] = [];
    for (const t of types) {
      const type = documentTypeName(t);
      if (!type) return { problem: `gives ${code} "${String(t).slice(0, 20)}", which is not one of ${DOCUMENT_TYPE_NAMES.join(', ')}` };
      if (!named.includes(type)) named.push(type);
    }
    countries[code] = named;
  }
  return { countries };
}

/** What Select Document Type offers: the countries (codes, in the order given) and the types each offers. */
export interface DocumentChoices {
  /** The types offered where no configuration says otherwise (the step's documentTypes). */
  types: DocumentTypeName[];
  /** Every country the end user may choose, and the types it offers (never empty). */
  countries: Record<string, DocumentTypeName[]>;
  /** The country first selected: the step's defaultCountry when it may be chosen. */
  defaultCountry?: string;
}

/**
 * The step's choices from its inputs: documentTypes (all four when empty), allowedCountries (all
 * when empty), the countries configuration, defaultCountry. A country whose configured types
 * leave none of documentTypes is not offered. Refused (a problem) when nothing can be chosen.
 */
export function documentChoices(input: {
  documentTypes?: readonly string[] | undefined;
  allowedCountries?: readonly string[] | undefined;
  countries?: string | undefined;
  defaultCountry?: string | undefined;
}): DocumentChoices | { problem: string } {
  const types: DocumentTypeName[] = [];
  for (const t of input.documentTypes ?? []) {
    const type = documentTypeName(t);
    if (!type) return { problem: `Document Types names "${String(t).slice(0, 20)}", which is not one of ${DOCUMENT_TYPE_NAMES.join(', ')}` };
    if (!types.includes(type)) types.push(type);
  }
  if (types.length === 0) types.push(...DOCUMENT_TYPE_NAMES);
  const config = parseDocumentCountries(input.countries ?? '');
  if ('problem' in config) return { problem: `Countries ${config.problem}` };
  const allowed: string[] = [];
  for (const c of input.allowedCountries ?? []) {
    const code = countryCode(c);
    if (!code) return { problem: `Allowed Countries names "${String(c).slice(0, 20)}", which is not an ISO 3166-1 alpha-2 country code` };
    if (!allowed.includes(code)) allowed.push(code);
  }
  const countries: Record<string, DocumentTypeName[]> = {};
  for (const code of allowed.length ? allowed : COUNTRY_CODES) {
    const offered = Object.hasOwn(config.countries, code) ? config.countries[code]!.filter((t) => types.includes(t)) : types;
    if (offered.length) countries[code] = offered;
  }
  if (Object.keys(countries).length === 0) return { problem: 'no country offers any of the Document Types' };
  let defaultCountry: string | undefined;
  if (input.defaultCountry !== undefined && input.defaultCountry.trim() !== '') {
    defaultCountry = countryCode(input.defaultCountry);
    if (!defaultCountry) return { problem: 'Default Country is not an ISO 3166-1 alpha-2 country code' };
  }
  return { types, countries, ...(defaultCountry && Object.hasOwn(countries, defaultCountry) ? { defaultCountry } : {}) };
}
