import type { Presentation } from '../../statemachines/presentation.js';
import type { ProcessInstanceRecord } from '../process-manager/instances/instances.js';

/**
 * The relying party a refused journey link belongs to, for its error page (error-page.ts): set
 * only where the link has proved itself (a switch link or resume link whose secret matched, now
 * used or expired), so a page answered to a link that proves nothing names nobody, and an
 * instance id alone never tells whose journey it is. Kept beside the error, not in it: the
 * errors are the API's too, whose JSON bodies must not change.
 */
const RELYING_PARTY = new WeakMap<object, Presentation>();

/** `err`, marked as a refusal of `record`'s journey. */
export function refusalOf<E>(err: E, record: Pick<ProcessInstanceRecord, 'pages'> | undefined): E {
  const presentation = record?.pages?.presentation;
  if (presentation && typeof err === 'object' && err !== null) RELYING_PARTY.set(err, presentation);
  return err;
}

/** The relying party of a refusal marked by `refusalOf`. */
export function relyingPartyOf(err: unknown): Presentation | undefined {
  return typeof err === 'object' && err !== null ? RELYING_PARTY.get(err) : undefined;
}
