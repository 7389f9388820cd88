import { keepStepData } from './service-user-data.js';
import { imageRefusal, isMissingCollection, type WatchlistHit } from '../faces/model.js';
import { THRESHOLDS } from '../faces/quality.js';
import type { CheckRecord, CheckResult } from '../process-manager/model.js';
import { ActivityError, withCheck, type ActivityAccess, type ServiceContext, type ServiceRun , activityError } from './contract.js';
import { liveFace } from './live-face.js';
import { runWithForcedCheck } from './forced-check.js';
import { s } from './spec.js';
import { spec } from './specs/watchlist-match.js';

/** The watchlist and its hits' labels, the live capture, the engine's search, and the check beside the instance. */
export const aws = {
  table: ['GetItem', 'PutItem', 'Query'],
  images: ['GetObject'],
  faces: ['SearchFacesByImage'],
} as const satisfies ActivityAccess;

type Ctx = ServiceContext<typeof spec>;

/**
 * The live face searched in the watchlist's collection (Rekognition's SearchFacesByImage, or the
 * embedded model's templates locally). The check (under Search Behavior BLOCK, the default: PASS
 * with no hit, FAIL with any; BLOCK_REVIEW, ALLOW and ALLOW_REVIEW below) goes into the
 * session for the decider and into user data with every hit; a hit raises "Watchlist Hit" when
 * the step asks for it. A watchlist of another tenant is not found: its collection is named by
 * the tenant, and so is its item.
 */
export const run: ServiceRun<typeof spec> = (ctx) =>
  runWithForcedCheck(ctx.session, {
    key: ctx.inputs['Check Key'],
    checkType: 'WATCHLIST',
    displayName: 'Face watchlist',
    failures: ['WatchlistHit', 'FaceTemplateGenerationFailed'],
    ...(ctx.inputs['Raise Error On Hit'] === true
      ? { failure: () => activityError(spec, 'WatchlistHit', 'Test mode: the watchlist match was forced to FAIL.') }
      : {}),
  }, () => search(ctx));

async function search(ctx: Ctx) {
  const { inputs, session, tenantId, deps } = ctx;
  const { faces, watchlists } = deps;
  const byId = inputs['Watchlist ID'];
  const byName = inputs.Watchlist;
  // By id, or by name (the family's Watchlist): a tenant has few watchlists, listed in one read.
  const watchlist =
    byId !== undefined
      ? /^[0-9a-f-]{36}$/i.test(byId)
        ? await watchlists.get(tenantId, byId)
        : undefined
      : byName !== undefined
        ? (await watchlists.list(tenantId)).find((w) => w.name === byName)
        : undefined;
  const which = byId !== undefined ? 'Watchlist ID' : 'Watchlist';
  if (!watchlist) throw activityError(spec, 'WatchlistNotFound', `The watchlist named by ${which} does not exist in this tenant.`);
  const watchlistId = watchlist.id;
  const live = await liveFace(deps, session, tenantId, inputs['Face Key']);
  if (!live) throw activityError(spec, 'FaceTemplateGenerationFailed', 'The Face Key has no capture to search with.');
  const threshold = inputs['Match Threshold'] !== undefined ? inputs['Match Threshold'] / 100 : THRESHOLDS[faces.name].watchlist;
  let found: WatchlistHit[] | { noFace: true };
  try {
    found = await faces.search({ tenantId, watchlistId }, { bytes: live.bytes }, threshold, inputs['Max Hits'] ?? 5);
  } catch (err) {
    // Deleted between the read and the search; or an image the engine cannot read.
    if (isMissingCollection(err)) throw activityError(spec, 'WatchlistNotFound', `The watchlist named by ${which} does not exist in this tenant.`);
    if (imageRefusal(err)) throw activityError(spec, 'FaceTemplateGenerationFailed', 'The face engine could not read the live capture.');
    throw err;
  }
  if ('noFace' in found) throw activityError(spec, 'FaceTemplateGenerationFailed', 'No face was found in the live capture.');
  // Labels as the table has them now (a member removed since the search is left out).
  const hits = (
    await Promise.all(
      found.map(async (hit) => {
        const member = await watchlists.getMember(tenantId, watchlistId, hit.memberId);
        return member ? [{ memberId: member.id, label: member.label, similarity: hit.similarity }] : [];
      }),
    )
  ).flat();
  const behavior = inputs['Search Behavior'] ?? 'BLOCK';
  const result = outcome(behavior, hits.length > 0);
  const check = watchlistCheck(ctx, result, { watchlistId, watchlistName: watchlist.name, threshold, hits, captureId: live.capture.captureId, searchBehavior: behavior });
  await keepStepData(ctx, { activityType: spec.type, dataKey: inputs['Check Key'], values: { watchlistId, captureId: live.capture.captureId, threshold, hits }, check });
  if (hits.length > 0 && inputs['Raise Error On Hit'] === true) {
    throw activityError(spec, 'WatchlistHit', `${hits.length} member(s) of the watchlist matched the live face.`);
  }
  const checked = withCheck(session, inputs['Check Key'], { result, checkType: check.checkType, displayName: check.displayName, watchlistId, threshold, hits, searchBehavior: behavior });
  return { ...checked, vars: { ...(checked.vars ?? {}), _candidatesFound: hits.length > 0 } };
}

/** The check's result by the step's Search Behavior: a list to stop (BLOCK) or to let through (ALLOW), failing or sent to review. */
function outcome(behavior: string, hit: boolean): CheckResult {
  if (behavior === 'BLOCK') return hit ? 'FAIL' : 'PASS';
  if (behavior === 'BLOCK_REVIEW') return hit ? 'REVIEW' : 'PASS';
  if (behavior === 'ALLOW') return hit ? 'PASS' : 'FAIL';
  return hit ? 'PASS' : 'REVIEW';
}

function watchlistCheck(
  { activityId, inputs, now, deps: { faces } }: Ctx,
  result: CheckResult,
  d: { watchlistId: string; watchlistName: string; threshold: number; hits: { memberId: string; label: string; similarity: number }[]; captureId: string; searchBehavior: string },
): CheckRecord {
  const description =
    d.hits.length === 0
      ? `No member of the watchlist matched the live face (threshold ${d.threshold}).`
      : `${d.hits.length} member(s) of the watchlist matched the live face, the best with similarity ${d.hits[0]!.similarity} (threshold ${d.threshold}).`;
  return {
    checkId: inputs['Check Key'],
    activityId,
    checkType: 'WATCHLIST',
    result,
    displayName: 'Face watchlist',
    description,
    moreinfo: JSON.stringify({
      engine: faces.name,
      faceKey: inputs['Face Key'],
      ...d,
      // The family's threshold, on its engine's scale: recorded, not applied (see the spec).
      ...(inputs['Watchlist Threshold'] !== undefined ? { familyThreshold: Number(inputs['Watchlist Threshold'].replace(/[${}\s]/g, '')) } : {}),
    }),
    checkedAt: now.toISOString(),
    reports: [{ name: 'watchlist', result, description }],
  };
}
