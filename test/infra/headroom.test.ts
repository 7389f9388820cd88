import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RouteDef } from '../../functions/http/route.js';
import { routeList } from '../../functions/routes.js';
import { ofType, synthesize, type Synthesized } from './support.js';

/** CloudFormation's quotas per stack (each nested stack is a stack of its own). */
const MAX_RESOURCES = 500;
const MAX_PARAMETERS = 200;
const MAX_OUTPUTS = 200;
/** A template CloudFormation reads from S3 (as it reads nested stacks' templates). */
const MAX_TEMPLATE_BYTES = 1_000_000;
/** The HTTP API's routes per API (adjustable, but the stack should not need it). */
const MAX_API_ROUTES = 300;

/** Every route again, under another operation id and path: the route table at twice its size. */
function doubled(routes: readonly RouteDef[]): RouteDef[] {
  return [...routes, ...routes.map((r) => ({ ...r, operationId: `${r.operationId}Copy`, path: `${r.path}/copy` }))];
}

function limitsOf(synth: Synthesized) {
  return [...synth.stacks].map(([path, t]) => {
    const json = t.toJSON() as { Resources: object; Parameters?: object; Outputs?: object };
    return {
      path,
      resources: Object.keys(json.Resources).length,
      parameters: Object.keys(json.Parameters ?? {}).length,
      outputs: Object.keys(json.Outputs ?? {}).length,
      bytes: JSON.stringify(json).length,
    };
  });
}

function expectWithinLimits(synth: Synthesized) {
  for (const s of limitsOf(synth)) {
    expect(s.resources, `${s.path} resources`).toBeLessThanOrEqual(MAX_RESOURCES);
    expect(s.parameters, `${s.path} parameters`).toBeLessThanOrEqual(MAX_PARAMETERS);
    expect(s.outputs, `${s.path} outputs`).toBeLessThanOrEqual(MAX_OUTPUTS);
    expect(s.bytes, `${s.path} template size`).toBeLessThanOrEqual(MAX_TEMPLATE_BYTES);
  }
}

describe('the stack\u2019s headroom', () => {
  it.each([['tracing off', {}], ['tracing on', { tracing: 'true' }]])(
    'keeps every stack within CloudFormation\u2019s quotas with today\u2019s routes (%s)',
    (label, context) => {
      const synth = synthesize(context, { bundle: false });
      try {
        const limits = limitsOf(synth);
        console.log(`${label}: ${limits.map((s) => `${s.path} ${s.resources}`).join(', ')}`);
        expectWithinLimits(synth);
        // The routes live in nested stacks: the parent's size does not grow with them. It holds
        // the shared parts (table, keys, buckets, queues, the journey, event and export workers with
        // their roles and tenant roles): 133 of 500 on 2026-11-27 (with the webhook retry queue and
        // sweeper, and the activity function's tenant role), under 30% of the quota.
        expect(limits[0]!.resources).toBeLessThan(MAX_RESOURCES * 0.3);
      } finally {
        rmSync(synth.outdir, { recursive: true, force: true });
      }
    },
    120_000,
  );

  it('fits twice today\u2019s routes, with the parent stack no larger than with today\u2019s', () => {
    const today = synthesize({}, { bundle: false });
    const twice = synthesize({}, { bundle: false, routes: doubled(routeList) });
    try {
      expect(ofType(twice.template, 'AWS::ApiGatewayV2::Route')).toSatisfy((r: object) => Object.keys(r).length === routeList.length * 2);
      expect(routeList.length * 2).toBeLessThanOrEqual(MAX_API_ROUTES);
      expectWithinLimits(twice);
      const parent = (s: Synthesized) => Object.keys(s.parent.toJSON().Resources as object).length;
      expect(parent(twice)).toBe(parent(today));
      console.log(`twice the routes: ${limitsOf(twice).map((s) => `${s.path} ${s.resources}`).join(', ')}`);
    } finally {
      rmSync(today.outdir, { recursive: true, force: true });
      rmSync(twice.outdir, { recursive: true, force: true });
    }
  }, 240_000);

  it('refuses at synth an area whose routes would not fit one nested stack', () => {
    const identityStore = routeList.filter((r) => r.handler.startsWith('functions/identity-store/'));
    const many = Array.from({ length: Math.ceil(MAX_RESOURCES / 6 / identityStore.length) + 1 }, (_, i) =>
      identityStore.map((r) => ({ ...r, operationId: `${r.operationId}N${i}`, path: `${r.path}/n${i}` })),
    ).flat();
    expect(() => synthesize({}, { bundle: false, routes: [...routeList, ...many] })).toThrow(/identity-store routes need about \d+ resources/);
  }, 120_000);
});
