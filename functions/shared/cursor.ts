import { createHash } from 'node:crypto';
import { InvalidCursorError } from '../errors.js';

/**
 * The cursors of the paged lists (a page's `nextCursor`, sent back as `cursor`).
 *
 * A cursor is `c1.{payload}.{check}`: the payload (base64url JSON) holds the position (the sort
 * key of the last item the page returned, inside its list's key range) and, for lists whose
 * total is counted rather than kept, what the first page counted; the check is a SHA-256 over
 * the payload and what the cursor is bound to: the tenant, the list, its scope (a definition
 * name, a store and user) and the query's filters and sort. So a cursor changed by hand, cut
 * short, or sent to another tenant, list, user or query is refused (400 INVALID_CURSOR), never
 * read as a position somewhere else.
 *
 * The check is not a secret MAC (the service has no secret to spend on it): someone who reads
 * this code can make a cursor that passes. That is harmless by construction, which is what
 * keeps tenants apart: the partition a page reads is always the request's tenant's, built from
 * the verified host and token, never from the cursor, and each store takes a position only
 * inside its list's key range (its prefix and shape, `isPosition`), so a cursor can at most
 * start a page somewhere in a list its caller may read from the start anyway.
 */
export interface CursorBinding {
  tenantId: string;
  /** The list: `apiKeys`, `processTokens`, ... */
  list: string;
  /** What inside the tenant the list is of (a definition name, a store and user id). */
  scope?: readonly string[];
  /** The query's filters and sort, which a cursor's later pages must repeat. */
  query?: unknown;
}

export interface CursorState {
  /** The position after which the next page starts (the store's sort key of the last item). */
  after: string;
  /** The total the first page counted, for lists that count rather than keep a counter. */
  total?: number | undefined;
  /** Whether that count stopped at its cap (a lower bound). */
  capped?: boolean | undefined;
}

const VERSION = 'c1';
/** Cursors are query parameters; the route schemas take at most this many characters. */
export const MAX_CURSOR_LENGTH = 1024;

function check(binding: CursorBinding, payload: string): string {
  const bound = JSON.stringify([VERSION, binding.tenantId, binding.list, binding.scope ?? [], binding.query ?? null, payload]);
  return createHash('sha256').update(bound, 'utf8').digest('base64url').slice(0, 22);
}

export function encodeCursor(binding: CursorBinding, state: CursorState): string {
  const body: unknown[] = [state.after];
  if (state.total !== undefined) body.push(state.total, state.capped ? 1 : 0);
  const payload = Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
  return `${VERSION}.${payload}.${check(binding, payload)}`;
}

/**
 * The state a cursor carries, once its check holds for this binding and its position is one of
 * the list's (`isPosition`); else 400 INVALID_CURSOR at `where`.
 */
export function decodeCursor(binding: CursorBinding, value: string, isPosition: (at: string) => boolean, where = 'query.cursor'): CursorState {
  const refuse = (message: string) => new InvalidCursorError(undefined, [{ location: where, message }]);
  const parts = value.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION || !/^[A-Za-z0-9_-]+$/.test(parts[1]!)) throw refuse('not a cursor this service gave');
  const [, payload, given] = parts as [string, string, string];
  if (given !== check(binding, payload)) {
    throw refuse("not this list's cursor for this query: send it with the same filters and sort as the page that gave it, to the same tenant");
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw refuse('not a cursor this service gave');
  }
  if (!Array.isArray(body) || (body.length !== 1 && body.length !== 3) || typeof body[0] !== 'string' || !isPosition(body[0])) {
    throw refuse('not a cursor this service gave');
  }
  if (body.length === 1) return { after: body[0] };
  const [after, total, capped] = body as [string, unknown, unknown];
  if (!Number.isSafeInteger(total) || (total as number) < 0 || (capped !== 0 && capped !== 1)) throw refuse('not a cursor this service gave');
  return { after, total: total as number, capped: capped === 1 };
}
