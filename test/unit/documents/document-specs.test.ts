/**
 * The document service steps as a definition sees them: a number input at its edges, a check no
 * engine here judges refused at publish unless accepted (or bypassed), and the family's decider
 * counting a NOT_ASSESSED check as a failure.
 */
import { describe, expect, it } from 'vitest';
import { validateDefinition } from '../../../statemachines/validate.js';
import { compileDefinition, NOT_ASSESSED_PATH } from '../../../statemachines/compile.js';
import { ValidationError } from '../../../functions/errors.js';
import { activitySpec } from '../../../statemachines/catalogue.js';

const definition = (type: string, inputs: Record<string, unknown>) => ({
  name: 'documents',
  version: 1,
  startActivityId: 'check',
  activities: {
    check: { type, inputs, next: 'decide' },
    decide: { type: 'SIMPLE_DECIDER', inputs: { 'Decision on Any Failure': 'REVIEW' }, next: 'End_done' },
  },
  ends: { End_done: {} },
});

const problems = (type: string, inputs: Record<string, unknown>): string[] => {
  try {
    validateDefinition(definition(type, inputs));
    return [];
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return (err.details ?? []).map((d) => d.message);
  }
};

describe('document detections at publish', () => {
  it.each(['PAPER_COPY_DETECTION', 'COLOR_COPY_DETECTION', 'PORTRAIT_SUBSTITUTION_DETECTION', 'PHOTO_SUBSTITUTION_DETECTION'])(
    '%s, which no engine here judges, is refused unless accepted as not assessed or bypassed',
    (type) => {
      expect(problems(type, {}).join('\n')).toMatch(/no document engine of this service can judge this check.*"Accept Not Assessed"/);
      // A threshold known only when the step runs might be anything but -1.
      expect(problems(type, { 'Detection Threshold': '${idv.threshold}' })).toHaveLength(1);
      expect(problems(type, { 'Accept Not Assessed': true })).toEqual([]);
      expect(problems(type, { 'Detection Threshold': -1 })).toEqual([]);
      expect(problems(type, { 'Detection Threshold': '${-1}' })).toEqual([]);
      // The acceptance must be known when the definition is published.
      expect(problems(type, { 'Accept Not Assessed': '${accept}' }).join('\n')).toMatch(/must be a literal value/);
    },
  );

  it.each(['SCREEN_REPLAY_DETECTION', 'BLACK_AND_WHITE_COPY_DETECTION'])('%s, which the embedded analysis judges, needs no acceptance', (type) => {
    expect(problems(type, {})).toEqual([]);
    expect(activitySpec(type)?.notAssessed).toBeUndefined();
  });

  it('takes a threshold as a number from -1 to 1, written as the family writes it', () => {
    const t = 'SCREEN_REPLAY_DETECTION';
    for (const ok of [-1, 0, 0.13572, 1, '0.5', '${0.014}', '.75', '${threshold}']) expect(problems(t, { 'Detection Threshold': ok })).toEqual([]);
    expect(problems(t, { 'Detection Threshold': 1.0001 }).join()).toMatch(/must be at most 1/);
    expect(problems(t, { 'Detection Threshold': -1.5 }).join()).toMatch(/must be at least -1/);
    for (const bad of ['abc', '0.5.1', true, '', 'Infinity']) expect(problems(t, { 'Detection Threshold': bad }).join()).toMatch(/must be a number/);
  });

  it('keeps the family bean names and error codes', () => {
    expect(activitySpec('SCREEN_REPLAY_DETECTION')?.family.beans).toEqual(['screenReplayDocAuthDetectionV1']);
    expect(activitySpec('DOCUMENT_PROCESSOR')?.family.beans).toEqual(['regulaDocumentProcessorV2']);
    expect(activitySpec('BLACK_AND_WHITE_COPY_DETECTION')?.errorEvents.map((e) => e.code)).toEqual(['failedDocumentBlackAndWhiteDetection', 'exceededFailedDocumentBnwCopyDetection']);
    expect(activitySpec('DOCUMENT_FACE_MATCHER')?.errorEvents.map((e) => e.code)).toEqual(['failedDocumentFaceMatching', 'exceededFailedDocumentFaceMatching']);
  });
});

describe("the family's decider", () => {
  it('counts a check recorded NOT_ASSESSED as a failure (Decision on Any Failure)', () => {
    const asl = compileDefinition(validateDefinition(definition('PAPER_COPY_DETECTION', { 'Accept Not Assessed': true })), {
      activityFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:a',
      executionEndFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:e',
    });
    const decide = asl.States.decide as { Choices: { Or?: { Variable: string }[]; Next: string }[] };
    const onFailure = decide.Choices.find((c) => c.Or?.some((r) => r.Variable === `${NOT_ASSESSED_PATH}[0]`));
    expect(onFailure?.Next).toBe('decide REVIEW');
  });
});
