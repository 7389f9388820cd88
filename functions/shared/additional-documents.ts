/**
 * The additional documents configuration of Select Additional Document Type V2 (the family's
 * `additionalDocuments` input, JSON): which documents the end user may provide, which are
 * required, how many pages each takes, and how many documents at least. Parsed and judged here,
 * at publish (InputSpec.check) and again when a step begins with a value that was a reference.
 */

/** The most pages one additional document takes (the family's -1, "no maximum", means this). */
export const MAX_ADDITIONAL_DOCUMENT_PAGES = 20;
/** The most documents one configuration offers: a page of choices, not a catalogue. */
export const MAX_ADDITIONAL_DOCUMENTS = 30;

/** A text of the configuration: plain, or by language (`{"values": {"en": "..."}}`). */
export type LocalText = string | { values: Record<string, string> };

export interface AdditionalDocument {
  id: string;
  required: boolean;
  title: LocalText;
  subtitle?: LocalText;
  instructions: LocalText[];
  /** Pages the end user may send: within minPages..maxPages (maxPages MAX_ADDITIONAL_DOCUMENT_PAGES when not bounded). */
  pages: { bounded: boolean; minPages: number; maxPages: number };
}

export interface AdditionalDocumentsConfig {
  /** In the configuration's order. */
  documents: AdditionalDocument[];
  minAdditionalDocuments: number;
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function localText(v: unknown): LocalText | undefined {
  if (typeof v === 'string') return v.length > 0 && v.length <= 2000 ? v : undefined;
  if (!isObject(v) || !isObject(v.values)) return undefined;
  const values = Object.entries(v.values);
  if (values.length === 0 || values.some(([lang, text]) => !/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/.test(lang) || typeof text !== 'string' || text.length > 2000)) return undefined;
  return { values: Object.fromEntries(values) as Record<string, string> };
}

/** A text in `lang`: its own, else English, else the first it has. */
export function textIn(text: LocalText | undefined, lang: string): string {
  if (text === undefined) return '';
  if (typeof text === 'string') return text;
  return text.values[lang] ?? text.values.en ?? Object.values(text.values)[0] ?? '';
}

const wholeNumber = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

function pagesOf(id: string, v: unknown): AdditionalDocument['pages'] | string {
  if (v === undefined) return { bounded: false, minPages: 1, maxPages: MAX_ADDITIONAL_DOCUMENT_PAGES };
  if (!isObject(v)) return `document "${id}": pages must be an object {bounded, minPages, maxPages}`;
  if (v.bounded !== undefined && typeof v.bounded !== 'boolean') return `document "${id}": pages.bounded must be true or false`;
  if (v.bounded !== true) return { bounded: false, minPages: 1, maxPages: MAX_ADDITIONAL_DOCUMENT_PAGES };
  const min = v.minPages ?? 1;
  // The family writes maxPages -1 for "no maximum": this service's most, then.
  const max = v.maxPages === undefined || v.maxPages === -1 ? MAX_ADDITIONAL_DOCUMENT_PAGES : v.maxPages;
  const range = `a whole number from 1 to ${MAX_ADDITIONAL_DOCUMENT_PAGES}`;
  if (!wholeNumber(min) || min < 1 || min > MAX_ADDITIONAL_DOCUMENT_PAGES) return `document "${id}": pages.minPages must be ${range}`;
  if (!wholeNumber(max) || max < 1 || max > MAX_ADDITIONAL_DOCUMENT_PAGES) return `document "${id}": pages.maxPages must be ${range} (or -1: no maximum)`;
  if (min > max) return `document "${id}": pages.minPages (${min}) is more than pages.maxPages (${max})`;
  return { bounded: true, minPages: min, maxPages: max };
}

/** The configuration from its JSON text, or why it is refused (after the input's name). */
export function parseAdditionalDocuments(text: string): AdditionalDocumentsConfig | { problem: string } {
  const problem = (p: string) => ({ problem: p });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return problem('must be JSON: {"additionalDocuments": {...}, "requirements": {"minAdditionalDocuments": 0}}');
  }
  if (!isObject(json) || !isObject(json.additionalDocuments)) return problem('must be an object with "additionalDocuments", an object from document id to document');
  const entries = Object.entries(json.additionalDocuments);
  if (entries.length === 0) return problem('offers no document: "additionalDocuments" is empty');
  if (entries.length > MAX_ADDITIONAL_DOCUMENTS) return problem(`offers ${entries.length} documents, more than ${MAX_ADDITIONAL_DOCUMENTS}`);
  const documents: AdditionalDocument[] = [];
  const seen = new Set<string>();
  for (const [key, v] of entries) {
    if (!ID.test(key)) return problem(`names the document "${key.slice(0, 70)}": an id is 1 to 64 letters, digits, _ or -`);
    if (!isObject(v)) return problem(`document "${key}" must be an object`);
    const id = v.id ?? key;
    if (id !== key) return problem(`document "${key}" has the id "${String(id).slice(0, 70)}": an id must match its key`);
    // Keys of one JSON object are unique by then; ids that differ only in case would share a storage path's meaning.
    if (seen.has(key.toLowerCase())) return problem(`names the document "${key}" twice (ids are compared without case)`);
    seen.add(key.toLowerCase());
    if (v.required !== undefined && typeof v.required !== 'boolean') return problem(`document "${key}": required must be true or false`);
    const title = localText(v.title);
    if (!title) return problem(`document "${key}": title must be a text or {"values": {"en": "..."}}`);
    const subtitle = v.subtitle === undefined ? undefined : localText(v.subtitle);
    if (v.subtitle !== undefined && !subtitle) return problem(`document "${key}": subtitle must be a text or {"values": {"en": "..."}}`);
    const rawInstructions = v.instructions === undefined ? [] : Array.isArray(v.instructions) ? v.instructions : [v.instructions];
    const instructions = rawInstructions.map(localText);
    if (instructions.some((i) => i === undefined)) return problem(`document "${key}": each instruction must be a text or {"values": {"en": "..."}}`);
    const pages = pagesOf(key, v.pages);
    if (typeof pages === 'string') return problem(pages);
    documents.push({ id: key, required: v.required === true, title, ...(subtitle ? { subtitle } : {}), instructions: instructions as LocalText[], pages });
  }
  const requirements = json.requirements ?? {};
  if (!isObject(requirements)) return problem('"requirements" must be an object {"minAdditionalDocuments": n}');
  const min = requirements.minAdditionalDocuments ?? 0;
  if (!wholeNumber(min) || min < 0) return problem('requirements.minAdditionalDocuments must be a whole number, 0 or more');
  if (min > documents.length) return problem(`requirements.minAdditionalDocuments (${min}) is more than the ${documents.length} document${documents.length === 1 ? '' : 's'} offered`);
  return { documents, minAdditionalDocuments: min };
}

/** One document provided, as the session keeps it under `_additionalDocuments.{Add Doc Key}.documents.{id}`. */
export interface AdditionalDocumentCapture {
  captureId: string;
  /** PDF: one file of `pages` pages; JPEG or PNG: one capture per page. */
  format: 'JPEG' | 'PNG' | 'PDF';
  pages: { captureId: string; page: number; format: 'JPEG' | 'PNG' | 'PDF'; bytes: number; sha256: string; width?: number; height?: number }[];
  pageCount: number;
  capturedAt: string;
}

/** What the additional document steps of one Add Doc Key keep: `_additionalDocuments.{addDocKey}`. */
export interface AdditionalDocumentsSession {
  /** The document chosen last (Select Additional Document Type V2), captured next. */
  selected?: string;
  /** The end user said they have no more to give. */
  finished?: boolean;
  documents?: Record<string, AdditionalDocumentCapture>;
}

/** Where the session is, for an Add Doc Key. */
export function additionalSession(session: Readonly<Record<string, unknown>>, addDocKey: string): AdditionalDocumentsSession {
  const all = session._additionalDocuments;
  if (!isObject(all) || !Object.hasOwn(all, addDocKey)) return {};
  const mine = all[addDocKey];
  return isObject(mine) ? (mine as AdditionalDocumentsSession) : {};
}

/** Whether the requirements are met by the documents captured: every required one, and at least the least. */
export function requirementsMet(config: AdditionalDocumentsConfig, captured: ReadonlySet<string>): boolean {
  const offered = config.documents.filter((d) => captured.has(d.id));
  return config.documents.every((d) => !d.required || captured.has(d.id)) && offered.length >= config.minAdditionalDocuments;
}

/**
 * The configuration of a step's inputs. A value the publish could not check (a reference) that
 * is no valid configuration fails the step when it begins (InvalidInput), so a view has a valid one.
 */
export function configOf(activityName: string, activityId: string, value: unknown, fail: (message: string) => Error): AdditionalDocumentsConfig {
  const parsed = parseAdditionalDocuments(typeof value === 'string' ? value : JSON.stringify(value ?? null));
  if ('problem' in parsed) throw fail(`${activityName} ${activityId}: Additional Documents ${parsed.problem}`);
  return parsed;
}

/** The ids captured so far under an Add Doc Key. */
export function capturedIds(session: Readonly<Record<string, unknown>>, addDocKey: string): Set<string> {
  return new Set(Object.keys(additionalSession(session, addDocKey).documents ?? {}));
}

