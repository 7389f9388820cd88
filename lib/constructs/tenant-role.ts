import { Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { TENANT_SESSION_TAG } from '../../functions/shared/tenant-scope.js';
import { RATE_PARTITION } from '../../functions/store/keys.js';

/** IAM's policy variable for the tenant a session acts for (its session tag). */
export const SESSION_TENANT = `\${aws:PrincipalTag/${TENANT_SESSION_TAG}}`;

/**
 * The tag conditions a session of a tenant role must meet: the tenant tag (not empty) and no
 * other tag key, none transitive (a session it assumes in turn keeps no tenant). On both
 * sts:AssumeRole and sts:TagSession.
 */
export function tenantTagConditions(): Record<string, Record<string, unknown>> {
  return {
    'ForAllValues:StringEquals': { 'aws:TagKeys': [TENANT_SESSION_TAG] },
    StringLike: { [`aws:RequestTag/${TENANT_SESSION_TAG}`]: '?*' },
    Null: { 'sts:TransitiveTagKeys': 'true' },
  };
}

/**
 * sts:AssumeRole's conditions: the tags', and a session name `arthr-{tenantId}`
 * (functions/adapters/tenant-credentials.ts, functions/webhooks/targets.ts), so CloudTrail names
 * the tenant. Not on sts:TagSession, whose request has no session name: a condition on a key the
 * request lacks never matches, and would refuse every tagged session.
 */
export function tenantAssumeConditions(): Record<string, Record<string, unknown>> {
  const tags = tenantTagConditions();
  return { ...tags, StringLike: { ...tags.StringLike, 'sts:RoleSessionName': 'arthr-?*' } };
}

/**
 * Makes `role` trust `principal` alone, for tenant sessions: AssumeRole and TagSession, each with
 * its conditions (the role's `assumedBy` must be this principal with `tenantAssumeConditions`).
 */
export function trustForTenantSessions(principal: iam.IPrincipal): { assumedBy: iam.IPrincipal; tagSession: iam.PolicyStatement } {
  return {
    assumedBy: new iam.PrincipalWithConditions(principal, tenantAssumeConditions()),
    tagSession: new iam.PolicyStatement({ actions: ['sts:TagSession'], principals: [principal], conditions: tenantTagConditions() }),
  };
}

/** The leading keys a tenant session may touch: its own tenant's partitions, `TNT#{tenant}#...`. */
export const TENANT_PARTITIONS = [`TNT#${SESSION_TENANT}#*`];

/**
 * A grant on the table's items (or an index's) limited to partitions matching `partitions`,
 * which must name a key (`Null`: a request that names no partition key is not let through by
 * ForAllValues' empty match).
 */
export function tenantTableStatement(sid: string, actions: readonly string[], resources: string[], partitions: readonly string[]): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid,
    actions: actions.map((a) => `dynamodb:${a}`),
    resources,
    conditions: {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...partitions] },
      Null: { 'dynamodb:LeadingKeys': 'false' },
    },
  });
}

export interface TenantRoleProps {
  /** The function's physical name: the role lives at `/{functionName}/tenant/`. */
  functionName: string;
  /** The function's own role, the only principal that may assume this one. */
  functionRole: iam.IRole;
  description: string;
  /** What the function does for a tenant; each table statement limited to the session's tenant. */
  statements: iam.PolicyStatement[];
}

/**
 * The role a function acts through for one tenant at a time: assumed by the function's own role
 * with the `arthr-tenant` session tag, it holds the function's grants on tenant data with every
 * partition condition naming the tag (`TNT#${aws:PrincipalTag/arthr-tenant}#*`). The function's own
 * role keeps no grant on tenant items, so a handler that built another tenant's key is refused
 * by IAM, not only by the code that builds keys (the AWS SaaS Factory's "dynamically generated
 * policy" pattern with a static role and session tags: no role per tenant, nothing to create
 * when a tenant is added).
 */
export class TenantRole extends Construct {
  readonly role: iam.Role;
  readonly policy: iam.PolicyDocument;

  /** The role's path: under the function's own (`/{functionName}/`), which the key policies name. */
  static path(functionName: string): string {
    return `/${functionName}/tenant/`;
  }

  /**
   * The ARNs the function's role may assume, known without a reference to the role (which would
   * close a cycle: this role's trust names the function's role).
   */
  static arnPattern(scope: Construct, functionName: string): string {
    return Stack.of(scope).formatArn({ service: 'iam', region: '', resource: 'role', resourceName: `${functionName}/tenant/*` });
  }

  constructor(scope: Construct, id: string, props: TenantRoleProps) {
    super(scope, id);
    const trust = trustForTenantSessions(props.functionRole);
    this.policy = new iam.PolicyDocument({ statements: props.statements });
    this.role = new iam.Role(this, 'Role', {
      path: TenantRole.path(props.functionName),
      description: props.description.slice(0, 1000),
      assumedBy: trust.assumedBy,
      // Chained from the function's role session: STS caps it at an hour whatever this says.
      inlinePolicies: { tenantData: this.policy },
    });
    this.role.assumeRolePolicy!.addStatements(trust.tagSession);
  }
}

/** The function role's grant to act for tenants: assume its tenant role, with the tenant tag alone. */
export function assumeTenantRoleStatement(scope: Construct, functionName: string): iam.PolicyStatement {
  const statement = new iam.PolicyStatement({
    sid: 'ActForOneTenant',
    actions: ['sts:AssumeRole', 'sts:TagSession'],
    resources: [TenantRole.arnPattern(scope, functionName)],
    conditions: { 'ForAllValues:StringEquals': { 'aws:TagKeys': [TENANT_SESSION_TAG] }, StringLike: { [`aws:RequestTag/${TENANT_SESSION_TAG}`]: '?*' } },
  });
  return statement;
}

/** cdk-nag acknowledgement of the assume grant's wildcard (the tenant role's generated name). */
export function acknowledgeTenantRoleArn(role: iam.IRole, arnPattern: string): void {
  Validations.of(role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${arnPattern}]`,
    reason:
      "The function's tenant role, named by path (`/{function}/tenant/`) because naming its ARN would close a cycle " +
      '(its trust names this role); the trust policy admits this role alone, only with the tenant session tag.',
  });
}

/** The rate windows of the session's tenant (functions/auth/rate-limit.ts leases). */
export const TENANT_RATE_PARTITIONS = [`TNT#${SESSION_TENANT}#${RATE_PARTITION}`];

/**
 * A function's item kinds (`TNT#*#{kind}`, as `tableItemsIn` names them) for the session's tenant
 * only: `TNT#${aws:PrincipalTag/arthr-tenant}#{kind}`, the kind kept (least privilege stays). The
 * outbox's `EVENTS` also names its shards (`TNT#{tenant}#S{nn}#EVENTS`, which `TNT#*#EVENTS`
 * matched through its `*`; functions/store/keys.ts `outboxPartition`).
 */
export function sessionTenantPartitions(patterns: readonly string[]): string[] {
  return patterns.flatMap((pattern) => {
    const kind = /^TNT#\*#(.+)$/.exec(pattern)?.[1];
    if (!kind) throw new Error(`not a tenant partition pattern: ${pattern}`);
    const own = `TNT#${SESSION_TENANT}#${kind}`;
    return kind === 'EVENTS' ? [own, `TNT#${SESSION_TENANT}#S??#EVENTS`] : [own];
  });
}

