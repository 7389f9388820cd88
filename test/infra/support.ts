import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ArthrStack, REPO_ROOT, settingsFromContext } from '../../lib/stack.js';

// Building the app the way bin/app.ts does, with cdk.json's context, and reading the template.

export interface Synthesized {
  app: App;
  stack: ArthrStack;
  template: Template;
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
export function synthesize(overrides: Record<string, unknown> = {}, opts: { bundle?: boolean } = {}): Synthesized {
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
  const stack = new ArthrStack(app, 'ArthrStack', { settings, env: { region: settings.awsRegion } });
  new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true });
  return { app, stack, template: Template.fromStack(stack), outdir };
}

/** AwsSolutions findings that no acknowledgement covers, one line each. */
export function unacknowledgedNagFindings(app: App): string[] {
  return new AwsSolutionsChecks()
    .validateScope(app)
    .violations.flatMap((v) => v.violatingResources.map((r) => `${v.severity} ${v.ruleName} at ${r.constructPath}: ${v.description}`));
}

export type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, any>; DependsOn?: string[] };
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
  const join = v['Fn::Join'] as [string, unknown[]] | undefined;
  if (join) return join[1].map(joined).join(join[0]);
  throw new Error(`not a joinable string: ${JSON.stringify(value)}`);
}

export const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
