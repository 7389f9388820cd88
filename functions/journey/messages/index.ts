import { en, type Messages } from './en.js';
import { de } from './de.js';

export type { Messages };

/** Every language of the journey pages: a new language is its file and one line here. */
const BUNDLES = {
  en,
  de,
} satisfies Record<string, Messages>;

export type Language = keyof typeof BUNDLES;
// Pure: a bundle that does not list the languages leaves this out.
export const LANGUAGES = /* @__PURE__ */ Object.keys(BUNDLES) as readonly Language[];

/** The end user's language from `lang` (a regional tag falls back to its language), English otherwise. */
export function pickLanguage(lang: string | undefined): Language {
  const base = (lang ?? '').toLowerCase().split(/[-_]/)[0] ?? '';
  return Object.hasOwn(BUNDLES, base) ? (base as Language) : 'en';
}

export function messages(lang: Language): Messages {
  return BUNDLES[lang];
}

/** A message with its `{n}` filled in. */
export function fill(text: string, n: number | undefined): string {
  return n === undefined ? text : text.replace('{n}', String(n));
}
