import { rmSync } from 'node:fs';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '../../functions/routes.js';
import { SUBSCRIBER_TENANT_TAG } from '../../functions/webhooks/targets.js';
import { KEY_ADMIN_ACTIONS } from '../../lib/constructs/key-policies.js';
import { asArray, joined, ofType, refId, resourceAt, routeFunctionPath, statementsOf, synthesize, unacknowledgedNagFindings, type Resource, type Synthesized } from './support.js';

// Tenants apart in IAM, the key and trust half: who may use each KMS key (and for what), the
// table under a key of its own, and the conditions on every role an AWS service or the delivery
// worker assumes. Policies are asserted as documents: no IAM simulator is involved.

type KeyStatement = { Sid?: string; Effect: string; Principal: unknown; Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, unknown>> };

/** What uses a key, as opposed to administering it (a grant is a use given away). */
const USE = /^kms:(\*|Encrypt|Decrypt|ReEncrypt|GenerateDataKey|Sign|Verify|GetPublicKey|GenerateMac|VerifyMac|DeriveSharedSecret|CreateGrant|Get\*|Create\*)/;
const ACCOUNT = { Ref: 'AWS::AccountId' };
const ROOT = 'arn:aws:iam::<AWS::AccountId>:root';

describe('ArthrStack isolation: keys and trust', () => {
  let synth: Synthesized;
  let template: Template;
  const keys = () => Object.entries(ofType(template, 'AWS::KMS::Key'));
  const keyStatements = (key: Resource) => asArray<KeyStatement>(key.Properties.KeyPolicy.Statement);
  const keyId = (path: string) => resourceAt(template, 'AWS::KMS::Key', path)[0];
  const roles = () => Object.entries(ofType(template, 'AWS::IAM::Role'));
  const trust = (role: Resource) => asArray<KeyStatement>(role.Properties.AssumeRolePolicyDocument.Statement);
  /** The role paths a key policy statement names (aws:PrincipalArn `arn:aws:iam::{account}:role{path}*`). */
  const namedPaths = (st: KeyStatement) =>
    asArray(st.Condition?.ArnLike?.['aws:PrincipalArn']).map((p) => {
      const m = /^arn:aws:iam::<AWS::AccountId>:role(\/[^*]+\/)\*$/.exec(joined(p));
      if (!m) throw new Error(`not a role path pattern: ${joined(p)}`);
      return m[1]!;
    });
  /** Lambda roles by path, with their statements. */
  const lambdaRoles = () => rolesWhere((r) => JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('lambda.amazonaws.com'));
  /** The roles key policies may name: the Lambda roles and the tenant roles they assume (at `/{function}/tenant/`). */
  const keyUserRoles = () =>
    rolesWhere((r) => JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('lambda.amazonaws.com') || String(r.Properties.Path).endsWith('/tenant/'));
  const rolesWhere = (keep: (r: Resource) => boolean) =>
    roles()
      .filter(([, r]) => keep(r))
      .map(([id, r]) => ({ id, path: r.Properties.Path as string, statements: statementsOf(template, id) }));
  /** `{ path: [actions] }` of the roles granted KMS actions on the key `id` in their own policies. */
  const usersInRoles = (id: string) => {
    const out = new Map<string, Set<string>>();
    for (const role of keyUserRoles()) {
      for (const st of role.statements) {
        if (!asArray(st.Resource).some((r) => refId(r) === id)) continue;
        for (const a of asArray(st.Action).filter((x) => x.startsWith('kms:'))) out.set(role.path, new Set([...(out.get(role.path) ?? []), a]));
      }
    }
    return out;
  };
  /** The same, as the key's policy names them. */
  const usersInKeyPolicy = (id: string) => {
    const out = new Map<string, Set<string>>();
    for (const st of keyStatements(ofType(template, 'AWS::KMS::Key')[id]!)) {
      for (const path of namedPaths(st)) for (const a of asArray(st.Action)) out.set(path, new Set([...(out.get(path) ?? []), a]));
    }
    return out;
  };
  const sorted = (m: Map<string, Set<string>>) => Object.fromEntries([...m].map(([k, v]) => [k, [...v].sort()]).sort());
  const pathOf = (route: (typeof routeList)[number]) => `/${resourceAt(template, 'AWS::Lambda::Function', routeFunctionPath(route))[1].Properties.FunctionName}/`;

  beforeAll(() => {
    synth = synthesize({}, { bundle: false });
    template = synth.template;
  }, 120_000);
  afterAll(() => {
    if (synth) rmSync(synth.outdir, { recursive: true, force: true });
  });

  describe('key policies', () => {
    it('let the account administer every key, and use none', () => {
      expect(keys().map(([, k]) => k.Metadata?.['aws:cdk:path']).sort()).toEqual(
        ['ArthrStack/CloudSecretsKey', 'ArthrStack/Exports/Key', 'ArthrStack/Images/Key', 'ArthrStack/Operations/TopicKey', 'ArthrStack/SigningKey', 'ArthrStack/TableKey'].map((p) => `${p}/Resource`),
      );
      expect(KEY_ADMIN_ACTIONS.filter((a) => USE.test(a))).toEqual([]);
      for (const [id, key] of keys()) {
        const ofAccount = keyStatements(key).filter((st) => JSON.stringify(st.Principal).includes(':root'));
        expect(ofAccount, id).toHaveLength(1);
        expect(joined((ofAccount[0]!.Principal as { AWS: unknown }).AWS), id).toBe(ROOT);
        expect(ofAccount[0]!.Condition, id).toBeUndefined();
        expect(asArray(ofAccount[0]!.Action).sort(), id).toEqual([...KEY_ADMIN_ACTIONS].sort());
        // Nothing else is given to the account, to everyone unconditionally, or as a wildcard.
        for (const st of keyStatements(key)) {
          expect(st.Effect, id).toBe('Allow');
          expect(asArray(st.Action).filter((a) => a === 'kms:*'), id).toEqual([]);
          if (st === ofAccount[0]) continue;
          expect(st.Condition, `${id} ${st.Sid}`).toBeDefined();
        }
      }
    });

    it('give each use to named principals only: roles of this account by path, or a service for this account', () => {
      for (const [id, key] of keys()) {
        for (const st of keyStatements(key).filter((s) => asArray(s.Action).some((a) => USE.test(a)))) {
          const where = `${id} ${st.Sid}`;
          const principal = st.Principal as { Service?: string; AWS?: unknown } | string;
          if (typeof principal === 'object' && principal.Service) {
            // A service (CloudWatch publishing alarms): for this account's resources only.
            expect(st.Condition?.StringEquals?.['aws:SourceAccount'], where).toEqual(ACCOUNT);
            expect(st.Condition?.ArnLike?.['aws:SourceArn'], where).toBeDefined();
            continue;
          }
          expect(principal === '*' || (typeof principal === 'object' && principal.AWS === '*'), where).toBe(true);
          expect(st.Condition?.StringEquals?.['kms:CallerAccount'], where).toEqual(ACCOUNT);
          if (st.Sid === 'TableThroughDynamoDB') {
            // The table's key, through DynamoDB alone (whose table grants decide).
            expect(st.Condition, where).toEqual({ StringEquals: { 'kms:CallerAccount': ACCOUNT, 'kms:ViaService': 'dynamodb.eu-west-1.amazonaws.com' } });
            continue;
          }
          expect(namedPaths(st).length, where).toBeGreaterThan(0);
          // A function's role, or the tenant role it assumes (`/{function}/tenant/`).
          for (const path of namedPaths(st)) expect(path, where).toMatch(/^\/arthr-fir-[A-Za-z0-9-]+\/(tenant\/)?$/);
        }
      }
    });

    it('name exactly the roles whose own policy uses the key, for those actions', () => {
      const used = ['ArthrStack/SigningKey', 'ArthrStack/TableKey', 'ArthrStack/Images/Key', 'ArthrStack/Exports/Key', 'ArthrStack/CloudSecretsKey'];
      for (const path of used) {
        const id = keyId(path);
        expect(usersInRoles(id).size, path).toBeGreaterThan(0);
        expect(sorted(usersInKeyPolicy(id)), path).toEqual(sorted(usersInRoles(id)));
      }
      // Each named path is the path of one role.
      const paths = keyUserRoles().map((r) => r.path);
      expect(new Set(paths).size).toBe(paths.length);
    });

    it('let only the token issue route sign, RS256 digests only, and only the routes that check tokens read the public key', () => {
      const key = ofType(template, 'AWS::KMS::Key')[keyId('ArthrStack/SigningKey')]!;
      const sign = keyStatements(key).filter((st) => asArray(st.Action).includes('kms:Sign'));
      expect(sign).toHaveLength(1);
      expect(asArray(sign[0]!.Action)).toEqual(['kms:Sign']);
      expect(namedPaths(sign[0]!)).toEqual(routeList.filter((r) => r.aws.signingKey === 'sign').map(pathOf));
      expect(namedPaths(sign[0]!)).toEqual(['/arthr-fir-issueToken/']);
      expect(sign[0]!.Condition!.StringEquals).toMatchObject({ 'kms:SigningAlgorithm': 'RSASSA_PKCS1_V1_5_SHA_256', 'kms:MessageType': 'DIGEST' });
      const publicKey = keyStatements(key).filter((st) => asArray(st.Action).includes('kms:GetPublicKey'));
      expect(publicKey).toHaveLength(1);
      expect(namedPaths(publicKey[0]!).sort()).toEqual(routeList.filter((r) => r.aws.signingKey === 'publicKey').map(pathOf).sort());
      // Nothing verifies with KMS (the authorizer and the handlers verify with the public key).
      expect(keyStatements(key).flatMap((st) => asArray(st.Action)).filter((a) => USE.test(a)).sort()).toEqual(['kms:GetPublicKey', 'kms:Sign']);
    });

    it('let the sealing key seal and unseal each kind of secret by its own roles, in its own context', () => {
      const key = ofType(template, 'AWS::KMS::Key')[keyId('ArthrStack/CloudSecretsKey')]!;
      const uses = keyStatements(key)
        .filter((st) => st.Sid !== 'AccountAdministersOnly')
        .map((st) => [asArray(st.Action).join(), st.Condition!.StringEquals!['kms:EncryptionContext:purpose'], namedPaths(st).sort()]);
      const sealing = (what: 'cloudSecrets' | 'webhooks') =>
        routeList.filter((r) => (what === 'cloudSecrets' ? r.aws.cloudSecrets === 'seal' : r.aws.webhooks?.includes('Seal'))).map(pathOf).sort();
      expect(uses.sort()).toEqual(
        [
          ['kms:Decrypt', 'cloud-secret', ['/arthr-fir-activities/']],
          ['kms:Decrypt', 'webhook-secret', ['/arthr-fir-deliverWebhooks/']],
          ['kms:Encrypt', 'cloud-secret', sealing('cloudSecrets')],
          ['kms:Encrypt', 'webhook-secret', sealing('webhooks')],
        ].sort(),
      );
    });

    it('let the bucket keys be used only through S3, for objects under tenants/', () => {
      for (const path of ['ArthrStack/Images/Key', 'ArthrStack/Exports/Key']) {
        const key = ofType(template, 'AWS::KMS::Key')[keyId(path)]!;
        for (const st of keyStatements(key).filter((s) => asArray(s.Action).some((a) => USE.test(a)))) {
          if (st.Condition?.StringEquals?.['kms:EncryptionContext:purpose']) {
            expect(st.Condition.StringEquals['kms:EncryptionContext:purpose'], path).toBe('export-password');
            continue;
          }
          expect(st.Condition?.StringEquals?.['kms:ViaService'], `${path} ${st.Sid}`).toBe('s3.eu-west-1.amazonaws.com');
          // Under tenants/, or for a tenant role's session, under its own tenant's prefix.
          const tenantOnly = namedPaths(st).every((p) => p.endsWith('/tenant/'));
          expect(st.Condition?.StringLike?.['kms:EncryptionContext:aws:s3:arn'], `${path} ${st.Sid}`).toBe(
            tenantOnly ? 'arn:aws:s3:::*/tenants/${aws:PrincipalTag/arthr-tenant}/*' : 'arn:aws:s3:::*/tenants/*',
          );
        }
      }
    });
  });

  describe('the table', () => {
    it('is encrypted with a customer-managed key of its own, rotated and kept with the table', () => {
      const [, table] = resourceAt(template, 'AWS::DynamoDB::Table', 'ArthrStack/Table');
      const [id, key] = resourceAt(template, 'AWS::KMS::Key', 'ArthrStack/TableKey');
      expect(table.Properties.SSESpecification).toEqual({ SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: { 'Fn::GetAtt': [id, 'Arn'] } });
      expect(key.Properties.EnableKeyRotation).toBe(true);
      expect(key.Properties.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
      expect(key).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
      const aliases = Object.values(ofType(template, 'AWS::KMS::Alias')).filter((a) => refId(a.Properties.TargetKeyId) === id);
      expect(aliases.map((a) => a.Properties.AliasName)).toEqual(['alias/arthr-fir-table']);
    });

    it("is read through DynamoDB by whoever DynamoDB lets in, and its stream by the stream's two consumers", () => {
      const id = keyId('ArthrStack/TableKey');
      const key = ofType(template, 'AWS::KMS::Key')[id]!;
      const viaDynamoDB = keyStatements(key).find((st) => st.Sid === 'TableThroughDynamoDB')!;
      expect(asArray(viaDynamoDB.Action).sort()).toEqual(['kms:CreateGrant', 'kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey*', 'kms:ReEncrypt*']);
      // The stream consumers (the image clean-up, the outbox relay) are named, for kms:Decrypt.
      const decrypt = keyStatements(key).filter((st) => st.Sid !== 'TableThroughDynamoDB' && asArray(st.Action).includes('kms:Decrypt'));
      expect(decrypt.flatMap(namedPaths).sort()).toEqual(['/arthr-fir-onInstanceExpired/', '/arthr-fir-relayEvents/']);
      const streamReaders = lambdaRoles().filter((r) => r.statements.some((st) => asArray(st.Action).includes('dynamodb:GetRecords')));
      expect(streamReaders.map((r) => r.path).sort()).toEqual(['/arthr-fir-onInstanceExpired/', '/arthr-fir-relayEvents/']);
      for (const r of streamReaders) {
        expect(r.statements.some((st) => asArray(st.Action).includes('kms:Decrypt') && asArray(st.Resource).some((x) => refId(x) === id)), r.path).toBe(true);
      }
    });
  });

  describe('trust policies', () => {
    it('let AWS services assume a role only for this account, and Step Functions only for this deployment\'s state machines', () => {
      const serviceRoles = roles().filter(([, r]) => trust(r).some((st) => JSON.stringify(st.Principal).includes('"Service"')));
      expect(serviceRoles.length).toBe(lambdaRoles().length + 1);
      for (const [id, r] of serviceRoles) {
        for (const st of trust(r)) {
          expect(st.Condition?.StringEquals?.['aws:SourceAccount'], id).toEqual(ACCOUNT);
        }
      }
      const states = serviceRoles.filter(([, r]) => JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('states.amazonaws.com'));
      expect(states).toHaveLength(1);
      expect(trust(states[0]![1]).map((st) => ({ ...st, Condition: { ...st.Condition, ArnLike: { 'aws:SourceArn': joined(st.Condition!.ArnLike!['aws:SourceArn']) } } }))).toEqual([
        {
          Effect: 'Allow',
          Action: 'sts:AssumeRole',
          Principal: { Service: 'states.amazonaws.com' },
          Condition: { StringEquals: { 'aws:SourceAccount': ACCOUNT }, ArnLike: { 'aws:SourceArn': 'arn:aws:states:eu-west-1:<AWS::AccountId>:stateMachine:arthr-fir-*' } },
        },
      ]);
    });

    it('leave services no other way in: what invokes a function or writes to a queue or bucket is named by its source', () => {
      const permissions = Object.values(ofType(template, 'AWS::Lambda::Permission'));
      expect(permissions.length).toBeGreaterThan(0);
      for (const p of permissions) {
        expect(p.Properties.Principal, JSON.stringify(p.Properties)).toMatch(/^(apigateway|events)\.amazonaws\.com$/);
        expect(p.Properties.SourceArn, JSON.stringify(p.Properties)).toBeDefined();
      }
      for (const type of ['AWS::SQS::QueuePolicy', 'AWS::SNS::TopicPolicy', 'AWS::S3::BucketPolicy', 'AWS::Events::EventBusPolicy']) {
        for (const r of Object.values(ofType(template, type))) {
          // A Deny lets no one in (the pages bucket's keeps CloudFront to page files, whatever distribution asks).
          const allows = asArray<KeyStatement>(r.Properties.PolicyDocument.Statement).filter((s) => s.Effect !== 'Deny');
          for (const st of allows.filter((s) => JSON.stringify(s.Principal ?? '').includes('"Service"'))) {
            // Condition keys are case-insensitive: CDK's CloudFront origin access grant writes `AWS:SourceArn`.
            expect(JSON.stringify(st.Condition ?? {}).toLowerCase(), `${type} ${JSON.stringify(st.Principal)}`).toContain('aws:sourcearn');
          }
        }
      }
    });

    it("give every function's role the path of its function, so that key policies can name it", () => {
      const functions = Object.values(ofType(template, 'AWS::Lambda::Function'));
      expect(functions.length).toBe(lambdaRoles().length);
      for (const f of functions) {
        const role = ofType(template, 'AWS::IAM::Role')[refId(f.Properties.Role)!]!;
        expect(role.Properties.Path, f.Properties.FunctionName).toBe(`/${f.Properties.FunctionName}/`);
        expect(trust(role), f.Properties.FunctionName).toEqual([
          { Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'lambda.amazonaws.com' }, Condition: { StringEquals: { 'aws:SourceAccount': ACCOUNT } } },
        ]);
      }
    });

    it("let the delivery worker take the subscriber role only with the tenant's tag and no other", () => {
      const [, role] = roles().find(([, r]) => r.Properties.RoleName === 'arthr-fir-eu-west-1-subscriber-delivery')!;
      const [workerFn] = Object.values(ofType(template, 'AWS::Lambda::Function')).filter((f) => f.Properties.FunctionName === 'arthr-fir-deliverWebhooks');
      const worker = { AWS: { 'Fn::GetAtt': [refId(workerFn!.Properties.Role), 'Arn'] } };
      const tags = {
        'ForAllValues:StringEquals': { 'aws:TagKeys': [SUBSCRIBER_TENANT_TAG] },
        StringLike: { [`aws:RequestTag/${SUBSCRIBER_TENANT_TAG}`]: '?*' },
        Null: { 'sts:TransitiveTagKeys': 'true' },
      };
      // The session name on AssumeRole only: TagSession's request has none, and a condition on a
      // key a request lacks would refuse every tagged session.
      expect(trust(role)).toEqual([
        { Effect: 'Allow', Action: 'sts:AssumeRole', Principal: worker, Condition: { ...tags, StringLike: { ...tags.StringLike, 'sts:RoleSessionName': 'arthr-?*' } } },
        { Effect: 'Allow', Action: 'sts:TagSession', Principal: worker, Condition: tags },
      ]);
      // The worker's own grant asks for no more than the trust allows.
      const asWorker = statementsOf(template, refId(workerFn!.Properties.Role)!).find((st) => asArray(st.Action).includes('sts:TagSession'))!;
      expect(asWorker.Condition).toEqual({ 'ForAllValues:StringEquals': { 'aws:TagKeys': [SUBSCRIBER_TENANT_TAG] }, StringLike: { [`aws:RequestTag/${SUBSCRIBER_TENANT_TAG}`]: '?*' } });
    });
  });

  it('makes no cycle in any template: key policies name roles without referring to them', () => {
    for (const [path, t] of synth.stacks) {
      const resources = (t.toJSON() as { Resources: Record<string, Resource> }).Resources;
      const edges = new Map<string, Set<string>>();
      const refsIn = (v: unknown, out: Set<string>): Set<string> => {
        if (Array.isArray(v)) v.forEach((x) => refsIn(x, out));
        else if (v && typeof v === 'object') {
          const id = refId(v);
          if (id && id in resources) out.add(id);
          const sub = (v as Record<string, unknown>)['Fn::Sub'];
          const text = Array.isArray(sub) ? sub[0] : sub;
          if (typeof text === 'string') for (const m of text.matchAll(/\$\{([A-Za-z0-9]+)(?:\.[A-Za-z.]+)?\}/g)) if (m[1]! in resources) out.add(m[1]!);
          Object.values(v).forEach((x) => refsIn(x, out));
        }
        return out;
      };
      for (const [id, r] of Object.entries(resources)) edges.set(id, refsIn(r.Properties ?? {}, new Set(asArray(r.DependsOn))));
      const state = new Map<string, 'open' | 'done'>();
      const visit = (id: string, trail: string[]): void => {
        if (state.get(id) === 'done') return;
        if (state.get(id) === 'open') throw new Error(`${path}: cycle ${[...trail.slice(trail.indexOf(id)), id].join(' -> ')}`);
        state.set(id, 'open');
        for (const next of edges.get(id) ?? []) visit(next, [...trail, id]);
        state.set(id, 'done');
      };
      for (const id of edges.keys()) visit(id, []);
    }
  });

  it('leaves no cdk-nag finding unacknowledged', () => {
    expect(unacknowledgedNagFindings(synth.app)).toEqual([]);
  });
});
