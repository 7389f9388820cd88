import { key, s, type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'FACE_WATCHLIST_MATCH',
  displayName: 'Watchlist Match',
  kind: 'service',
  description:
    "Searches a face watchlist of the tenant for the live face of the Capture Face Image step: the hits (member, label, similarity) go into the check, FAIL when there is one; with Raise Error On Hit a hit also raises \"Watchlist Hit\" for the graph to route.",
  inputs: [
    s('Watchlist ID', false, undefined, 'The watchlist (its id, from POST /api/watchlist-manager/facewatchlists). Either this or Watchlist.'),
    {
      ...s('Watchlist', false, undefined, "The watchlist by its name, as the family's designer names it. Either this or Watchlist ID."),
      family: { name: 'watchlistName' },
    },
    { ...key('Face Key', 'face1', 'The Face Key of the Capture Face Image step whose latest capture is searched.'), family: { name: 'faceKey' } },
    { ...key('Check Key', 'watchlist', 'Where the check is kept (_checks.{Check Key}).'), family: { name: 'searchKey', label: 'Search Key' } },
    {
      name: 'Match Threshold',
      type: 'I',
      required: false,
      min: 1,
      max: 100,
      description: "The similarity (percent) a member's face must reach to be a hit. Empty: the engine's own (90 on Rekognition, 50 on the embedded model).",
    },
    {
      name: 'Watchlist Threshold',
      type: 'S',
      required: false,
      pattern: '^(\\$\\{\\s*)?(0(\\.\\d{1,10})?|1(\\.0{1,10})?)(\\s*\\})?$',
      patternMessage: 'must be a decimal from 0 to 1, such as ${0.205245}',
      references: false,
      description:
        "The family's threshold on its own engine's score (0.205245 in its real journeys). That score is not this engine's similarity, so it is kept with the check (moreinfo) and Match Threshold, or the engine's calibrated threshold, decides.",
      family: { name: 'watchlistThreshold' },
    },
    {
      name: 'Max Hits',
      type: 'I',
      required: false,
      default: 5,
      min: 1,
      max: 100,
      description: 'The most hits recorded, best first.',
      family: { name: 'maxCandidates', label: 'Max Candidates' },
    },
    {
      name: 'Search Behavior',
      type: 'S',
      required: false,
      default: 'BLOCK',
      enum: ['BLOCK', 'ALLOW', 'BLOCK_REVIEW', 'ALLOW_REVIEW'],
      description:
        'What a hit means. BLOCK: a hit fails the check (a list of people to stop). BLOCK_REVIEW: a hit sends it to review. ALLOW: the face must be on the list (a list of people to let through): no hit fails. ALLOW_REVIEW: no hit sends it to review. `_candidatesFound` is true on a hit whichever it is.',
      family: { name: 'searchBehavior' },
    },
    { name: 'Raise Error On Hit', type: 'B', required: false, default: false, description: 'A hit also raises "Watchlist Hit" (its error route); otherwise the check alone records it.' },
  ],
  rules: [{ kind: 'groups', groups: [['Watchlist ID'], ['Watchlist']], min: 1, max: 1 }],
  outputs: [
    { name: 'Candidates found', variable: 'vars._candidatesFound', description: 'true when a member matched (the family reads `${_candidatesFound}` in a gateway).' },
    { name: 'Watchlist check', variable: '_checks.{Check Key}', description: '{result: "PASS" | "FAIL" | "REVIEW", hits: [{memberId, label, similarity}], searchBehavior, ...}' },
  ],
  errorEvents: [
    { name: 'Watchlist Hit', aslError: 'WatchlistHit', code: 'watchlistHit', description: 'A member matched (only with Raise Error On Hit).' },
    { name: 'Watchlist Not Found', aslError: 'WatchlistNotFound', code: 'watchlistNotFound', description: 'The tenant has no watchlist of this id.' },
    {
      name: 'Failed face template generation',
      aslError: 'FaceTemplateGenerationFailed', code: 'failedFaceTemplateGeneration',
      description: 'The step has no live capture, or the engine found no face in it.',
    },
  ],
  // watchlistMatchTaskV1 is the family's bean in its real exports ("Search FaceV6 Watchlist").
  family: { beans: ['faceWatchlistMatchV1', 'watchlistMatchTaskV1'] },
} as const satisfies ActivitySpec;
