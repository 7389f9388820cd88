import { describe, expect, it } from 'vitest';
import { synthesize } from './support.js';

/** CloudFormation refuses a stack of more than 500 resources; every route costs about six. */
const CLOUDFORMATION_MAX_RESOURCES = 500;

describe('the stack', () => {
  it.each([['tracing off', {}], ['tracing on', { tracing: 'true' }]])(
    'stays within CloudFormation\u2019s 500 resources (%s)',
    (_label, context) => {
      const count = Object.keys(synthesize(context, { bundle: false }).template.toJSON().Resources).length;
      console.log(`resources with ${_label}: ${count} of ${CLOUDFORMATION_MAX_RESOURCES}`);
      expect(count).toBeLessThanOrEqual(CLOUDFORMATION_MAX_RESOURCES);
    },
    120_000,
  );
});
