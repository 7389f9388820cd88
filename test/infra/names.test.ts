import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGIONS } from '../../functions/config.js';
import { asArray, joined, ofType, synthesize, type Resource, type Synthesized } from './support.js';

/** Properties that give a resource a physical name (unique in the account and region, or globally). */
const NAME_PROPERTIES = [
  'FunctionName',
  'LogGroupName',
  'AliasName',
  'RoleName',
  'QueueName',
  'TopicName',
  'BucketName',
  'TableName',
  'DashboardName',
  'AlarmName',
  'StateMachineName',
  'LayerName',
  'ScheduleName',
  'ManagedPolicyName',
] as const;
/** Resource types whose `Name` is a physical name. */
const NAMED_BY_NAME = ['AWS::ApiGatewayV2::Api', 'AWS::Events::EventBus', 'AWS::Events::Rule', 'AWS::Scheduler::Schedule', 'AWS::SNS::Topic'];

/** A reference to another resource (a permission's FunctionName, say), not a name given here. */
const isReference = (v: unknown) => !!v && typeof v === 'object' && ('Ref' in v || 'Fn::GetAtt' in v || 'Fn::ImportValue' in v);

/** Each explicit physical name of a template, as `Type.Property = value` (pseudo parameters left as `<Name>`). */
function physicalNames(resources: Record<string, Resource>): { where: string; name: string }[] {
  const out: { where: string; name: string }[] = [];
  for (const [id, r] of Object.entries(resources)) {
    const props = r.Properties ?? {};
    const keys = [...NAME_PROPERTIES.filter((k) => props[k] !== undefined), ...(NAMED_BY_NAME.includes(r.Type) && props.Name !== undefined ? ['Name'] : [])];
    for (const k of keys) if (!isReference(props[k])) out.push({ where: `${id} ${r.Type}.${k}`, name: joined(props[k]) });
  }
  return out;
}

/**
 * Names unique in the whole account (IAM's), or in the partition (S3's buckets), not per AWS
 * region like the others: two deployments of one label in two regions of an account must differ.
 */
const ACCOUNT_WIDE = ['RoleName', 'ManagedPolicyName', 'InstanceProfileName', 'BucketName'];

/** The deletion policies that leave a resource behind when its stack is deleted. */
const KEPT = ['Retain', 'RetainExceptOnCreate'];

/** What a name must start with to belong to `label`'s deployment. */
const owned = (name: string, label: string) =>
  [`arthr-${label}`, `/aws/lambda/arthr-${label}-`, `alias/arthr-${label}-`, `/aws/vendedlogs/states/arthr-${label}`].some((p) => name.startsWith(p));

describe('three regions\u2019 deployments in one account and AWS region', () => {
  const synths = new Map<string, Synthesized>();
  beforeAll(() => {
    // All three labels mapped to the same AWS region: the worst case for name clashes.
    for (const label of REGIONS) synths.set(label, synthesize({ region: label, regions: { fir: 'eu-west-1', gum: 'eu-west-1', oak: 'eu-west-1' } }, { bundle: false }));
  }, 240_000);
  afterAll(() => {
    for (const s of synths.values()) rmSync(s.outdir, { recursive: true, force: true });
  });

  it('are stacks of different names, each its region\u2019s prefix (CloudFormation-generated names start with it)', () => {
    expect([...synths].map(([label, s]) => [label, s.stack.stackName])).toEqual(REGIONS.map((l) => [l, `arthr-${l}`]));
  });

  it('give every resource they name a name starting with their prefix', () => {
    for (const [label, s] of synths) {
      const names = physicalNames(s.template.toJSON().Resources);
      expect(names.length, label).toBeGreaterThan(150);
      for (const { where, name } of names) expect(owned(name, label), `${label}: ${where} = ${name}`).toBe(true);
    }
  });

  it('share no physical name', () => {
    const seen = new Map<string, string>();
    for (const [label, s] of synths) {
      // Names are unique per kind of resource (a dashboard and an API may share one).
      for (const { where, name } of physicalNames(s.template.toJSON().Resources)) {
        const key = `${where.split(' ')[1]!.split('.')[0]} ${name}`;
        expect(seen.get(key), `${label}: ${where} = ${name}`).toBeUndefined();
        seen.set(key, `${label}: ${where}`);
      }
    }
  });

  it('name what they keep after deletion after the stack\u2019s own instance (its id), so the next deployment of the label does not meet it', () => {
    for (const [label, s] of synths) {
      const resources = s.template.toJSON().Resources as Record<string, Resource>;
      const kept = physicalNames(resources).filter(({ where }) => KEPT.includes(resources[where.split(' ')[0]!]!.DeletionPolicy ?? ''));
      // The state machines' log group, kept with them (they outlive the stack).
      expect(kept.map((k) => k.where.split(' ')[1]), label).toContain('AWS::Logs::LogGroup.LogGroupName');
      // The same template deployed again (after a delete, or as another stack) resolves a name with
      // the stack id to another; a fixed one it would find still taken.
      for (const { where, name } of kept) expect(name, `${label}: ${where}`).toContain('<AWS::StackId>');
    }
  });

  it('grant on, and listen to, only their own region\u2019s state machines', () => {
    for (const [label, s] of synths) {
      const template = s.template;
      const statements = Object.values(ofType(template, 'AWS::IAM::Role'))
        .flatMap((r) => asArray<{ PolicyDocument: { Statement: { Action: unknown; Resource: unknown }[] } }>(r.Properties.Policies))
        .flatMap((p) => p.PolicyDocument.Statement);
      const stateMachineArns = statements
        .flatMap((st) => asArray(st.Resource).map((r) => joined(r)))
        .filter((arn) => arn.includes(':stateMachine:') || arn.includes(':execution:'));
      expect(stateMachineArns.length, label).toBeGreaterThan(0);
      for (const arn of stateMachineArns) expect(arn, label).toMatch(new RegExp(`:(stateMachine|execution):arthr-${label}-`));
      for (const rule of Object.values(ofType(template, 'AWS::Events::Rule'))) {
        const prefix = rule.Properties.EventPattern?.detail?.stateMachineArn?.[0]?.prefix;
        if (prefix) expect(joined(prefix), label).toMatch(new RegExp(`:stateMachine:arthr-${label}-$`));
      }
    }
  });
});

describe('two deployments of one label in two AWS regions of one account', () => {
  const deployments: Synthesized[] = [];
  beforeAll(() => {
    for (const awsRegion of ['eu-west-1', 'eu-central-1']) deployments.push(synthesize({ region: 'fir', regions: { fir: awsRegion, gum: 'us-east-1', oak: 'ap-southeast-2' } }, { bundle: false }));
  }, 240_000);
  afterAll(() => {
    for (const s of deployments) rmSync(s.outdir, { recursive: true, force: true });
  });

  it('share no name that is unique in the whole account (IAM roles and policies, buckets)', () => {
    const [first, second] = deployments.map((s) =>
      physicalNames(s.template.toJSON().Resources).filter(({ where }) => ACCOUNT_WIDE.includes(where.split('.').at(-1)!)),
    );
    expect(first!.map((n) => n.where), 'the delivery role at least').not.toEqual([]);
    const taken = new Set(first!.map((n) => n.name.toLowerCase()));
    // IAM names are case-insensitive.
    for (const { where, name } of second!) expect(taken.has(name.toLowerCase()), `${where} = ${name}`).toBe(false);
  });

  it('hand the delivery worker the ARN of their own delivery role', () => {
    for (const s of deployments) {
      const roles = ofType(s.template, 'AWS::IAM::Role');
      const delivery = Object.values(roles).find((r) => String(r.Properties.RoleName ?? '').endsWith('-subscriber-delivery'))!;
      const worker = Object.values(ofType(s.template, 'AWS::Lambda::Function')).find((f) => f.Properties.Environment?.Variables?.SUBSCRIBER_ROLE_ARN)!;
      expect(joined(worker.Properties.Environment.Variables.SUBSCRIBER_ROLE_ARN)).toBe(`arn:aws:iam::<AWS::AccountId>:role/${joined(delivery.Properties.RoleName)}`);
    }
  });
});
