import { expect } from 'vitest';
import { ValidationError } from '../../../functions/errors.js';
import { validateDefinition } from '../../../statemachines/validate.js';

export const ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:activity';
/** The execution-end function every compiled state machine's last state invokes. */
export const END_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:execution-end';

type Json = Record<string, unknown>;

export const PUSH_INPUTS: Json = {
  Title: 'Sign-in request',
  Message: 'Approve the sign-in on your phone.',
  'Relying Party ID': 'appkeys1',
  'Store Name': 'customers',
  'Time To Live (Seconds)': 300,
  'Push Notification Process Definition Name': 'approve-sign-in',
  'Push Notification Process Definition Version': 1,
  'User External ID': '${externalId}',
};

/**
 * push (Svc Push Notification) → wait (Wait on Push Notification) → decide (Simple Decider),
 * with the push's and the wait's inputs replaced or extended by the overrides.
 */
export function pushFlow(opts: { push?: Json; wait?: Json; activities?: Json; drop?: string[] } = {}): Json {
  const pushInputs: Json = { ...PUSH_INPUTS, ...opts.push };
  for (const name of opts.drop ?? []) delete pushInputs[name];
  return {
    name: 'push-approval',
    version: 1,
    startActivityId: 'push',
    activities: {
      push: { type: 'SVC_PUSH_NOTIFICATION', inputs: pushInputs, next: 'wait' },
      wait: { type: 'WAIT_ON_PUSH_NOTIFICATION', inputs: { ...opts.wait }, next: 'decide' },
      decide: {
        type: 'SIMPLE_DECIDER',
        rules: [{ when: { variable: '_checks.push.result', equals: 'PASS' }, outcome: 'PASS' }],
        default: 'FAIL',
      },
      ...opts.activities,
    },
  };
}

/** A definition of one activity (plus whatever else is given), starting there. */
export function single(type: string, inputs: Json, extra: Json = {}): Json {
  return { name: 'single', version: 1, startActivityId: 'a', activities: { a: { type, inputs }, ...extra } };
}

export function refusal(def: unknown): ValidationError {
  try {
    validateDefinition(def);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error('expected validateDefinition to refuse the definition');
}

/**
 * Asserts a 400 VALIDATION_FAILED whose details hold `location`, with a message that mentions
 * every one of `mentions` (the activity id and the input name, typically).
 */
export function expectRefused(def: unknown, location: string, ...mentions: string[]): ValidationError {
  const err = refusal(def);
  expect(err.statusCode).toBe(400);
  expect(err.code).toBe('VALIDATION_FAILED');
  const detail = err.details?.find((d) => d.location === location);
  expect(detail, `no detail at ${location}; got ${JSON.stringify(err.details)}`).toBeDefined();
  for (const m of mentions) expect(detail!.message).toContain(m);
  return err;
}
