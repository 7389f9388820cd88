/**
 * Watchlist Match's Search Behavior (the family's watchlistMatchTaskV1 input): a hit in a list to
 * stop (BLOCK, BLOCK_REVIEW) or the absence of one in a list to let through (ALLOW, ALLOW_REVIEW),
 * with a stand-in engine that finds what the test says; `_candidatesFound` follows the hit.
 */
import { describe, expect, it } from 'vitest';
import { run } from '../../../functions/activities/watchlist-match.js';
import type { ActivityDeps, Session } from '../../../functions/activities/contract.js';
import type { StepUserData } from '../../../functions/process-manager/model.js';

const WATCHLIST = { tenantId: 'demo', id: '0b7f8c1e-8c52-4b4e-9c55-2f6f3e1f9a10', name: 'Recent', description: '', memberCount: 1, createdDtm: '', createdBy: '' };
const session = { instance: { tenantId: 'demo', processInstanceId: 'p' }, parameters: {}, vars: {}, _faces: { face1: { captures: [{ captureId: 'c1', format: 'JPEG' }] } } } as unknown as Session;

function go(behavior: string | undefined, hit: boolean) {
  const kept: StepUserData[] = [];
  const deps = {
    faces: { name: 'embedded', search: async () => (hit ? [{ memberId: 'm1', similarity: 0.8 }] : []) },
    watchlists: { list: async () => [WATCHLIST], get: async () => WATCHLIST, getMember: async () => ({ id: 'm1', label: 'Known fraudster' }) },
    images: { getAtMost: async () => Buffer.from([0xff, 0xd8]) },
    faceCaptureKey: () => 'k',
    instances: { putUserData: async (_t: string, _i: string, d: StepUserData) => void kept.push(d) },
  } as unknown as ActivityDeps;
  const inputs = { Watchlist: 'Recent', 'Face Key': 'face1', 'Check Key': 'watchlist', 'Max Hits': 10, ...(behavior ? { 'Search Behavior': behavior } : {}) };
  return run({ activityId: 'wl', inputs: inputs as never, session, tenantId: 'demo', actor: 'journey:p', now: new Date(), expiresAt: 2_000_000_000, deps }).then((out) => ({ out, kept }));
}

describe('Watchlist Match, Search Behavior', () => {
  it.each([
    [undefined, true, 'FAIL'],
    [undefined, false, 'PASS'],
    ['BLOCK', true, 'FAIL'],
    ['BLOCK_REVIEW', true, 'REVIEW'],
    ['BLOCK_REVIEW', false, 'PASS'],
    ['ALLOW', true, 'PASS'],
    ['ALLOW', false, 'FAIL'],
    ['ALLOW_REVIEW', true, 'PASS'],
    ['ALLOW_REVIEW', false, 'REVIEW'],
  ] as const)('%s with a hit %s: %s, and _candidatesFound says whether there was one', async (behavior, hit, result) => {
    const { out, kept } = await go(behavior, hit);
    expect((out._checks as Record<string, { result: string; searchBehavior: string }>).watchlist).toMatchObject({ result, searchBehavior: behavior ?? 'BLOCK' });
    expect(out.vars).toMatchObject({ _candidatesFound: hit });
    expect(kept[0]!.check).toMatchObject({ result });
    expect(JSON.parse(kept[0]!.check!.moreinfo!)).toMatchObject({ searchBehavior: behavior ?? 'BLOCK' });
  });
});
