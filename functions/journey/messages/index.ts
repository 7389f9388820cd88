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

/** A language tag's language, if the pages have it (`de-DE` → `de`). */
function known(tag: string): Language | undefined {
  const base = tag.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return Object.hasOwn(BUNDLES, base) ? (base as Language) : undefined;
}

/**
 * The browser's preferred language the pages have, from an `Accept-Language` header (RFC 9110
 * 12.5.4): tags by weight, the first listed first among equals; `q=0` means "not this one".
 */
export function acceptedLanguage(header: string | undefined): Language | undefined {
  if (!header) return undefined;
  const ranked = header
    .slice(0, 1000)
    .split(',')
    .slice(0, 50)
    .map((part, i) => {
      const [tag = '', ...params] = part.split(';');
      const q = params.map((p) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p)).find(Boolean);
      return { tag, q: q ? Number(q[1]) : 1, i };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranked) {
    const lang = known(r.tag);
    if (lang) return lang;
  }
  return undefined;
}

/**
 * The end user's language: the link's `lang` (a regional tag falls back to its language), else
 * the browser's `Accept-Language`, English otherwise.
 */
export function pickLanguage(lang: string | undefined, acceptLanguage?: string): Language {
  return known(lang ?? '') ?? acceptedLanguage(acceptLanguage) ?? 'en';
}

export function messages(lang: Language): Messages {
  return BUNDLES[lang];
}

/** A message with its `{n}` filled in. */
export function fill(text: string, n: number | undefined): string {
  return n === undefined ? text : text.replace('{n}', String(n));
}
