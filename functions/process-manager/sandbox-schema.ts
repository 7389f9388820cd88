/** The schema of a test-mode token's forced outcomes (docs/sandbox.md); what it does is sandbox.ts. */
import * as z from '../shared/zod.js';

export const SANDBOX_OUTCOMES = ['PASS', 'FAIL', 'REVIEW'] as const;
export type SandboxOutcome = (typeof SANDBOX_OUTCOMES)[number];
export const MAX_FORCED_CHECKS = 50;

const Outcome = z.enum(SANDBOX_OUTCOMES);
const CheckKey = z.string().check(z.regex(/^[A-Za-z0-9_.-]{1,64}$/, 'check keys are 1-64 letters, digits, _ . or -'));

/** Strict: an unknown member (a typo such as `decison`) is refused, never ignored, so a test forces what it says. */
export const SandboxSchema = z.withMeta(
  z
    .strictObject({
      checks: z.withMeta(
        z.optional(
          z.record(CheckKey, Outcome).check(z.refine((m) => Object.keys(m).length <= MAX_FORCED_CHECKS, `at most ${MAX_FORCED_CHECKS} checks`)),
        ),
        { description: 'The outcome each check is forced to, by its key (a Face Key, `faceMatch`, a watchlist Check Key).' },
      ),
      decision: z.withMeta(z.optional(Outcome), { description: "The journey's decision, forced where its outcome is recorded: PASS, FAIL or REVIEW." }),
    })
    .check(z.refine((s) => s.checks !== undefined || s.decision !== undefined, 'give checks, decision or both')),
  {
    id: 'Sandbox',
    description: 'Forced outcomes for a test-mode token (forTest true) and its instances; refused (SANDBOX_NOT_FOR_TEST) on any other token.',
  },
);

