import { rmSync } from 'node:fs';
import { runSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityFunctionAccess } from '../../functions/activities/access.js';
import { isRateLimited, type RouteDef } from '../../functions/http/route.js';
import { routeList } from '../../functions/routes.js';
import { TENANT_SESSION_TAG } from '../../functions/shared/tenant-scope.js';
import { TABLE_SCHEMA } from '../../functions/store/schema.js';
import { asArray, ofType, resourceAt, routeFunctionPath, synthesize, type Resource, type Synthesized } from './support.js';

// Tenants apart in IAM, proven by evaluation: the synthesized policies of every route function
// that touches the table, run through an IAM policy simulator (@cloud-copilot/iam-simulate) with
// the requests its code makes, as tenant "alpha", against tenant "beta"'s partitions. The
// template's references are made concrete first (an account, a region, each role's ARN).

const ACCOUNT = '111122223333';
const REGION = 'eu-west-1';
type Decision = 'Allowed' | 'ImplicitlyDenied' | 'ExplicitlyDenied';

const touchesTable = (r: RouteDef) => Boolean(r.aws.table?.length || r.aws.queryIndexes || isRateLimited(r));

/**
 * The functions that are not routes and act for one tenant per record (functions/shared/tenant-scope.ts
 * `forRecordTenant`), by their construct's path: per table action, the item kinds (`TNT#{tenant}#{kind}`)
 * their tenant session may touch, and kinds it may not; and the index their own role Scans, if any.
 */
interface Worker {
  path: string;
  allowed: Record<string, string[]>;
  refused: Record<string, string[]>;
  /** Query on the table's indexes, on the tenant's index partitions. */
  queriesIndexes?: boolean;
  scans?: string;
}
const INSTANCE_ENDS: Omit<Worker, 'path'> = {
  // The instance and its views (any of the tenant's items), and its status change's events in the outbox (sharded or not).
  allowed: { GetItem: ['PI#1', 'IV#T#1'], UpdateItem: ['PI#1', 'IV#T#1'], PutItem: ['EVENTS', 'S03#EVENTS'] },
  refused: { PutItem: ['PI#1', 'WEBHOOKS'], DeleteItem: ['PI#1'], Query: ['PI#1'] },
};
const WORKERS: Record<string, Worker> = {
  executionEnd: { path: 'Journeys/ExecutionEnd', ...INSTANCE_ENDS },
  reconcileExecutions: { path: 'Journeys/Reconciler', ...INSTANCE_ENDS, scans: 'GSI2' },
  relayEvents: {
    path: 'Events/Relay',
    allowed: { GetItem: ['EVENTS', 'S03#EVENTS'], Query: ['WEBHOOKS'], PutItem: ['WHDLV#w1'] },
    refused: { GetItem: ['PI#1', 'WEBHOOKS'], Query: ['EVENTS', 'WHDLV#w1'], PutItem: ['EVENTS', 'WEBHOOKS'], UpdateItem: ['WHDLV#w1'] },
  },
  deliverWebhooks: {
    path: 'Events/DeliveryWorker',
    allowed: {
      GetItem: ['WHDLV#w1', 'WEBHOOKS', 'EVENTS', 'S03#EVENTS'],
      UpdateItem: ['WHDLV#w1', 'WEBHOOKS', 'WHHOLD#w1'],
      PutItem: ['WEBHOOKS', 'WHHOLD#w1'],
      Query: ['WHHOLD#w1'],
      DeleteItem: ['WHHOLD#w1'],
    },
    refused: { GetItem: ['PI#1', 'EXPORT#e1'], PutItem: ['WHDLV#w1', 'EVENTS'], DeleteItem: ['WHDLV#w1', 'WEBHOOKS'], Query: ['WHDLV#w1'] },
  },
  sweepWebhookDeliveries: {
    path: 'Events/DeliverySweeper',
    allowed: { GetItem: ['WHDLV#w1'], UpdateItem: ['WHDLV#w1', 'WHHOLD#w1'], Query: ['WHHOLD#w1'] },
    refused: { GetItem: ['WEBHOOKS', 'WHHOLD#w1'], PutItem: ['WHDLV#w1', 'WHHOLD#w1'], DeleteItem: ['WHHOLD#w1'], Query: ['WHDLV#w1'] },
    scans: 'GSI3',
  },
  runExport: {
    path: 'Exports/Worker',
    // The job, the instance's data, the instance views a CSV query reads: the tenant's items.
    allowed: { GetItem: ['EXPORT#e1', 'PI#1'], UpdateItem: ['EXPORT#e1'], Query: ['PI#1', 'IV#T#1'] },
    refused: { PutItem: ['EXPORT#e1'], DeleteItem: ['EXPORT#e1'] },
    queriesIndexes: true,
  },
};
type Subject = RouteDef | 'activities' | keyof typeof WORKERS;

describe('tenants apart in IAM, by evaluation of the synthesized policies', () => {
  let synth: Synthesized;
  let template: Template;
  let roles: Record<string, Resource>;
  let tableArn: string;

  /** The template's value as it will be once deployed, for the simulator. */
  function concrete(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(concrete);
    if (!value || typeof value !== 'object') return value;
    const v = value as Record<string, unknown>;
    if (typeof v.Ref === 'string') {
      const pseudo: Record<string, string> = { 'AWS::AccountId': ACCOUNT, 'AWS::Partition': 'aws', 'AWS::Region': REGION, 'AWS::URLSuffix': 'amazonaws.com' };
      return pseudo[v.Ref] ?? `ref-${v.Ref}`;
    }
    const getAtt = v['Fn::GetAtt'] as [string, string] | undefined;
    if (getAtt) return arnOf(getAtt[0]);
    const join = v['Fn::Join'] as [string, unknown[]] | undefined;
    if (join) return (concrete(join[1]) as string[]).join(join[0]);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, concrete(x)]));
  }
  function arnOf(logicalId: string): string {
    const role = roles[logicalId];
    if (role) return `arn:aws:iam::${ACCOUNT}:role${role.Properties.Path ?? '/'}${logicalId}`;
    if (logicalId === tableId()) return `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${logicalId}`;
    if (logicalId === bucketId()) return `arn:aws:s3:::${logicalId.toLowerCase()}`;
    if (ofType(template, 'AWS::KMS::Key')[logicalId]) return `arn:aws:kms:${REGION}:${ACCOUNT}:key/${logicalId}`;
    return `arn:aws:unknown:${REGION}:${ACCOUNT}:${logicalId}`;
  }
  const tableId = () => Object.keys(ofType(template, 'AWS::DynamoDB::Table'))[0]!;
  const bucketId = () => resourceAt(template, 'AWS::S3::Bucket', 'ArthrStack/Images/Bucket')[0];
  const imagesKeyId = () => resourceAt(template, 'AWS::KMS::Key', 'ArthrStack/Images/Key')[0];
  // Made concrete once a role, and its roles once a subject: hundreds of requests ask again.
  const policiesOf = new Map<string, { name: string; policy: unknown }[]>();
  const inlinePolicies = (id: string) => {
    let found = policiesOf.get(id);
    if (!found) {
      found = asArray(roles[id]!.Properties.Policies).map((p: { PolicyName: string; PolicyDocument: unknown }) => ({ name: p.PolicyName, policy: concrete(p.PolicyDocument) }));
      policiesOf.set(id, found);
    }
    return found;
  };
  const trustOf = (id: string) => concrete(roles[id]!.Properties.AssumeRolePolicyDocument);
  /** The function's own role and its tenant role (logical ids): a route's, the activity function's, or a worker's. */
  const rolesFound = new Map<Subject, { fn: string; tenant: string }>();
  function rolesOf(route: Subject): { fn: string; tenant: string } {
    let found = rolesFound.get(route);
    if (!found) rolesFound.set(route, (found = findRoles(route)));
    return found;
  }
  function findRoles(route: Subject): { fn: string; tenant: string } {
    const base =
      route === 'activities' ? constructPath('Journeys/Activities') : typeof route === 'string' ? constructPath(WORKERS[route]!.path) : routeFunctionPath(route).replace(/\/Function$/, '');
    return { fn: resourceAt(template, 'AWS::IAM::Role', `${base}/Role`)[0], tenant: resourceAt(template, 'AWS::IAM::Role', `${base}/Tenant/Role`)[0] };
  }
  const constructPath = (suffix: string) =>
    Object.values(roles)
      .map((r) => String(r.Metadata?.['aws:cdk:path'] ?? ''))
      .find((p) => p.endsWith(`/${suffix}/Role/Resource`))!
      .replace(/\/Role\/Resource$/, '');

  // Routes with the same grants make the same requests: each distinct one is evaluated once (the
  // principal's ARN matters only to a resource policy).
  const decided = new Map<string, Promise<Decision>>();
  function decide(simulation: Omit<Simulation, 'serviceControlPolicies' | 'resourceControlPolicies'>): Promise<Decision> {
    const key = JSON.stringify(simulation.resourcePolicy ? simulation : { ...simulation, request: { ...simulation.request, principal: '' } });
    let hit = decided.get(key);
    if (!hit) decided.set(key, (hit = evaluate(simulation)));
    return hit;
  }
  async function evaluate(simulation: Omit<Simulation, 'serviceControlPolicies' | 'resourceControlPolicies'>): Promise<Decision> {
    const out = await runSimulation({ serviceControlPolicies: [], resourceControlPolicies: [], ...simulation }, {});
    if (out.resultType === 'error') throw new Error(`simulation refused: ${JSON.stringify(out.errors)}`);
    return out.overallResult as Decision;
  }
  /** A table (or index) request of the tenant role's session for `tenant`, on partitions `keys`. */
  const asTenant = (route: Subject, tenant: string | undefined, action: string, keys: string[] | undefined, resource = tableArn) =>
    decide({
      request: {
        principal: arnOf(rolesOf(route).tenant),
        action: `dynamodb:${action}`,
        resource: { resource, accountId: ACCOUNT },
        contextVariables: { ...(tenant ? { [`aws:PrincipalTag/${TENANT_SESSION_TAG}`]: tenant } : {}), ...(keys ? { 'dynamodb:LeadingKeys': keys } : {}) },
      },
      identityPolicies: inlinePolicies(rolesOf(route).tenant),
    });
  /** `caller` (a role's logical id, with its own policies or `extra` ones) assuming `route`'s tenant role with `tags`. */
  const assume = (route: Subject, caller: string, tags: Record<string, string>, sessionName: string, identity = inlinePolicies(caller)) =>
    Promise.all(
      ['sts:AssumeRole', 'sts:TagSession'].map((action) =>
        decide({
          request: {
            principal: arnOf(caller),
            action,
            resource: { resource: arnOf(rolesOf(route).tenant), accountId: ACCOUNT },
            contextVariables: {
              ...Object.fromEntries(Object.entries(tags).map(([k, v]) => [`aws:RequestTag/${k}`, v])),
              'aws:TagKeys': Object.keys(tags),
              'sts:RoleSessionName': sessionName,
            },
          },
          identityPolicies: identity,
          resourcePolicy: trustOf(rolesOf(route).tenant),
        }),
      ),
    ).then((d) => (d.every((x) => x === 'Allowed') ? 'Allowed' : d.find((x) => x !== 'Allowed')!));

  beforeAll(() => {
    synth = synthesize({}, { bundle: false });
    template = synth.template;
    roles = ofType(template, 'AWS::IAM::Role');
    tableArn = arnOf(tableId());
  }, 180_000);
  afterAll(() => {
    if (synth) rmSync(synth.outdir, { recursive: true, force: true });
  });

  const tableRoutes = routeList.filter(touchesTable);

  it('covers the routes that touch the table, and no function role of theirs holds a DynamoDB grant of its own', () => {
    expect(tableRoutes.length).toBeGreaterThan(80);
    for (const route of tableRoutes) {
      const { fn } = rolesOf(route);
      const actions = inlinePolicies(fn).flatMap((p) => asArray((p.policy as { Statement: { Action: string | string[] }[] }).Statement)).flatMap((s) => asArray(s.Action));
      expect(actions.filter((a) => a.startsWith('dynamodb:')), route.operationId).toEqual([]);
    }
  });

  it("lets each function's role act for one tenant at a time, and nothing else act through its tenant role", async () => {
    const other = rolesOf(routeList.find((r) => r.operationId === 'getProcessInstance')!).fn;
    const anything = [{ name: 'admin', policy: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'sts:*', Resource: '*' }] } }];
    for (const route of tableRoutes) {
      const { fn } = rolesOf(route);
      const id = route.operationId;
      expect(await assume(route, fn, { [TENANT_SESSION_TAG]: 'alpha' }, 'arthr-alpha'), id).toBe('Allowed');
      expect(await assume(route, fn, {}, 'arthr-alpha'), `${id}: untagged`).not.toBe('Allowed');
      expect(await assume(route, fn, { [TENANT_SESSION_TAG]: '' }, 'arthr-'), `${id}: empty tag`).not.toBe('Allowed');
      expect(await assume(route, fn, { [TENANT_SESSION_TAG]: 'alpha', team: 'x' }, 'arthr-alpha'), `${id}: another tag key`).not.toBe('Allowed');
      expect(await assume(route, fn, { [TENANT_SESSION_TAG]: 'alpha' }, 'alpha'), `${id}: session name`).not.toBe('Allowed');
      // Another function's role, even one allowed every STS action on every role: the trust names only this function's.
      if (fn !== other) expect(await assume(route, other, { [TENANT_SESSION_TAG]: 'alpha' }, 'arthr-alpha', anything), `${id}: another role`).not.toBe('Allowed');
    }
  });

  it("gives a tenant's session its route's table actions on its own partitions, and none on another tenant's", async () => {
    for (const route of tableRoutes) {
      const id = route.operationId;
      for (const action of route.aws.table ?? []) {
        expect(await asTenant(route, 'alpha', action, ['TNT#alpha#INST#1']), `${id} ${action}`).toBe('Allowed');
        expect(await asTenant(route, 'alpha', action, ['TNT#beta#INST#1']), `${id} ${action} on beta`).toBe('ImplicitlyDenied');
        // A batch or a transaction's items: every key must be the tenant's.
        expect(await asTenant(route, 'alpha', action, ['TNT#alpha#INST#1', 'TNT#beta#INST#1']), `${id} ${action} mixed`).toBe('ImplicitlyDenied');
        // A tenant whose id begins another's: the separator after the id keeps them apart.
        expect(await asTenant(route, 'alpha', action, ['TNT#alphabet#INST#1']), `${id} ${action} on alphabet`).toBe('ImplicitlyDenied');
        expect(await asTenant(route, undefined, action, ['TNT#alpha#INST#1']), `${id} ${action} untagged`).toBe('ImplicitlyDenied');
        expect(await asTenant(route, 'alpha', action, undefined), `${id} ${action} with no key`).toBe('ImplicitlyDenied');
        // The service's own items: only a publication counts a state machine's users.
        const service = await asTenant(route, 'alpha', action, ['SVC#SM#abc']);
        expect(service, `${id} ${action} on a service key`).toBe(route.aws.stateMachines === 'publish' ? 'Allowed' : 'ImplicitlyDenied');
        expect(await asTenant(route, 'alpha', action, ['SVC#JANITOR']), `${id} ${action} on the janitor`).toBe('ImplicitlyDenied');
      }
      for (const action of ['Scan', 'DescribeTable', 'DeleteTable', 'BatchWriteItem', 'PartiQLSelect'].filter((a) => !(route.aws.table ?? []).includes(a as never))) {
        expect(await asTenant(route, 'alpha', action, ['TNT#alpha#INST#1']), `${id} ${action}`).toBe('ImplicitlyDenied');
      }
    }
  });

  it("lets the activity function's role act for one tenant, and a step's session only its declared items of that tenant", async () => {
    const { fn } = rolesOf('activities');
    expect(await assume('activities', fn, { [TENANT_SESSION_TAG]: 'alpha' }, 'arthr-alpha')).toBe('Allowed');
    expect(await assume('activities', fn, {}, 'arthr-alpha')).not.toBe('Allowed');
    expect(await assume('activities', rolesOf(tableRoutes[0]!).fn, { [TENANT_SESSION_TAG]: 'alpha' }, 'arthr-alpha')).not.toBe('Allowed');
    const own = inlinePolicies(fn).flatMap((p) => asArray((p.policy as { Statement: { Action: string | string[] }[] }).Statement)).flatMap((st) => asArray(st.Action));
    expect(own.filter((a) => a.startsWith('dynamodb:'))).toEqual([]);
    const declared = activityFunctionAccess().table;
    expect(declared.length).toBeGreaterThan(0);
    for (const action of declared) {
      expect(await asTenant('activities', 'alpha', action, ['TNT#alpha#INST#1']), action).toBe('Allowed');
      expect(await asTenant('activities', 'alpha', action, ['TNT#beta#INST#1']), `${action} on beta`).toBe('ImplicitlyDenied');
      expect(await asTenant('activities', 'alpha', action, ['SVC#SM#abc']), `${action} on a service key`).toBe('ImplicitlyDenied');
      expect(await asTenant('activities', undefined, action, ['TNT#alpha#INST#1']), `${action} untagged`).toBe('ImplicitlyDenied');
    }
    expect(await asTenant('activities', 'alpha', 'Scan', ['TNT#alpha#INST#1'])).toBe('ImplicitlyDenied');
  });

  /** An S3 or KMS request of `who`'s tenant session for `tenant` (with the key's policy as the resource policy for KMS). */
  const imageRequest = (who: RouteDef | 'activities', tenant: string, action: string, resource: string, context: Record<string, string | string[]> = {}) =>
    decide({
      request: {
        principal: arnOf(rolesOf(who).tenant),
        action,
        resource: { resource, accountId: ACCOUNT },
        contextVariables: { [`aws:PrincipalTag/${TENANT_SESSION_TAG}`]: tenant, 'aws:PrincipalArn': arnOf(rolesOf(who).tenant), 'aws:PrincipalAccount': ACCOUNT, ...context },
      },
      identityPolicies: inlinePolicies(rolesOf(who).tenant),
      ...(action.startsWith('kms:') ? { resourcePolicy: concrete(ofType(template, 'AWS::KMS::Key')[imagesKeyId()]!.Properties.KeyPolicy) } : {}),
    });

  type KeyStatement = { Action: string | string[]; Condition?: Record<string, Record<string, unknown>> };
  const keyStatementsOf = (roleId: string, action: string) =>
    inlinePolicies(roleId)
      .flatMap((p) => asArray((p.policy as { Statement: KeyStatement[] }).Statement))
      .filter((st) => asArray(st.Action).includes(action));
  const keyPolicy = () => asArray((concrete(ofType(template, 'AWS::KMS::Key')[imagesKeyId()]!.Properties.KeyPolicy) as { Statement: KeyStatement | KeyStatement[] }).Statement);
  /** An IAM ARN pattern (`*` only) against an ARN. */
  const arnMatches = (pattern: string, arn: string) => new RegExp(`^${pattern.split('*').map((x) => x.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(arn);

  it("keeps a tenant session's images to its own prefix: objects, listings and the images key through S3", async () => {
    const bucket = arnOf(bucketId());
    const object = (tenant: string) => `${bucket}/tenants/${tenant}/instances/01J/faces/selfie/c1.jpg`;
    const imageRoutes: (RouteDef | 'activities')[] = [...routeList.filter((r) => r.aws.images?.length), 'activities'];
    expect(imageRoutes.length).toBeGreaterThan(3);
    for (const who of imageRoutes) {
      const actions = who === 'activities' ? activityFunctionAccess().images : who.aws.images!;
      const id = who === 'activities' ? 'activities' : who.operationId;
      for (const action of actions.filter((a) => a !== 'ListBucket')) {
        expect(await imageRequest(who, 'alpha', `s3:${action}`, object('alpha')), `${id} ${action}`).toBe('Allowed');
        expect(await imageRequest(who, 'alpha', `s3:${action}`, object('beta')), `${id} ${action} on beta's`).toBe('ImplicitlyDenied');
        expect(await imageRequest(who, 'alpha', `s3:${action}`, `${bucket}/tenants/alphabet/instances/01J/x.jpg`), `${id} ${action} on alphabet's`).toBe('ImplicitlyDenied');
        // The images key through S3: the simulator does not read `kms:EncryptionContext:aws:s3:arn`
        // (it counts the key as missing), so the object condition is read as written, on both
        // sides: the tenant role's and the key policy's, each naming the session's tenant.
        const keyAction = action === 'PutObject' ? 'kms:GenerateDataKey' : action === 'GetObject' ? 'kms:Decrypt' : undefined;
        if (keyAction) {
          const onRole = keyStatementsOf(rolesOf(who).tenant, keyAction);
          expect(onRole.map((st) => st.Condition), `${id} ${keyAction}`).toEqual([
            { StringEquals: { 'kms:ViaService': `s3.${REGION}.amazonaws.com` }, StringLike: { 'kms:EncryptionContext:aws:s3:arn': `${bucket}/tenants/\${aws:PrincipalTag/${TENANT_SESSION_TAG}}/*` } },
          ]);
          const inKey = keyPolicy().filter((st) => asArray(st.Action).includes(keyAction) && asArray(st.Condition?.ArnLike?.['aws:PrincipalArn']).some((p) => arnMatches(String(p), arnOf(rolesOf(who).tenant))));
          expect(inKey.map((st) => st.Condition?.StringLike), `${id} ${keyAction} in the key policy`).toEqual([{ 'kms:EncryptionContext:aws:s3:arn': `arn:aws:s3:::*/tenants/\${aws:PrincipalTag/${TENANT_SESSION_TAG}}/*` }]);
          // No statement of the key lets a function's own role (not its tenant role) use it for images.
          const ownInKey = keyPolicy().filter((st) => asArray(st.Condition?.ArnLike?.['aws:PrincipalArn']).some((p) => arnMatches(String(p), arnOf(rolesOf(who).fn))));
          expect(ownInKey, `${id}: its own role in the images key policy`).toEqual([]);
        }
      }
      if (actions.includes('ListBucket')) {
        expect(await imageRequest(who, 'alpha', 's3:ListBucket', bucket, { 's3:prefix': 'tenants/alpha/instances/01J/' }), `${id} ListBucket`).toBe('Allowed');
        expect(await imageRequest(who, 'alpha', 's3:ListBucket', bucket, { 's3:prefix': 'tenants/beta/instances/01J/' }), `${id} ListBucket beta`).toBe('ImplicitlyDenied');
      }
      // The function's own role holds no image grant: its images go through its tenant role.
      const own = inlinePolicies(rolesOf(who).fn).flatMap((p) => asArray((p.policy as { Statement: { Action: string | string[] }[] }).Statement)).flatMap((st) => asArray(st.Action));
      expect(own.filter((a) => a.startsWith('s3:')), id).toEqual([]);
    }
  });

  it('gives every function that acts for tenants and reads images its image grants on the tenant role (its S3 client calls as the tenant)', () => {
    // functions/adapters/images.ts calls S3 as the tenant role whenever TENANT_ROLE_ARN is set.
    const functions = Object.values(ofType(template, 'AWS::Lambda::Function')).filter((f) => f.Properties.Environment?.Variables?.TENANT_ROLE_ARN);
    expect(functions.length).toBeGreaterThan(90);
    for (const f of functions) {
      const vars = f.Properties.Environment.Variables as Record<string, unknown>;
      const tenantRoleId = (vars.TENANT_ROLE_ARN as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const fnRoleId = (f.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const actionsOf = (id: string) => inlinePolicies(id).flatMap((p) => asArray((p.policy as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement)).filter((st) => JSON.stringify(st.Resource).includes(arnOf(bucketId()))).flatMap((st) => asArray(st.Action));
      if (!vars.IMAGES_BUCKET) continue;
      expect(actionsOf(fnRoleId), f.Properties.FunctionName).toEqual([]);
      expect(actionsOf(tenantRoleId).length, f.Properties.FunctionName).toBeGreaterThan(0);
    }
  });

  /** A table (or index) request of a function's own role, on partitions `keys`. */
  const asFunction = (worker: keyof typeof WORKERS, action: string, keys: string[] | undefined, resource = tableArn) =>
    decide({
      request: {
        principal: arnOf(rolesOf(worker).fn),
        action: `dynamodb:${action}`,
        resource: { resource, accountId: ACCOUNT },
        contextVariables: keys ? { 'dynamodb:LeadingKeys': keys } : {},
      },
      identityPolicies: inlinePolicies(rolesOf(worker).fn),
    });
  const STREAM_ACTIONS = ['dynamodb:ListStreams', 'dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'];

  describe.each(Object.keys(WORKERS))('the %s function, acting for one tenant per record', (name) => {
    const worker = WORKERS[name]!;

    it('may assume its tenant role only with the tenant tag, and no other function may', async () => {
      const { fn } = rolesOf(name);
      expect(await assume(name, fn, { [TENANT_SESSION_TAG]: 'alpha' }, 'arthr-alpha')).toBe('Allowed');
      expect(await assume(name, fn, {}, 'arthr-alpha'), 'untagged').not.toBe('Allowed');
      expect(await assume(name, fn, { [TENANT_SESSION_TAG]: '' }, 'arthr-'), 'empty tag').not.toBe('Allowed');
      expect(await assume(name, fn, { [TENANT_SESSION_TAG]: 'alpha', team: 'x' }, 'arthr-alpha'), 'another tag key').not.toBe('Allowed');
      expect(await assume(name, rolesOf('activities').fn, { [TENANT_SESSION_TAG]: 'alpha' }, 'arthr-alpha'), 'another role').not.toBe('Allowed');
    });

    it("gives the tenant's session its item kinds of that tenant only", async () => {
      for (const [action, kinds] of Object.entries(worker.allowed)) {
        for (const kind of kinds) {
          expect(await asTenant(name, 'alpha', action, [`TNT#alpha#${kind}`]), `${action} ${kind}`).toBe('Allowed');
          expect(await asTenant(name, 'alpha', action, [`TNT#beta#${kind}`]), `${action} ${kind} on beta`).toBe('ImplicitlyDenied');
          expect(await asTenant(name, 'alpha', action, [`TNT#alpha#${kind}`, `TNT#beta#${kind}`]), `${action} ${kind} mixed`).toBe('ImplicitlyDenied');
          expect(await asTenant(name, 'alpha', action, [`TNT#alphabet#${kind}`]), `${action} ${kind} on alphabet`).toBe('ImplicitlyDenied');
          expect(await asTenant(name, undefined, action, [`TNT#alpha#${kind}`]), `${action} ${kind} untagged`).toBe('ImplicitlyDenied');
        }
        expect(await asTenant(name, 'alpha', action, undefined), `${action} with no key`).toBe('ImplicitlyDenied');
        expect(await asTenant(name, 'alpha', action, ['SVC#JANITOR']), `${action} on a service key`).toBe('ImplicitlyDenied');
      }
      for (const [action, kinds] of Object.entries(worker.refused)) {
        for (const kind of kinds) expect(await asTenant(name, 'alpha', action, [`TNT#alpha#${kind}`]), `${action} ${kind}: not its kind`).toBe('ImplicitlyDenied');
      }
      for (const action of ['Scan', 'BatchWriteItem', 'PartiQLSelect', 'DescribeTable']) {
        expect(await asTenant(name, 'alpha', action, ['TNT#alpha#PI#1']), action).toBe('ImplicitlyDenied');
      }
      for (const gsi of TABLE_SCHEMA.globalSecondaryIndexes) {
        const index = `${tableArn}/index/${gsi.indexName}`;
        expect(await asTenant(name, 'alpha', 'Query', ['TNT#alpha#INST'], index), gsi.indexName).toBe(worker.queriesIndexes && gsi.queriedByRoutes ? 'Allowed' : 'ImplicitlyDenied');
        expect(await asTenant(name, 'alpha', 'Query', ['TNT#beta#INST'], index), `${gsi.indexName} beta`).toBe('ImplicitlyDenied');
        expect(await asTenant(name, 'alpha', 'Scan', undefined, index), `${gsi.indexName} Scan`).toBe('ImplicitlyDenied');
      }
    });

    it("keeps no grant on tenants' partitions on its own role (only its index Scan and the stream's actions)", async () => {
      const statements = inlinePolicies(rolesOf(name).fn).flatMap((p) => asArray((p.policy as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement));
      for (const st of statements.filter((x) => asArray(x.Action).some((a) => a.startsWith('dynamodb:')))) {
        const actions = asArray(st.Action);
        if (actions.includes('dynamodb:Scan')) {
          expect(actions, name).toEqual(['dynamodb:Scan']);
          expect(asArray(st.Resource), name).toEqual([`${tableArn}/index/${worker.scans}`]);
        } else {
          expect(actions.every((a) => STREAM_ACTIONS.includes(a)), `${name}: ${actions.join(', ')}`).toBe(true);
        }
      }
      for (const action of ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem', 'Query']) {
        for (const kind of ['PI#1', 'EVENTS', 'S03#EVENTS', 'WEBHOOKS', 'WHDLV#w1', 'WHHOLD#w1', 'EXPORT#e1']) {
          expect(await asFunction(name, action, [`TNT#alpha#${kind}`]), `${name} own role ${action} ${kind}`).toBe('ImplicitlyDenied');
        }
      }
      for (const gsi of TABLE_SCHEMA.globalSecondaryIndexes) {
        const index = `${tableArn}/index/${gsi.indexName}`;
        expect(await asFunction(name, 'Query', ['TNT#alpha#INST'], index), `${name} own role Query ${gsi.indexName}`).toBe('ImplicitlyDenied');
        expect(await asFunction(name, 'Scan', undefined, index), `${name} own role Scan ${gsi.indexName}`).toBe(gsi.indexName === worker.scans ? 'Allowed' : 'ImplicitlyDenied');
      }
    });
  });

  it("lets the rate limit lease only the tenant's own rate windows, and index queries only the tenant's index partitions", async () => {
    const index = (name: string) => `${tableArn}/index/${name}`;
    for (const route of tableRoutes) {
      const id = route.operationId;
      if (isRateLimited(route)) {
        expect(await asTenant(route, 'alpha', 'UpdateItem', ['TNT#alpha#RATE']), id).toBe('Allowed');
        expect(await asTenant(route, 'alpha', 'UpdateItem', ['TNT#beta#RATE']), `${id} beta's rate`).toBe('ImplicitlyDenied');
      }
      if (!(route.aws.table ?? []).includes('UpdateItem')) {
        expect(await asTenant(route, 'alpha', 'UpdateItem', ['TNT#alpha#INST#1']), `${id} updates only its rate`).toBe('ImplicitlyDenied');
      }
      for (const gsi of TABLE_SCHEMA.globalSecondaryIndexes) {
        const queried = Boolean(route.aws.queryIndexes) && gsi.queriedByRoutes;
        expect(await asTenant(route, 'alpha', 'Query', ['TNT#alpha#INST'], index(gsi.indexName)), `${id} ${gsi.indexName}`).toBe(queried ? 'Allowed' : 'ImplicitlyDenied');
        expect(await asTenant(route, 'alpha', 'Query', ['TNT#beta#INST'], index(gsi.indexName)), `${id} ${gsi.indexName} beta`).toBe('ImplicitlyDenied');
      }
    }
  });
});
