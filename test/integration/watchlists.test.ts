/**
 * Face watchlists over HTTP: made, filled with labelled faces, listed a page at a time, kept per
 * tenant and behind their permissions; and the Watchlist Match step, whose hits go into the
 * checks and, when asked, route the graph.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { resolveActivity } from '../../statemachines/bpmn/activities.js';
import { adminToken, call, finalStatus, issueToken, keyWith, multipart, pageUntil, setNumberAttribute } from './client.js';
import { face, portrait, toJpeg } from '../support/face-images.js';
import { jpegClaiming, pngWithCorruptData, pngWithEmptyChunks, truncatedJpeg, truncatedPng } from '../support/broken-images.js';

const BASE = '/api/watchlist-manager/facewatchlists';
let token: string;
const fresh = () => Math.random().toString(36).slice(2, 10);

const PERSON_B = toJpeg(portrait('person-b-crop-bar55.jpg'));
const PERSON_B_LIVE = toJpeg(portrait('person-b-crop-bar55-2.jpg'));
const OTHER = face('eileen-collins.jpg');

beforeAll(async () => {
  token = await adminToken();
});

async function newWatchlist(name = `wl-${fresh()}`): Promise<string> {
  const res = await call('POST', BASE, { token, body: { name, description: 'Known fraudsters', tenantId: 'demo' } });
  expect(res.status, res.text).toBe(201);
  return res.json.id;
}

const addMember = (watchlistId: string, label: string, image: Buffer | string) =>
  call('POST', `${BASE}/${watchlistId}/watchlist-members`, { token, body: { label, image: typeof image === 'string' ? image : image.toString('base64') } });

/** The local engine's collections (it keeps them in a file): each watchlist's face templates, by `{tenant}.{watchlistId}`. */
const localCollections = () => JSON.parse(readFileSync(join(inject('localDir'), 'face-collections.json'), 'utf8')) as Record<string, { memberId: string }[]>;

/** Sets a watchlist's member count in the local table, as a thousand adds would. */
const setMemberCount = (watchlistId: string, count: number) => setNumberAttribute('TNT#demo#WATCHLISTS', `WL#${watchlistId}`, 'memberCount', count);
/** Sets a tenant's watchlist count, as a hundred creates would. */
const setWatchlistCount = (tenant: string, count: number) => setNumberAttribute(`TNT#${tenant}#WATCHLISTS`, 'COUNT', 'watchlists', count);

describe('face watchlists', () => {
  it("take the family's body (status ACTIVE, type FACEV6) and answer its fields; another type is refused", async () => {
    const made = await call('POST', BASE, { token, body: { name: `Recent ${Math.random().toString(36).slice(2, 8)}`, description: 'Recent fraud', status: 'ACTIVE', type: 'FACEV6' } });
    expect(made.status, made.text).toBe(201);
    expect(made.json).toMatchObject({ status: 'ACTIVE', type: 'FACEV6', maxSize: 1000, numMembers: 0, memberCount: 0 });
    const other = await call('POST', BASE, { token, body: { name: 'Documents', type: 'DOCUMENT' } });
    expect(other.status).toBe(400);
    expect(other.text).toContain('FACEV6');
    expect((await call('DELETE', `${BASE}/${made.json.id}`, { token })).status).toBe(204);
  });

  it('are made, filled with one-face images, and listed a page at a time', async () => {
    const id = await newWatchlist('Fraud ring 7');
    const read = await call('GET', `${BASE}/${id}`, { token });
    expect(read.json).toMatchObject({ id, name: 'Fraud ring 7', description: 'Known fraudsters', memberCount: 0 });
    expect(read.json).not.toHaveProperty('tenantId');

    const added = await addMember(id, 'Anne H.', PERSON_B);
    expect(added.status, added.text).toBe(201);
    expect(added.json).toMatchObject({ watchlistId: id, label: 'Anne H.', image: { format: 'JPEG', width: 640, height: 480, bytes: PERSON_B.length } });
    expect(added.json).not.toHaveProperty('faceId');
    expect((await addMember(id, 'Eileen C.', OTHER)).status).toBe(201);
    expect((await call('GET', `${BASE}/${id}`, { token })).json).toMatchObject({ memberCount: 2, numMembers: 2 });

    const first = await call('GET', `${BASE}/${id}/watchlist-members?page=0&size=1&sort=label,desc`, { token });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ totalElements: 2, totalPages: 2, number: 0, size: 1, first: true, last: false });
    expect(first.json.content.map((m: { label: string }) => m.label)).toEqual(['Eileen C.']);
    const second = await call('GET', `${BASE}/${id}/watchlist-members?page=1&size=1&sort=label,desc`, { token });
    expect(second.json.content.map((m: { label: string }) => m.label)).toEqual(['Anne H.']);

    const lists = await call('GET', `${BASE}?size=1000`, { token });
    expect(lists.json.content.map((w: { id: string }) => w.id)).toContain(id);
    expect((await call('GET', `${BASE}?sort=colour`, { token })).status).toBe(400);
  });

  it('refuse an image with no face, two faces, or no image at all, with a stable code', async () => {
    const id = await newWatchlist();
    for (const [image, code] of [
      [face('no-face-landscape.jpg'), 'FACE_IMAGE_UNUSABLE'],
      [face('two-faces-bar55.jpg'), 'FACE_IMAGE_UNUSABLE'],
      [Buffer.from('not an image at all, just text'.repeat(20)), 'FACE_IMAGE_UNUSABLE'],
      ['%%% not base64 %%%', 'VALIDATION_FAILED'],
      ['', 'VALIDATION_FAILED'],
    ] as const) {
      const res = await addMember(id, 'x', image);
      expect(res.status, res.text).toBe(400);
      expect(res.json.code).toBe(code);
    }
    expect((await call('POST', `${BASE}/${id}/watchlist-members`, { token, body: { image: PERSON_B.toString('base64') } })).status).toBe(400);
    expect((await addMember(id, 'x'.repeat(201), PERSON_B)).status).toBe(400);
    expect((await call('GET', `${BASE}/${id}`, { token })).json.memberCount).toBe(0);
  });

  it('refuse an image the face engine cannot decode with 400 FACE_IMAGE_UNUSABLE, never a 500', async () => {
    const id = await newWatchlist();
    for (const [label, image] of [
      ['a JPEG cut short', truncatedJpeg()],
      ['a PNG cut short', truncatedPng()],
      ['a JPEG claiming 39.7 MP', jpegClaiming(7720, 5140)],
      ['a PNG with 100,000 empty chunks', pngWithEmptyChunks(100_000)],
      ['a PNG whose image data does not decode', pngWithCorruptData()],
    ] as const) {
      const started = Date.now();
      const res = await addMember(id, 'x', image);
      expect(res.status, `${label}: ${res.text}`).toBe(400);
      expect(res.json.code, label).toBe('FACE_IMAGE_UNUSABLE');
      expect(res.json.details[0].location, label).toBe('body.image');
      expect(Date.now() - started, label).toBeLessThan(10_000);
    }
    expect((await call('GET', `${BASE}/${id}`, { token })).json.memberCount).toBe(0);
    // The engine is still there for the next member.
    expect((await addMember(id, 'Anne H.', PERSON_B)).status).toBe(201);
  });

  it('take an image of exactly 3 MiB and a label of 200 characters, and refuse one byte or one character more', async () => {
    const id = await newWatchlist();
    const ofSize = (size: number) => Buffer.concat([PERSON_B, Buffer.alloc(size - PERSON_B.length, 0)]);
    const label = 'ä'.repeat(200);
    const edge = await addMember(id, label, ofSize(3 * 1024 * 1024));
    expect(edge.status, edge.text.slice(0, 300)).toBe(201);
    expect(edge.json).toMatchObject({ label, image: { bytes: 3 * 1024 * 1024 } });
    const over = await addMember(id, 'x', ofSize(3 * 1024 * 1024 + 1));
    expect(over.status).toBe(400);
    expect(over.json.code).toBe('VALIDATION_FAILED');
    expect((await addMember(id, `${label}ä`, PERSON_B)).status).toBe(400);
  });

  it('hold at most 1,000 members: the thousandth is added, the next refused and its template taken out again', async () => {
    const id = await newWatchlist();
    await setMemberCount(id, 999);
    expect((await addMember(id, 'the thousandth', PERSON_B)).status).toBe(201);
    const full = await addMember(id, 'one too many', OTHER);
    expect(full.status).toBe(409);
    expect(full.json.code).toBe('WATCHLIST_FULL');
    const members = await call('GET', `${BASE}/${id}/watchlist-members`, { token });
    expect(members.json.content.map((m: { label: string }) => m.label)).toEqual(['the thousandth']);
    // The engine's collection holds the one template (the local engine keeps its collections in a file).
    const collections = localCollections();
    const [templates] = Object.entries(collections).filter(([key]) => key.endsWith(id)).map(([, faces]) => faces);
    expect(templates?.map((f) => f.memberId)).toEqual([members.json.content[0].id]);
  });

  it('are at most 100 a tenant: the hundredth is made, the next refused with its collection taken out again, and a delete makes room', async () => {
    const theirs = await issueToken(inject('otherKey'), 'other');
    const create = () => call('POST', BASE, { tenant: 'other', token: theirs, body: { name: `limit-${fresh()}` } });
    const before = (await call('GET', `${BASE}?size=1000`, { tenant: 'other', token: theirs })).json.totalElements as number;
    await setWatchlistCount('other', 99);
    try {
      const hundredth = await create();
      expect(hundredth.status).toBe(201);
      const over = await create();
      expect(over.status).toBe(409);
      expect(over.json.code).toBe('WATCHLIST_LIMIT');
      const collections = localCollections();
      expect(Object.keys(collections).filter((k) => k.startsWith('other.')).length).toBe(before + 1);
      expect((await call('DELETE', `${BASE}/${hundredth.json.id}`, { tenant: 'other', token: theirs })).status).toBe(204);
      const again = await create();
      expect(again.status).toBe(201);
      expect((await call('DELETE', `${BASE}/${again.json.id}`, { tenant: 'other', token: theirs })).status).toBe(204);
    } finally {
      await setWatchlistCount('other', before);
    }
  });

  it('remove members and are deleted; unknown ids are 404 and malformed ones 400', async () => {
    const id = await newWatchlist();
    const member = (await addMember(id, 'Anne H.', PERSON_B)).json.id;
    expect((await call('DELETE', `${BASE}/${id}/watchlist-members/${member}`, { token })).status).toBe(204);
    const again = await call('DELETE', `${BASE}/${id}/watchlist-members/${member}`, { token });
    expect(again.status).toBe(404);
    expect(again.json.code).toBe('WATCHLIST_MEMBER_NOT_FOUND');
    expect((await call('GET', `${BASE}/${id}`, { token })).json.memberCount).toBe(0);
    expect((await call('DELETE', `${BASE}/${id}`, { token })).status).toBe(204);
    const gone = await call('GET', `${BASE}/${id}`, { token });
    expect(gone.status).toBe(404);
    expect(gone.json.code).toBe('WATCHLIST_NOT_FOUND');
    expect((await call('GET', `${BASE}/${id}/watchlist-members`, { token })).status).toBe(404);
    expect((await call('GET', `${BASE}/not-a-uuid`, { token })).status).toBe(400);
  });

  it("are the tenant's own and behind their permissions", async () => {
    const id = await newWatchlist();
    const member = (await addMember(id, 'Anne H.', PERSON_B)).json.id;
    const theirs = await issueToken(inject('otherKey'), 'other');
    expect((await call('GET', `${BASE}/${id}`, { tenant: 'other', token: theirs })).status).toBe(404);
    expect((await call('GET', `${BASE}/${id}/watchlist-members`, { tenant: 'other', token: theirs })).status).toBe(404);
    expect((await call('DELETE', `${BASE}/${id}/watchlist-members/${member}`, { tenant: 'other', token: theirs })).status).toBe(404);
    const planted = await call('POST', `${BASE}/${id}/watchlist-members`, { tenant: 'other', token: theirs, body: { label: 'planted', image: PERSON_B.toString('base64') } });
    expect(planted.status).toBe(404);
    expect((await call('DELETE', `${BASE}/${id}`, { tenant: 'other', token: theirs })).status).toBe(404);
    expect((await call('GET', BASE, { tenant: 'other', token: theirs })).json.content.map((w: { id: string }) => w.id)).not.toContain(id);

    const reader = await issueToken((await keyWith(['WatchlistManager:getFaceWatchlists'])).secret);
    expect((await call('GET', `${BASE}/${id}/watchlist-members`, { token: reader })).status).toBe(200);
    expect((await call('POST', BASE, { token: reader, body: { name: 'mine' } })).status).toBe(403);
    expect((await call('POST', `${BASE}/${id}/watchlist-members`, { token: reader, body: { label: 'x', image: PERSON_B.toString('base64') } })).status).toBe(403);
    expect((await call('DELETE', `${BASE}/${id}`, { token: reader })).status).toBe(403);
    expect((await call('DELETE', `${BASE}/${id}/watchlist-members/${member}`, { token: reader })).status).toBe(403);
    const creator = await issueToken((await keyWith(['WatchlistManager:addFaceWatchlist'])).secret);
    expect((await call('GET', BASE, { token: creator })).status).toBe(403);
    expect((await call('POST', `${BASE}/${id}/watchlist-members`, { token: creator, body: { label: 'x', image: PERSON_B.toString('base64') } })).status).toBe(403);
    expect((await call('DELETE', `${BASE}/${id}`, { token: creator })).status).toBe(403);
    expect((await call('GET', `${BASE}/${id}`, { token })).json.memberCount).toBe(1);
  });
});

/** A capture, then Watchlist Match on the watchlist the token names; a routed hit goes to review, a missing watchlist to an error end. */
const WATCHLIST_JOURNEY = (name: string, raise: boolean, inputs: Record<string, unknown> = {}) => ({
  name,
  version: 1,
  retentionDays: 1,
  startActivityId: 'captureFace',
  activities: {
    captureFace: { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': 'face' }, next: 'screen' },
    screen: {
      type: 'FACE_WATCHLIST_MATCH',
      inputs: { 'Watchlist ID': '${watchlistId}', 'Face Key': 'face', 'Check Key': 'fraudList', 'Raise Error On Hit': raise, ...inputs },
      errorEvents: { 'Watchlist Hit': 'onList', 'Watchlist Not Found': 'noList' },
      next: 'decide',
    },
    // The Watchlist Hit route: a person reviews it (status REVIEW).
    onList: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'REVIEW' } },
    decide: {
      type: 'SIMPLE_DECIDER',
      rules: [
        // The family's gateways read `${_candidatesFound}`: a hit found that way is sent to review.
        { when: { variable: 'vars._candidatesFound', equals: true }, outcome: 'REVIEW' },
        { when: { variable: '_checks.fraudList.result', equals: 'PASS' }, outcome: 'PASS' },
      ],
      default: 'FAIL',
    },
  },
  ends: { noList: { error: 'noWatchlist' } },
});

describe('Watchlist Match', () => {
  const defs: Record<string, string> = {};
  const variants: Record<string, [boolean, Record<string, unknown>]> = {
    true: [true, {}],
    false: [false, {}],
    strict: [false, { 'Match Threshold': 100 }],
    one: [false, { 'Max Hits': 1 }],
    // The family's inputs (watchlistMatchTaskV1): the watchlist by name, its own threshold (recorded, not applied).
    named: [false, { 'Watchlist ID': undefined, Watchlist: '${watchlistName}', 'Watchlist Threshold': '${0.205245}', 'Max Hits': 10 }],
  };
  beforeAll(async () => {
    for (const [variant, [raise, inputs]] of Object.entries(variants)) {
      const name = `watch-${variant}-${fresh()}`;
      const res = await call('POST', '/api/process-manager/processDefinitions', { token, body: WATCHLIST_JOURNEY(name, raise, inputs) });
      expect(res.status, res.text).toBe(201);
      defs[variant] = name;
    }
  });

  async function screened(watchlistId: string, raise: boolean | string, parameters: Record<string, string> = { watchlistId }) {
    const pt = await call('POST', '/api/process-manager/processTokens', {
      token,
      body: { name: `wm-${fresh()}`, processDefnName: defs[String(raise)], processDefnVersion: 1, parameters },
    });
    expect(pt.status, pt.text).toBe(201);
    const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { token });
    const url = new URL(created.json.redirectUrl);
    const id = created.json.processInstanceId;
    await pageUntil(`${url.pathname}${url.search}&lang=en`, 'id="face-form"');
    const sent = await call('POST', `/journey/${id}/steps/captureFace/face?c=${url.searchParams.get('c')}&lang=en`, multipart(PERSON_B_LIVE));
    expect(sent.status).toBe(303);
    const status = await finalStatus(id, token);
    const defnId = (await call('GET', `/api/process-manager/processInstances/${id}`, { token })).json.processDefnId;
    const checks = (await call('GET', `/api/userdata-server/processDefinitions/${defnId}/processInstances/${id}/userdata/checks`, { token })).json as {
      checkId: string;
      result: string;
      moreinfo: string;
    }[];
    const check = checks.find((c) => c.checkId === 'fraudList');
    return { status, check: check && { ...check, more: JSON.parse(check.moreinfo) } };
  }

  it("finds the watchlist by name under the family's inputs, records its threshold and sets _candidatesFound", async () => {
    const name = `wl-${fresh()}`;
    const id = await newWatchlist(name);
    await addMember(id, 'Anne H.', PERSON_B);
    const hit = await screened(id, 'named', { watchlistName: name });
    // REVIEW: the decider's rule on _candidatesFound, which the step set.
    expect(hit.status).toBe('REVIEW');
    expect(hit.check!.more).toMatchObject({ watchlistId: id, familyThreshold: 0.205245, threshold: 0.5, hits: [{ label: 'Anne H.' }] });
    const missing = await screened(id, 'named', { watchlistName: `no-such-${fresh()}` });
    expect(missing.status).toBe('COMPLETED_ENDED_ERROR');
    expect(missing.check).toBeUndefined();
    // The BPMN bean of the family's exports is this activity.
    expect(resolveActivity('watchlistMatchTaskV1')).toBe('FACE_WATCHLIST_MATCH');
  });

  it('records a hit with its label and similarity, and routes it when asked; no hit passes', async () => {
    const id = await newWatchlist();
    const anne = (await addMember(id, 'Anne H.', PERSON_B)).json.id;
    await addMember(id, 'Eileen C.', OTHER);

    // The Watchlist Hit route: REVIEW, where the decider alone would say FAIL.
    const routed = await screened(id, true);
    expect(routed.status).toBe('REVIEW');
    expect(routed.check).toMatchObject({ result: 'FAIL' });
    expect(routed.check!.more).toMatchObject({ watchlistId: id, threshold: 0.5, hits: [{ memberId: anne, label: 'Anne H.' }] });
    expect(routed.check!.more.hits[0].similarity).toBeGreaterThanOrEqual(0.5);

    const recorded = await screened(id, false);
    // Without Raise Error On Hit no route is taken: the decider's rule on _candidatesFound.
    expect(recorded.status).toBe('REVIEW');
    expect(recorded.check!.more.hits).toHaveLength(1);

    expect((await call('DELETE', `${BASE}/${id}/watchlist-members/${anne}`, { token })).status).toBe(204);
    const clear = await screened(id, true);
    expect(clear.status).toBe('COMPLETED_ENDED_SUCCESS');
    expect(clear.check).toMatchObject({ result: 'PASS' });
    expect(clear.check!.more.hits).toEqual([]);
  });

  it("fails on Watchlist Not Found for a deleted watchlist or another tenant's", async () => {
    const id = await newWatchlist();
    expect((await call('DELETE', `${BASE}/${id}`, { token })).status).toBe(204);
    const deleted = await screened(id, true);
    // The Watchlist Not Found route's error end (an error no route took would be COMPLETED_PROCESS_ERROR).
    expect(deleted.status).toBe('COMPLETED_ENDED_ERROR');
    expect(deleted.check).toBeUndefined();
    const theirs = await issueToken(inject('otherKey'), 'other');
    const foreign = await call('POST', BASE, { tenant: 'other', token: theirs, body: { name: 'theirs' } });
    expect(foreign.status).toBe(201);
    const other = await screened(foreign.json.id, true);
    expect(other.status).toBe('COMPLETED_ENDED_ERROR');
    expect(other.check).toBeUndefined();
  });

  it('takes Match Threshold (percent) and Max Hits, and refuses them out of range when published', async () => {
    const id = await newWatchlist();
    await addMember(id, 'Anne H., shot 1', PERSON_B);
    await addMember(id, 'Anne H., shot 2', PERSON_B_LIVE);
    const two = await screened(id, false);
    expect(two.check!.more.hits.map((h: { label: string }) => h.label).sort()).toEqual(['Anne H., shot 1', 'Anne H., shot 2']);
    expect(two.check!.more.hits[0].similarity).toBeGreaterThanOrEqual(two.check!.more.hits[1].similarity);
    const one = await screened(id, 'one');
    expect(one.check!.more.hits).toHaveLength(1);
    expect(one.check!.more.hits[0]).toEqual(two.check!.more.hits[0]);
    // 100%: only the very same image (shot 2 is the live capture itself) is a hit.
    const strict = await screened(id, 'strict');
    expect(strict.check!.more.threshold).toBe(1);
    expect(strict.check!.more.hits.map((h: { label: string }) => h.label)).toEqual(['Anne H., shot 2']);
    for (const inputs of [{ 'Max Hits': 0 }, { 'Max Hits': 101 }, { 'Match Threshold': 0 }, { 'Match Threshold': 101 }, { 'Watchlist Threshold': '${1.5}' }, { Watchlist: 'by-name-and-id' }]) {
      const res = await call('POST', '/api/process-manager/processDefinitions', { token, body: WATCHLIST_JOURNEY(`watch-bad-${fresh()}`, false, inputs) });
      expect(res.status, JSON.stringify(inputs)).toBe(400);
    }
  });
});
