import { key, s, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'FACE_WATCHLIST_MATCH',
  displayName: 'Watchlist Match',
  kind: 'service',
  description:
    "Searches a face watchlist of the tenant for the live face of the Capture Face Image step: the hits (member, label, similarity) go into the check, FAIL when there is one; with Raise Error On Hit a hit also raises \"Watchlist Hit\" for the graph to route.",
  inputs: [
    s('Watchlist ID', true, undefined, 'The watchlist (its id, from POST /api/watchlist-manager/facewatchlists).'),
    key('Face Key', 'face1', 'The Face Key of the Capture Face Image step whose latest capture is searched.'),
    key('Check Key', 'watchlist', 'Where the check is kept (_checks.{Check Key}).'),
    {
      name: 'Match Threshold',
      type: 'I',
      required: false,
      min: 1,
      max: 100,
      description: "The similarity (percent) a member's face must reach to be a hit. Empty: the engine's own (90 on Rekognition, 50 on the embedded model).",
    },
    { name: 'Max Hits', type: 'I', required: false, default: 5, min: 1, max: 20, description: 'The most hits recorded, best first.' },
    { name: 'Raise Error On Hit', type: 'B', required: false, default: false, description: 'A hit also raises "Watchlist Hit" (its error route); otherwise the check alone records it.' },
  ],
  rules: [],
  outputs: [{ name: 'Watchlist check', variable: '_checks.{Check Key}', description: '{result: "PASS" | "FAIL", hits: [{memberId, label, similarity}], ...}' }],
  errorEvents: [
    { name: 'Watchlist Hit', aslError: 'WatchlistHit', code: 'watchlistHit', description: 'A member matched (only with Raise Error On Hit).' },
    { name: 'Watchlist Not Found', aslError: 'WatchlistNotFound', code: 'watchlistNotFound', description: 'The tenant has no watchlist of this id.' },
    {
      name: 'Failed face template generation',
      aslError: 'FaceTemplateGenerationFailed', code: 'failedFaceTemplateGeneration',
      description: 'The step has no live capture, or the engine found no face in it.',
    },
  ],
  family: { beans: ['faceWatchlistMatchV1'] },
} as const satisfies ActivitySpec;
