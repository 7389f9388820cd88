import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { RouteDef } from '../../functions/http/route.js';
import { routeStackId } from '../../lib/constructs/route-stack.js';
import { ArthrStack, REPO_ROOT, settingsFromContext } from '../../lib/stack.js';

// Building the app the way bin/app.ts does, with cdk.json's context, and reading the template.

export interface Synthesized {
  app: App;
  stack: ArthrStack;
  /**
   * The whole deployment as one template: the parent stack's resources and every nested stack's,
   * with the nested stacks' parameters replaced by what the parent passes them (see `flatten`),
   * so a test reads a route's function and its grants the way it would in a single stack.
   */
  template: Template;
  /** The parent stack's own template (what CloudFormation counts against the parent's limits). */
  parent: Template;
  /** Every stack's own template, the parent's first, by construct path. */
  stacks: Map<string, Template>;
  outdir: string;
}

export function cdkJsonContext(): Record<string, unknown> {
  return (JSON.parse(readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;
}

/**
 * cdk-nag's acknowledgement aspect is added so the template carries the `cdk_nag` audit
 * metadata; the pack itself runs in a test (validateScope) so that a finding fails that test
 * with its rule and path instead of aborting the synth for every test. `bundle: false` skips
 * esbuild (CDK's bundling-stacks context) for variants that only look at the template.
 */
export function synthesize(overrides: Record<string, unknown> = {}, opts: { bundle?: boolean; routes?: readonly RouteDef[] } = {}): Synthesized {
  const outdir = mkdtempSync(path.join(tmpdir(), 'arthr-cdk-'));
  const context: Record<string, unknown> = {
    ...cdkJsonContext(),
    // Set by the CDK CLI on every synth: construct paths and asset paths in resource metadata.
    'aws:cdk:enable-path-metadata': true,
    'aws:cdk:enable-asset-metadata': true,
    ...overrides,
  };
  if (opts.bundle === false) context['aws:cdk:bundling-stacks'] = [];
  const app = new App({ context, outdir });
  const settings = settingsFromContext(app.node);
  const stack = new ArthrStack(app, 'ArthrStack', { settings, env: { region: settings.awsRegion }, ...(opts.routes ? { routes: opts.routes } : {}) });
  new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true });
  const stacks = new Map<string, Template>([[stack.node.path, Template.fromStack(stack)]]);
  for (const nested of nestedStacksOf(stack)) stacks.set(nested.node.path, Template.fromStack(nested));
  return { app, stack, template: Template.fromJSON(flatten(stack)), parent: stacks.get(stack.node.path)!, stacks, outdir };
}

/** The nested stacks directly under `stack` (not deeper ones). */
export function nestedStacksOf(stack: Stack): NestedStack[] {
  return stack.node.findAll().filter((c): c is NestedStack => NestedStack.isNestedStack(c) && c.nestedStackParent === stack);
}

type Json = Record<string, any>;

/** `value` with every `{Ref: p}` of a key of `params` replaced by its value. */
function substitute(value: unknown, params: Json, outputs: (logicalId: string, output: string) => unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => substitute(v, params, outputs));
  if (!value || typeof value !== 'object') return value;
  const v = value as Json;
  if (typeof v.Ref === 'string' && v.Ref in params && Object.keys(v).length === 1) return params[v.Ref];
  const getAtt = v['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[1] === 'string' && getAtt[1].startsWith('Outputs.')) {
    const resolved = outputs(getAtt[0] as string, getAtt[1].slice('Outputs.'.length));
    if (resolved !== undefined) return resolved;
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, params, outputs)]));
}

/**
 * One template holding `stack`'s resources and, recursively, its nested stacks' (whose logical
 * ids must not collide): in a nested stack, a parameter the parent fills with `{Ref: Table}` reads
 * `{Ref: Table}` again, and in the parent, a nested stack's output reads as its value. The nested
 * stacks' own AWS::CloudFormation::Stack resources stay in, so counts by type still see them.
 */
export function flatten(stack: Stack): Json {
  const own = Template.fromStack(stack).toJSON() as Json;
  const resources: Json = { ...own.Resources };
  const nestedOutputs = new Map<string, Json>();
  for (const nested of nestedStacksOf(stack)) {
    const logicalId = stack.getLogicalId(nested.nestedStackResource as never);
    const params = (own.Resources[logicalId] as Json).Properties.Parameters ?? {};
    const inner = flatten(nested);
    const outputs = (inner.Outputs ?? {}) as Json;
    nestedOutputs.set(logicalId, Object.fromEntries(Object.entries(outputs).map(([k, o]) => [k, substitute((o as Json).Value, params, () => undefined)])));
    for (const [id, r] of Object.entries(inner.Resources as Json)) {
      if (id in resources) throw new Error(`logical id ${id} of ${nested.node.path} is also in ${stack.node.path}`);
      resources[id] = substitute(r, params, () => undefined);
    }
  }
  const fromNested = (id: string, output: string) => nestedOutputs.get(id)?.[output];
  return { ...own, Resources: substitute(resources, {}, fromNested) };
}

/** AwsSolutions findings that no acknowledgement covers, one line each. */
export function unacknowledgedNagFindings(app: App): string[] {
  return new AwsSolutionsChecks()
    .validateScope(app)
    .violations.flatMap((v) => v.violatingResources.map((r) => `${v.severity} ${v.ruleName} at ${r.constructPath}: ${v.description}`));
}

export type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, any>; DependsOn?: string[]; DeletionPolicy?: string };
export type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Principal?: unknown; Condition?: unknown };

export const ofType = (template: Template, type: string) => template.findResources(type) as Record<string, Resource>;
export const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Logical id behind `{ Ref: id }` or `{ 'Fn::GetAtt': [id, attr] }`. */
export function refId(value: unknown): string | undefined {
  if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (typeof v.Ref === 'string') return v.Ref;
    const getAtt = v['Fn::GetAtt'];
    if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return getAtt[0];
  }
  return undefined;
}

/** Every policy statement attached to a role, inline or as a separate AWS::IAM::Policy. */
export function statementsOf(template: Template, roleId: string): Statement[] {
  const role = ofType(template, 'AWS::IAM::Role')[roleId]!;
  const inline = asArray(role.Properties.Policies).flatMap((p: any) => asArray<Statement>(p.PolicyDocument.Statement));
  const attached = Object.values(ofType(template, 'AWS::IAM::Policy'))
    .filter((p) => asArray(p.Properties.Roles).some((r) => refId(r) === roleId))
    .flatMap((p) => asArray<Statement>(p.Properties.PolicyDocument.Statement));
  return [...inline, ...attached];
}

/** The resource (logical id and body) made by the construct at `constructPath` (its `/Resource`). */
export function resourceAt(template: Template, type: string, constructPath: string): [string, Resource] {
  const want = `${constructPath}/Resource`;
  const hit = Object.entries(ofType(template, type)).find(([, r]) => r.Metadata?.['aws:cdk:path'] === want);
  if (!hit) throw new Error(`no ${type} at ${constructPath}`);
  return hit;
}

/**
 * A string as CloudFormation will see it once deployed, with each pseudo parameter or reference
 * left as `<Name>`: `Fn::Join` of literals and `Ref`s, the way `Stack.formatArn` builds ARNs.
 */
export function joined(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Record<string, unknown>;
  if (typeof v.Ref === 'string') return `<${v.Ref}>`;
  const getAtt = v['Fn::GetAtt'];
  if (Array.isArray(getAtt)) return `<${getAtt.join('.')}>`;
  const join = v['Fn::Join'] as [string, unknown[]] | undefined;
  if (join) return join[1].map(joined).join(join[0]);
  // One piece of a string cut at a delimiter (the UUID of `AWS::StackId`, say), as `<source/delimiter/index>`.
  const select = v['Fn::Select'] as [number | string, { 'Fn::Split'?: [string, unknown] }] | undefined;
  const split = select?.[1]?.['Fn::Split'];
  if (select && split) return `<${joined(split[1])}${split[0]}${select[0]}>`;
  throw new Error(`not a joinable string: ${JSON.stringify(value)}`);
}

export const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The construct path of a route's function (in its area's nested stack). */
export function routeFunctionPath(route: RouteDef): string {
  return `ArthrStack/${routeStackId(route.handler.split('/')[1]!)}/${pascal(route.operationId)}/Function`;
}

/** The construct path of a route's API route (beside its function). */
export function apiRoutePath(route: RouteDef): string {
  return `ArthrStack/${routeStackId(route.handler.split('/')[1]!)}/${pascal(route.operationId)}Route`;
}
