import type { ProcessInstanceRecord } from '../process-manager/instances/instances.js';
import type { PageChrome } from './layout.js';

/**
 * The relying party a refused journey link belongs to, for its error page (error-page.ts): set
 * only where the link has proved itself (a switch link or resume link whose secret matched, now
 * used or expired), so a page answered to a link that proves nothing names nobody and wears no
 * theme, and an instance id alone never tells whose journey it is. Kept beside the error, not in
 * it: the errors are the API's too, whose JSON bodies must not change.
 */
export type RelyingPartyChrome = Pick<PageChrome, 'presentation' | 'theme'>;

const RELYING_PARTY = new WeakMap<object, RelyingPartyChrome>();

/** `err`, marked as a refusal of `record`'s journey. */
export function refusalOf<E>(err: E, record: Pick<ProcessInstanceRecord, 'pages'> | undefined): E {
  const presentation = record?.pages?.presentation;
  const theme = record?.pages?.theme;
  if ((presentation || theme) && typeof err === 'object' && err !== null) {
    RELYING_PARTY.set(err, { ...(presentation ? { presentation } : {}), ...(theme ? { theme } : {}) });
  }
  return err;
}

/** The relying party (its presentation and theme) of a refusal marked by `refusalOf`. */
export function relyingPartyOf(err: unknown): RelyingPartyChrome | undefined {
  return typeof err === 'object' && err !== null ? RELYING_PARTY.get(err) : undefined;
}
