/**
 * Face watchlists: a tenant's lists of labelled faces (people to stop, or to recognise), which a
 * Watchlist Match step searches with the live face. The engine keeps each face's template (one
 * Rekognition collection per watchlist, `{prefix}.{tenant}.{watchlistId}`); the table keeps the
 * watchlist and its members' labels. The member's image itself is not kept: only its template,
 * and what the image was (format, size, SHA-256), so a relying party can tell which it sent.
 */
import { createHash, randomUUID } from 'node:crypto';
import { FaceImageUnusableError, ValidationError, WatchlistFullError, WatchlistLimitError, WatchlistMemberNotFoundError, WatchlistNotFoundError } from '../errors.js';
import { inspectFaceImage } from '../journey/face-capture.js';
import { MAX_FACE_IMAGE_BYTES } from '../journey/face-limits.js';
import { parseSort, sortBy, toPage } from '../shared/page.js';
import { imageRefusal, isMissingCollection, type FaceEngine, type WatchlistMemberRecord, type WatchlistRecord, type WatchlistStore } from './model.js';

/** The most members a watchlist holds (Rekognition's collections hold millions; a page of members is read whole). */
export const MAX_WATCHLIST_MEMBERS = 1000;
/** The most watchlists a tenant has. */
export const MAX_WATCHLISTS = 100;

export interface WatchlistDeps {
  watchlists: WatchlistStore;
  engine: Pick<FaceEngine, 'detect' | 'createWatchlist' | 'deleteWatchlist' | 'addMember' | 'removeMember'>;
}

interface Paged {
  page: number;
  size: number;
  sort: string[];
}

/** A watchlist as the API answers it, with the fields the family's clients read. */
export function watchlistView({ tenantId: _t, ...r }: WatchlistRecord) {
  return { ...r, status: 'ACTIVE' as const, type: 'FACEV6' as const, maxSize: MAX_WATCHLIST_MEMBERS, numMembers: r.memberCount };
}

export function memberView({ tenantId: _t, faceId: _f, ...m }: WatchlistMemberRecord) {
  return m;
}

export async function createWatchlist(
  d: WatchlistDeps,
  body: { name: string; description?: string | null | undefined },
  at: { tenantId: string; actor: string; now: Date },
): Promise<WatchlistRecord> {
  const record: WatchlistRecord = {
    tenantId: at.tenantId,
    id: randomUUID(),
    name: body.name,
    description: body.description ?? '',
    memberCount: 0,
    createdDtm: at.now.toISOString(),
    createdBy: at.actor,
  };
  // The collection first: a watchlist that is listed can always be searched. A tenant at its
  // limit is found by the write, which counts the watchlist in the same transaction.
  const ref = { tenantId: at.tenantId, watchlistId: record.id };
  await d.engine.createWatchlist(ref);
  let outcome: 'created' | 'full' | undefined;
  try {
    outcome = await d.watchlists.create(record, MAX_WATCHLISTS);
  } finally {
    // Not listed (refused, or the write failed): no collection is left behind.
    if (outcome !== 'created') await d.engine.deleteWatchlist(ref).catch(() => undefined);
  }
  if (outcome === 'full') throw new WatchlistLimitError(`A tenant may have at most ${MAX_WATCHLISTS} face watchlists; delete one first.`);
  return record;
}

export async function getWatchlist(d: Pick<WatchlistDeps, 'watchlists'>, tenantId: string, id: string): Promise<WatchlistRecord> {
  const found = await d.watchlists.get(tenantId, id);
  if (!found) throw new WatchlistNotFoundError();
  return found;
}

const WATCHLIST_SORTABLE = ['name', 'createdDtm', 'memberCount'] as const;
const MEMBER_SORTABLE = ['label', 'createdDtm'] as const;

function orders<K extends string>(sort: string[], allowed: readonly K[]) {
  const { orders: parsed, errors } = parseSort(sort, allowed);
  if (errors.length) throw new ValidationError('Invalid sort.', errors.map((message) => ({ location: 'query.sort', message })));
  return parsed;
}

/** The tenant's watchlists, a page at a time; unsorted pages come oldest first. */
export async function watchlistsPage(d: Pick<WatchlistDeps, 'watchlists'>, tenantId: string, query: Paged) {
  const by = orders(query.sort, WATCHLIST_SORTABLE);
  const all = sortBy(await d.watchlists.list(tenantId), [...by, { property: 'createdDtm', direction: 'asc' }], (r, k) => r[k]);
  return toPage(all.map(watchlistView), query.page, query.size, by.length > 0);
}

/** A watchlist's members, a page at a time; unsorted pages come oldest first. */
export async function membersPage(d: Pick<WatchlistDeps, 'watchlists'>, tenantId: string, watchlistId: string, query: Paged) {
  await getWatchlist(d, tenantId, watchlistId);
  const by = orders(query.sort, MEMBER_SORTABLE);
  const all = sortBy(await d.watchlists.listMembers(tenantId, watchlistId), [...by, { property: 'createdDtm', direction: 'asc' }], (r, k) => r[k]);
  return toPage(all.map(memberView), query.page, query.size, by.length > 0);
}

/**
 * The watchlist, its templates in the engine and its members: the members' items first, then the
 * collection, then the watchlist itself, so that a delete that fails partway is still listed and
 * the same DELETE again finishes it (a search or add meanwhile finds the collection gone: 404).
 */
export async function deleteWatchlist(d: WatchlistDeps, tenantId: string, id: string): Promise<void> {
  await getWatchlist(d, tenantId, id);
  await d.watchlists.delete(tenantId, id);
  await d.engine.deleteWatchlist({ tenantId, watchlistId: id });
  await d.watchlists.deleteRecord(tenantId, id);
}

/**
 * A labelled face added: the image must be a JPEG or PNG (judged by its bytes) of at most 3 MiB
 * with exactly one face; its template goes into the watchlist's collection under the member's
 * id, and the member into the table. A template whose member could not be written (the
 * watchlist filled up or went meanwhile) is taken out again.
 */
export async function addMember(
  d: WatchlistDeps,
  tenantId: string,
  watchlistId: string,
  body: { label: string; image: string },
  at: { actor: string; now: Date },
): Promise<WatchlistMemberRecord> {
  await getWatchlist(d, tenantId, watchlistId);
  // A full watchlist is found by the member's write, which counts it in the same transaction.
  const bytes = Buffer.from(body.image, 'base64');
  // Judged by its header here; the engine decodes it (Rekognition on AWS), so this function needs no memory for its pixels.
  const image = inspectFaceImage(bytes, MAX_FACE_IMAGE_BYTES, false);
  if ('problem' in image) throw unusable(IMAGE_PROBLEMS[image.problem]);
  const ref = { tenantId, watchlistId };
  const id = randomUUID();
  const indexed = await engineCall(async () => {
    const { faces } = await d.engine.detect({ bytes });
    if (faces.length !== 1) throw unusable(faces.length === 0 ? 'no face was found' : `${faces.length} faces were found; a member's image shows one`);
    return d.engine.addMember(ref, id, { bytes });
  });
  if (!indexed) throw unusable('the face engine could not make a template of the face');
  const member: WatchlistMemberRecord = {
    tenantId,
    watchlistId,
    id,
    label: body.label,
    faceId: indexed.faceId,
    image: { format: image.format, width: image.width, height: image.height, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') },
    createdDtm: at.now.toISOString(),
    createdBy: at.actor,
  };
  let outcome: Awaited<ReturnType<WatchlistStore['addMember']>> | undefined;
  try {
    outcome = await d.watchlists.addMember(member, MAX_WATCHLIST_MEMBERS);
  } finally {
    // Not added (refused, or the write failed): no template is left without its member.
    if (outcome !== 'added') await d.engine.removeMember(ref, indexed.faceId).catch(() => undefined);
  }
  if (outcome === 'full') throw new WatchlistFullError();
  if (outcome === 'gone') throw new WatchlistNotFoundError();
  return member;
}

/**
 * The member out of the table, then its template out of the engine: a template left by a
 * failure there is never a hit (Watchlist Match reports only members the table has).
 */
export async function removeMember(d: WatchlistDeps, tenantId: string, watchlistId: string, memberId: string): Promise<void> {
  await getWatchlist(d, tenantId, watchlistId);
  const member = await d.watchlists.getMember(tenantId, watchlistId, memberId);
  if (!member) throw new WatchlistMemberNotFoundError();
  if (!(await d.watchlists.removeMember(tenantId, watchlistId, memberId))) throw new WatchlistMemberNotFoundError();
  await engineCall(() => d.engine.removeMember({ tenantId, watchlistId }, member.faceId));
}

const unusable = (message: string) => new FaceImageUnusableError(undefined, [{ location: 'body.image', message }]);

/** An engine call whose refusals are the client's: an image it cannot read (400), a collection deleted meanwhile (404). */
async function engineCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const refused = imageRefusal(err);
    if (refused) throw unusable(refused === 'tooLarge' ? 'is larger than the face engine takes' : 'the face engine cannot read it');
    if (isMissingCollection(err)) throw new WatchlistNotFoundError();
    throw err;
  }
}

const IMAGE_PROBLEMS = {
  missing: 'must be a base64 JPEG or PNG image',
  tooLarge: `must be at most ${MAX_FACE_IMAGE_BYTES} bytes`,
  notAnImage: 'is neither a JPEG nor a PNG',
  unreadable: 'does not decode',
  tooSmall: 'must be at least 240 pixels on its shorter side',
} as const;
