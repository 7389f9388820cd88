import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { ServiceFunction } from './service-function.js';

/**
 * What the account itself may do with every key of the stack: administer it, never use it. The
 * account (its root principal) in a key policy is where IAM policies come in, so this list is all
 * an IAM policy can ever give anyone on these keys, `kms:*` on `*` included: describe, rotate,
 * tag, alias, disable, schedule the deletion, read and change the policy (CloudFormation deploys
 * as an IAM principal of the account, and KMS refuses a policy that would lock its caller out of
 * PutKeyPolicy). No cryptographic operation, no kms:GetPublicKey, and no kms:CreateGrant (a grant
 * is a use given away). Whoever may change a key policy may of course give themselves a use: that
 * is an administrator's power, to be kept to administrators (and seen in CloudTrail).
 */
export const KEY_ADMIN_ACTIONS = [
  'kms:DescribeKey',
  'kms:GetKeyPolicy',
  'kms:ListKeyPolicies',
  'kms:PutKeyPolicy',
  'kms:GetKeyRotationStatus',
  'kms:EnableKeyRotation',
  'kms:DisableKeyRotation',
  'kms:ListKeyRotations',
  'kms:RotateKeyOnDemand',
  'kms:EnableKey',
  'kms:DisableKey',
  'kms:UpdateKeyDescription',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:ListResourceTags',
  'kms:CreateAlias',
  'kms:UpdateAlias',
  'kms:DeleteAlias',
  'kms:ListGrants',
  'kms:RevokeGrant',
  'kms:ScheduleKeyDeletion',
  'kms:CancelKeyDeletion',
] as const;

/**
 * A customer-managed key whose policy lets the account administer it (KEY_ADMIN_ACTIONS) and
 * nobody use it: each use is added by name, for a service principal with `addToResourcePolicy`,
 * for the service's own functions by `nameKeyUsers`. Not CDK's default policy, which gives the
 * account `kms:*`, so that any principal of the account with, say, kms:Sign on `*` in its own
 * policy could sign tokens for any tenant.
 */
export function serviceKey(scope: Construct, id: string, props: Omit<kms.KeyProps, 'policy' | 'admins'>): kms.Key {
  const policy = new iam.PolicyDocument({
    statements: [
      new iam.PolicyStatement({
        sid: 'AccountAdministersOnly',
        principals: [new iam.AccountRootPrincipal()],
        actions: [...KEY_ADMIN_ACTIONS],
        resources: ['*'],
      }),
    ],
  });
  return new kms.Key(scope, id, { ...props, policy });
}

/** Keys imported into a nested stack (by an ARN parameter), by their ARN there: the parent's key they stand for. */
const imported = new Map<string, kms.IKey>();

/**
 * `kms.Key.fromKeyArn` in a nested stack, remembered as `key` (the parent's), so that the key's
 * policy names the roles of the nested stack that use it (`nameKeyUsers`).
 */
export function importKey(scope: Construct, id: string, keyArn: string, key: kms.IKey): kms.IKey {
  const made = kms.Key.fromKeyArn(scope, id, keyArn);
  imported.set(made.keyArn, key);
  return made;
}

/**
 * `arn:aws:iam::{account}:role/{functionName}/*` for a role at `/{functionName}/`: the role of that
 * function, whatever name CloudFormation gives it (ServiceFunction.rolePath).
 */
export function roleArnPattern(stack: Stack, rolePath: string): string {
  return `arn:${stack.partition}:iam::${stack.account}:role${rolePath}*`;
}

type StatementJson = { Sid?: string; Effect: string; Action: string | string[]; Resource: string | string[]; Condition?: Record<string, Record<string, unknown>> };
const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The path the function's role was made with (ServiceFunction.rolePath). */
function rolePathOf(fn: ServiceFunction): string {
  const path = (fn.role.node.defaultChild as iam.CfnRole).path;
  if (!path || path === '/') throw new Error(`${fn.node.path}: its role has no path of its own, so no key policy can name it`);
  return path;
}

/**
 * Every statement of a function's roles, with the path of the role that holds it: its own role's
 * inline policy and what CDK's grants put in its default policy (a stream read), and its tenant
 * role's (ServiceFunction.actForTenants), at `/{functionName}/tenant/`.
 */
function statementsOf(fn: ServiceFunction): [StatementJson, string][] {
  const own = [fn.policy, (fn.role.node.tryFindChild('DefaultPolicy') as iam.Policy | undefined)?.document];
  const of = (d: iam.PolicyDocument | undefined) => asArray((d?.toJSON() as { Statement?: StatementJson[] } | undefined)?.Statement);
  return [
    ...own.flatMap((d) => of(d).map((st): [StatementJson, string] => [st, rolePathOf(fn)])),
    ...(fn.tenantRole ? of(fn.tenantPolicy).map((st): [StatementJson, string] => [st, (fn.tenantRole!.node.defaultChild as iam.CfnRole).path!]) : []),
  ];
}

/**
 * The condition of a role's statement as the key policy repeats it. A condition naming a bucket's
 * objects (`kms:EncryptionContext:aws:s3:arn`, `{bucketArn}/tenants/*`) names them in any bucket
 * instead: the bucket depends on its key, so the key's policy cannot refer to it, and the role's
 * S3 grants already reach that one bucket only. Everything else (purpose contexts, kms:ViaService,
 * signing algorithm) is kept as it is.
 */
function keyPolicyCondition(stack: Stack, condition: StatementJson['Condition']): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [operator, keys] of Object.entries(condition ?? {})) {
    out[operator] = Object.fromEntries(
      Object.entries(keys).map(([k, v]) => {
        if (k !== 'kms:EncryptionContext:aws:s3:arn') return [k, v];
        const pattern = String(v);
        // What follows the bucket's ARN (a token, `${Token[...]}`): `/tenants/*`, or a tenant
        // session's `/tenants/${aws:PrincipalTag/arthr-tenant}/*` (a policy variable, kept).
        const tail = pattern.replace(/^.*\$\{Token\[[^\]]*\]\}/, '');
        if (!tail.startsWith('/')) throw new Error(`Cannot repeat ${k} ${pattern} in a key policy`);
        return [k, `arn:${stack.partition}:s3:::*${tail}`];
      }),
    );
  }
  return out;
}

/**
 * After every function of the stack is made: each key's policy names the roles (by path, see
 * `roleArnPattern`) whose own policy uses that key, for exactly those actions and with the same
 * conditions (purpose context, through S3 only, ...), and only for callers of this account. A
 * role's KMS statement on anything else than these keys fails the synth: no policy would let it.
 * The key policy refers to no role and no resource, only to names known at synth time, so no
 * cycle arises however the roles and keys are split between the parent and the nested stacks.
 */
export function nameKeyUsers(stack: Stack, keys: readonly kms.Key[]): void {
  const grants = new Map<kms.Key, Map<string, { sid: string; action: string; condition: Record<string, Record<string, unknown>>; roles: string[] }>>();
  for (const fn of stack.node.findAll().filter((c): c is ServiceFunction => c instanceof ServiceFunction)) {
    for (const [st, rolePath] of statementsOf(fn)) {
      const actions = asArray(st.Action).filter((a) => a.startsWith('kms:'));
      if (st.Effect !== 'Allow' || actions.length === 0) continue;
      for (const resource of asArray(st.Resource)) {
        const key = keys.find((k) => k.keyArn === resource || imported.get(resource) === k);
        if (!key) throw new Error(`${fn.node.path} is granted ${actions.join(', ')} on ${resource}, not a key of this stack whose policy could name it`);
        const condition = keyPolicyCondition(Stack.of(key), st.Condition);
        for (const action of actions) {
          const byUse = grants.get(key) ?? new Map();
          grants.set(key, byUse);
          const use = `${action} ${JSON.stringify(Stack.of(key).resolve(condition))}`;
          const grant = byUse.get(use) ?? { sid: `${st.Sid ?? 'Use'}${action.slice('kms:'.length)}`, action, condition, roles: [] };
          byUse.set(use, grant);
          grant.roles.push(rolePath);
        }
      }
    }
  }
  for (const [key, byUse] of grants) {
    const keyStack = Stack.of(key);
    const sids = new Set<string>();
    for (const grant of byUse.values()) {
      let sid = grant.sid;
      for (let n = 2; sids.has(sid); n++) sid = `${grant.sid}${n}`;
      sids.add(sid);
      const condition = {
        ...grant.condition,
        StringEquals: { ...grant.condition.StringEquals, 'kms:CallerAccount': keyStack.account },
        ArnLike: { ...grant.condition.ArnLike, 'aws:PrincipalArn': [...new Set(grant.roles)].sort().map((path) => roleArnPattern(keyStack, path)) },
      };
      // A condition that refers to a resource would make the key depend on it (and most of them
      // depend on the key): only names and pseudo parameters may be in a key policy.
      const refs = JSON.stringify(keyStack.resolve(condition)).match(/"Ref":"(?!AWS::)[^"]+"|"Fn::GetAtt"/g);
      if (refs) throw new Error(`The policy of ${key.node.path} would refer to a resource (${refs.join(', ')}) in ${sid}`);
      key.addToResourcePolicy(
        new iam.PolicyStatement({ sid, principals: [new iam.AnyPrincipal()], actions: [grant.action], resources: ['*'], conditions: condition }),
      );
    }
  }
}
