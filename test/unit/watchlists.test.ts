import { describe, expect, it } from 'vitest';
import { addMember, createWatchlist, deleteWatchlist, removeMember, type WatchlistDeps } from '../../functions/faces/watchlists.js';
import { FaceImageRefusedError, type WatchlistMemberRecord, type WatchlistRecord, type WatchlistStore } from '../../functions/faces/model.js';
import { face } from '../support/face-images.js';

const IMAGE = face('eileen-collins.jpg').toString('base64');
const at = { actor: 'key:1', now: new Date('2026-11-24T00:00:00Z') };

/** An engine error as Rekognition names it (the engines turn those refusing an image into a FaceImageRefusedError). */
const named = (name: string) => Object.assign(new Error(name), { name });

function fakes(engineOverrides: Partial<WatchlistDeps['engine']> = {}, storeOverrides: Partial<WatchlistStore> = {}) {
  const calls: string[] = [];
  const lists = new Map<string, WatchlistRecord>();
  const members = new Map<string, WatchlistMemberRecord>();
  const watchlists: WatchlistStore = {
    async create(r) { calls.push('store.create'); lists.set(r.id, r); return 'created'; },
    async get(_t, id) { return lists.get(id); },
    async list() { return [...lists.values()]; },
    async delete() { calls.push('store.deleteMembers'); members.clear(); },
    async deleteRecord(_t, id) { calls.push('store.deleteRecord'); return lists.delete(id); },
    async addMember(m) { calls.push('store.addMember'); members.set(m.id, m); return 'added'; },
    async getMember(_t, _w, id) { return members.get(id); },
    async listMembers() { return [...members.values()]; },
    async removeMember(_t, _w, id) { calls.push('store.removeMember'); return members.delete(id); },
    ...storeOverrides,
  };
  const engine: WatchlistDeps['engine'] = {
    async detect() { return { width: 512, height: 512, faces: [{ box: { left: 0.3, top: 0.2, width: 0.3, height: 0.3 }, confidence: 0.99, pose: { yaw: 0, pitch: 0, roll: 0 }, quality: { brightness: 50, sharpness: 80 }, eyes: { open: 0.35, visible: 0.8 } }] }; },
    async createWatchlist() { calls.push('engine.createWatchlist'); },
    async deleteWatchlist() { calls.push('engine.deleteWatchlist'); },
    async addMember() { calls.push('engine.addMember'); return { faceId: 'face-1' }; },
    async removeMember() { calls.push('engine.removeMember'); },
    ...engineOverrides,
  };
  return { deps: { watchlists, engine }, calls };
}

describe('watchlists against the face engine', () => {
  it("answers the engine's refusals of an image as 400 FACE_IMAGE_UNUSABLE, and a collection gone meanwhile as 404", async () => {
    for (const [error, code] of [
      [new FaceImageRefusedError('unreadable', 'InvalidImageFormatException'), 'FACE_IMAGE_UNUSABLE'],
      [new FaceImageRefusedError('tooLarge', 'ImageTooLargeException'), 'FACE_IMAGE_UNUSABLE'],
      [named('ResourceNotFoundException'), 'WATCHLIST_NOT_FOUND'],
    ] as const) {
      const { deps } = fakes({ addMember: async () => { throw error; } });
      const wl = await createWatchlist(deps, { name: 'w' }, { tenantId: 'demo', ...at });
      await expect(addMember(deps, 'demo', wl.id, { label: 'x', image: IMAGE }, at)).rejects.toMatchObject({ code });
    }
    // Anything else is not the client's: it stays an error (a 500, or a 503 for a throttle).
    const { deps } = fakes({ detect: async () => { throw named('ThrottlingException'); } });
    const wl = await createWatchlist(deps, { name: 'w' }, { tenantId: 'demo', ...at });
    await expect(addMember(deps, 'demo', wl.id, { label: 'x', image: IMAGE }, at)).rejects.toMatchObject({ name: 'ThrottlingException' });
  });

  it('takes a template out again when its member could not be written, however the write failed', async () => {
    for (const failure of [async () => 'full' as const, async () => 'gone' as const, async () => { throw named('TransactionCanceledException'); }]) {
      const { deps, calls } = fakes({}, { addMember: failure });
      const wl = await createWatchlist(deps, { name: 'w' }, { tenantId: 'demo', ...at });
      await expect(addMember(deps, 'demo', wl.id, { label: 'x', image: IMAGE }, at)).rejects.toBeDefined();
      expect(calls.slice(-2)).toEqual(['engine.addMember', 'engine.removeMember']);
    }
  });

  it('leaves no collection behind when the watchlist could not be written', async () => {
    const { deps, calls } = fakes({}, { create: async () => { throw named('TransactionCanceledException'); } });
    await expect(createWatchlist(deps, { name: 'w' }, { tenantId: 'demo', ...at })).rejects.toBeDefined();
    expect(calls).toEqual(['engine.createWatchlist', 'engine.deleteWatchlist']);
  });

  it('deletes members, then the collection, then the watchlist (a failed delete stays listed, to be done again); removes a member before its template', async () => {
    const { deps, calls } = fakes();
    const wl = await createWatchlist(deps, { name: 'w' }, { tenantId: 'demo', ...at });
    const m = await addMember(deps, 'demo', wl.id, { label: 'x', image: IMAGE }, at);
    calls.length = 0;
    await removeMember(deps, 'demo', wl.id, m.id);
    expect(calls).toEqual(['store.removeMember', 'engine.removeMember']);
    calls.length = 0;
    await deleteWatchlist(deps, 'demo', wl.id);
    expect(calls).toEqual(['store.deleteMembers', 'engine.deleteWatchlist', 'store.deleteRecord']);
  });
});
