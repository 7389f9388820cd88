/**
 * How a journey's pages present the relying party: its name, logo and support contact, and where
 * its privacy notice is. A documented optional member of a process definition (`presentation`);
 * a theme (themeId) may later give the same fields, so the pages read a `Presentation` and never
 * where it came from (see `resolvePresentation`).
 */
import * as z from '../functions/shared/zod.js';
import { text } from '../functions/shared/schemas.js';

export const MAX_PRESENTATION_URL_LENGTH = 2048;

/**
 * An https URL with a host and no credentials. https only: a page served over https that shows an
 * http logo is mixed content, and a link to a notice must not be downgraded; `javascript:` and
 * `data:` can never reach an attribute.
 */
export function isHttpsUrl(value: string): boolean {
  if (value.length > MAX_PRESENTATION_URL_LENGTH) return false;
  try {
    const u = new URL(value);
    return u.protocol === 'https:' && !!u.hostname && !u.username && !u.password;
  } catch {
    return false;
  }
}

const HttpsUrl = z.withMeta(
  z.string().check(z.refine(isHttpsUrl, { message: `must be an https URL with a host and no credentials, at most ${MAX_PRESENTATION_URL_LENGTH} characters` })),
  { format: 'uri', maxLength: MAX_PRESENTATION_URL_LENGTH },
);

/** A plain address (`name@example.com`): no display name, no comments, nothing a `mailto:` link could carry beyond it. */
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export const PresentationSchema = z.withMeta(
  z.strictObject({
    name: z.withMeta(text(1, 100), { description: 'The relying party as the end user knows it: shown on every page, and named as who receives the data of a face capture.' }),
    logoUrl: z.withMeta(z.optional(HttpsUrl), {
      description: 'Its logo (an image the browser loads from this https URL, with no Referer), shown beside the name at most 40 px high.',
    }),
    supportEmail: z.withMeta(z.optional(z.string().check(z.maxLength(254), z.regex(EMAIL, 'must be an email address such as help@example.com'))), {
      description: 'Where end users ask for help: shown on every page.',
    }),
    supportUrl: z.withMeta(z.optional(HttpsUrl), { description: 'A help page, shown on every page.' }),
    privacyUrl: z.withMeta(z.optional(HttpsUrl), {
      description: "The relying party's privacy notice: linked on every page and from the notice before a face capture.",
    }),
  }),
  {
    id: 'JourneyPresentation',
    description: "How the journey pages present the relying party. Without it, the pages name no relying party and the face capture's notice says 'the organisation that sent you this link'.",
  },
);

export type Presentation = z.infer<typeof PresentationSchema>;

/**
 * The presentation the pages use: the first source that has one, in order (the definition's own
 * today; a theme's and a tenant default are further sources once they exist).
 */
export function resolvePresentation(...sources: (Presentation | undefined | null)[]): Presentation | undefined {
  return sources.find((s): s is Presentation => !!s);
}
