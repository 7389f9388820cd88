import * as z from '../../shared/zod.js';
import { REVIEW_DECISIONS, type ReviewDecision } from '../model.js';

/** The longest review comment, in characters (code points). */
export const REVIEW_COMMENT_MAX = 2000;

/** The family's spellings of a decision, as its back offices send them (case and spaces aside). */
const SPELLINGS: Readonly<Record<string, ReviewDecision>> = {
  approve: 'APPROVE',
  approved: 'APPROVE',
  reject: 'REJECT',
  rejected: 'REJECT',
  review: 'REVIEW',
};

/** `Approve`, `APPROVED`, ` approved ` → APPROVE; undefined for anything else. */
export function reviewDecision(value: string): ReviewDecision | undefined {
  const key = value.trim().toLowerCase();
  return Object.hasOwn(SPELLINGS, key) ? SPELLINGS[key] : undefined;
}

// Checked here, made canonical by the handler (reviewRequest): a transform in the schema would
// drop the request's examples from the OpenAPI document (they would describe its output).
const Decision = z.withMeta(
  z.string().check(z.refine((v) => reviewDecision(v) !== undefined, 'must be APPROVE, REJECT or REVIEW')),
  {
    type: 'string',
    enum: [...REVIEW_DECISIONS],
    description: 'APPROVE, REJECT or REVIEW; the family\'s spellings are read too, in any case (Approve, APPROVED, rejected, Review).',
  },
);

const Comment = z.withMeta(
  z.string().check(
    z.refine((v) => v.trim().length > 0, 'must not be empty'),
    z.refine((v) => [...v.trim()].length <= REVIEW_COMMENT_MAX, `must be at most ${REVIEW_COMMENT_MAX} characters`),
  ),
  { type: 'string', minLength: 1, maxLength: REVIEW_COMMENT_MAX, description: `Why: required, 1 to ${REVIEW_COMMENT_MAX} characters once trimmed (kept trimmed).` },
);

export const ReviewRequestSchema = z.withMeta(
  z.object({ status: Decision, comment: Comment }),
  {
    id: 'ProcessInstanceReviewRequest',
    examples: [
      { status: 'APPROVE', comment: 'Passport checked by hand against the selfie: same person.' },
      { status: 'REJECT', comment: 'The document is expired.' },
    ],
  },
);

/** A valid request as the decision takes it: the canonical decision, the comment trimmed. */
export function reviewRequest(body: { status: string; comment: string }): { decision: ReviewDecision; comment: string } {
  return { decision: reviewDecision(body.status)!, comment: body.comment.trim() };
}
