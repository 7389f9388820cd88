/**
 * The preflight (`npm run preflight`, bin/preflight.ts): what a `cdk deploy` of this stack into an
 * account and region would run into, read before deploying. Each check takes the SDK clients it
 * reads with and the plan (what the context would deploy), and answers OK, WARN or FAIL with the
 * figure it judged and what to do. A check that cannot read (access denied, a network error) says
 * so as a WARN: it never throws, and never passes what it could not see.
 *
 * Not checked, on purpose: the API Gateway account-level CloudWatch role (the stack has an HTTP
 * API, whose access logs are delivered without it), KMS keys (the stack makes a handful; the quota
 * is 100,000 a region) and DynamoDB tables (it makes one; the quota is thousands a region).
 */
import { GetAccountSettingsCommand, GetFunctionConcurrencyCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { DescribeStacksCommand, type CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { GetRoleCommand, type IAMClient } from '@aws-sdk/client-iam';
import { ListCollectionsCommand, type RekognitionClient } from '@aws-sdk/client-rekognition';
import { paginateListServiceQuotas, type ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { paginateListStateMachines, type SFNClient } from '@aws-sdk/client-sfn';
import { GetCallerIdentityCommand, type STSClient } from '@aws-sdk/client-sts';
import { LAMBDA_MINIMUM_UNRESERVED, reservedFunctionNames, totalReserved, type ReservedConcurrency } from './concurrency.js';

export type Verdict = 'OK' | 'WARN' | 'FAIL';

export interface CheckResult {
  /** Stable, for --json readers: `credentials`, `lambda-concurrency`, ... */
  id: string;
  title: string;
  verdict: Verdict;
  /** What was read and judged, in numbers where there are numbers. */
  figure: string;
  /** What to do about a WARN or FAIL. */
  action?: string;
}

/** What the deploy would make, from the same context `cdk deploy` reads. */
export interface PreflightPlan {
  /** The AWS region the stack deploys to. */
  awsRegion: string;
  /** `arthr-{region}`: the stack's name and the start of its functions' names. */
  namePrefix: string;
  /** What the context reserves (lib/concurrency.ts). */
  reserved: ReservedConcurrency;
}

export interface PreflightClients {
  sts: STSClient;
  lambda: LambdaClient;
  sfn: SFNClient;
  quotas: ServiceQuotasClient;
  cloudformation: CloudFormationClient;
  iam: IAMClient;
  rekognition: RekognitionClient;
}

/** Established accounts' default Lambda concurrency quota; new accounts often start at 10 or 50. */
export const LAMBDA_DEFAULT_QUOTA = 1_000;
/** Step Functions' documented default quota of state machines per account and region. */
export const STATE_MACHINES_DEFAULT_QUOTA = 10_000;
/** Share of the state machine quota in use from which the preflight warns. */
export const STATE_MACHINES_WARN_SHARE = 0.8;
/** The bootstrap version the synthesized templates require (aws-cdk-lib's DefaultStackSynthesizer). */
export const MIN_BOOTSTRAP_VERSION = 6;
/** The CDK bootstrap stack's default name. */
export const TOOLKIT_STACK = 'CDKToolkit';
/** The API Gateway service-linked role, made for the account's first API or custom domain. */
export const API_GATEWAY_ROLE = 'AWSServiceRoleForAPIGateway';

const ACCESS_DENIED = new Set(['AccessDenied', 'AccessDeniedException', 'UnauthorizedOperation', 'AuthorizationError', 'UnauthorizedException']);

function errorName(err: unknown): string {
  const e = err as { name?: unknown; Code?: unknown; code?: unknown } | undefined;
  for (const v of [e?.name, e?.Code, e?.code]) if (typeof v === 'string' && v !== 'Error') return v;
  return 'Error';
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export const isAccessDenied = (err: unknown) => ACCESS_DENIED.has(errorName(err));

/** A region where a service has no endpoint answers with a name that does not resolve. */
const isNoEndpoint = (err: unknown) => ['ENOTFOUND', 'UnknownEndpoint'].includes(errorName(err)) || /ENOTFOUND|getaddrinfo/.test(errorMessage(err));

/** The WARN of a check that could not read what it judges. */
function couldNotRead(id: string, title: string, permission: string, err: unknown): CheckResult {
  const why = isAccessDenied(err) ? `access denied (${permission})` : `${errorName(err)}: ${errorMessage(err)}`;
  return {
    id,
    title,
    verdict: 'WARN',
    figure: `could not read: ${why}`,
    action: isAccessDenied(err) ? `Run the preflight with credentials that may ${permission}, or check this by hand.` : 'Run the preflight again, or check this by hand.',
  };
}

const n = (x: number) => x.toLocaleString('en-US');

/** Who the credentials are; every other check needs them. */
export async function checkCredentials(sts: STSClient): Promise<CheckResult & { account?: string }> {
  const title = 'AWS credentials';
  try {
    const out = await sts.send(new GetCallerIdentityCommand({}));
    return { id: 'credentials', title, verdict: 'OK', figure: `account ${out.Account} as ${out.Arn}`, ...(out.Account ? { account: out.Account } : {}) };
  } catch (err) {
    return {
      id: 'credentials',
      title,
      verdict: 'FAIL',
      figure: `no usable credentials: ${errorName(err)}: ${errorMessage(err)}`,
      action: 'Configure the credentials cdk deploy will use (aws configure, AWS_PROFILE or aws sso login), then run the preflight again.',
    };
  }
}

/**
 * Lambda's concurrency quota against what the stack would reserve. What the stack's own functions
 * reserve already (a redeploy) is given back first: a deploy replaces their reservations. Lambda
 * refuses a reservation that leaves less than 100 unreserved, and CloudFormation then rolls the
 * whole deploy back. Without reservations the deploy goes through whatever the quota, but every
 * function shares it: below the usual 1,000, journeys and the API throttle under load.
 */
export async function checkLambdaConcurrency(lambda: LambdaClient, plan: PreflightPlan): Promise<CheckResult> {
  const id = 'lambda-concurrency';
  const title = 'Lambda concurrent executions';
  let quota: number;
  let unreserved: number;
  try {
    const out = await lambda.send(new GetAccountSettingsCommand({}));
    quota = out.AccountLimit?.ConcurrentExecutions ?? 0;
    unreserved = out.AccountLimit?.UnreservedConcurrentExecutions ?? 0;
  } catch (err) {
    return couldNotRead(id, title, 'lambda:GetAccountSettings', err);
  }
  const wanted = totalReserved(plan.reserved);
  const names = reservedFunctionNames(plan.namePrefix);
  let ownNow = 0;
  let ownUnknown = false;
  for (const name of Object.values(names)) {
    try {
      const out = await lambda.send(new GetFunctionConcurrencyCommand({ FunctionName: name }));
      ownNow += out.ReservedConcurrentExecutions ?? 0;
    } catch (err) {
      // Not deployed yet: it reserves nothing. Anything else: counted as nothing, and said.
      if (errorName(err) !== 'ResourceNotFoundException') ownUnknown = true;
    }
  }
  const detail = Object.entries(plan.reserved).map(([fn, v]) => `${fn} ${v}`).join(', ');
  const reserves = wanted > 0 ? `the stack would reserve ${n(wanted)} (${detail})` : 'the stack reserves none';
  const left = unreserved + ownNow - wanted;
  const figure = `quota ${n(quota)}, ${n(unreserved)} unreserved${ownNow ? ` (${n(ownNow)} reserved by this stack now)` : ''}; ${reserves}`;
  const quotaAction = (atLeast: number) =>
    `Ask for a concurrency quota of at least ${n(atLeast)} (Service Quotas > AWS Lambda > Concurrent executions, L-B99A9384; ` +
    `aws service-quotas request-service-quota-increase --service-code lambda --quota-code L-B99A9384 --desired-value ${atLeast} --region ${plan.awsRegion})`;
  if (wanted > 0 && left < LAMBDA_MINIMUM_UNRESERVED) {
    return {
      id,
      title,
      verdict: 'FAIL',
      figure: `${figure}, leaving ${n(left)} unreserved where Lambda keeps ${LAMBDA_MINIMUM_UNRESERVED}${ownUnknown ? " (this stack's current reservations could not be read)" : ''}`,
      action: `${quotaAction(quota + LAMBDA_MINIMUM_UNRESERVED - left)}, or deploy without reserved concurrency (drop -c reservedConcurrency, -c activityConcurrency, -c executionEndConcurrency).`,
    };
  }
  if (quota < LAMBDA_DEFAULT_QUOTA) {
    return {
      id,
      title,
      verdict: 'WARN',
      figure: `${figure}: the deploy goes through, but every function of the account and region shares ${n(quota)} concurrent executions`,
      action: `${quotaAction(LAMBDA_DEFAULT_QUOTA)}; until then journeys' steps and API requests are throttled under load.`,
    };
  }
  return { id, title, verdict: 'OK', figure };
}

/** The quota Service Quotas lists for `serviceCode` under a name matching `name`, if it lists one. */
async function listedQuota(quotas: ServiceQuotasClient, serviceCode: string, name: RegExp): Promise<number | undefined> {
  for await (const page of paginateListServiceQuotas({ client: quotas }, { ServiceCode: serviceCode })) {
    const hit = page.Quotas?.find((q) => q.QuotaName !== undefined && name.test(q.QuotaName) && q.Value !== undefined);
    if (hit) return hit.Value;
  }
  return undefined;
}

/**
 * State machines in the region against Step Functions' quota. The deploy makes none; publishing a
 * definition version makes (or reuses) one, and at the quota publishing answers 503.
 */
export async function checkStateMachines(sfn: SFNClient, quotas: ServiceQuotasClient, plan: PreflightPlan): Promise<CheckResult> {
  const id = 'state-machines';
  const title = 'Step Functions state machines';
  let count = 0;
  let own = 0;
  try {
    for await (const page of paginateListStateMachines({ client: sfn, pageSize: 1000 }, {})) {
      for (const m of page.stateMachines ?? []) {
        count++;
        if (m.name?.startsWith(`${plan.namePrefix}-`)) own++;
      }
    }
  } catch (err) {
    return couldNotRead(id, title, 'states:ListStateMachines', err);
  }
  let quota = STATE_MACHINES_DEFAULT_QUOTA;
  let source = 'documented default';
  let quotaNote = '';
  try {
    // Matched by name: Service Quotas lists the quota for some accounts only, under no documented code.
    const listed = await listedQuota(quotas, 'states', /registered state machines|^state machines$/i);
    if (listed !== undefined) {
      quota = listed;
      source = 'Service Quotas';
    }
  } catch (err) {
    quotaNote = ` (Service Quotas unreadable: ${isAccessDenied(err) ? 'access denied, servicequotas:ListServiceQuotas' : errorName(err)})`;
  }
  const figure = `${n(count)} of ${n(quota)} (${source}${quotaNote}) in use, ${n(own)} of them this deployment's`;
  const raise = `Delete unused state machines, or ask for a higher quota (Service Quotas > AWS Step Functions, or the Support Center).`;
  if (count >= quota) return { id, title, verdict: 'FAIL', figure: `${figure}: publishing a journey would answer 503 QUOTA_EXCEEDED`, action: raise };
  if (count >= quota * STATE_MACHINES_WARN_SHARE) {
    return { id, title, verdict: 'WARN', figure: `${figure}: ${n(quota - count)} left for every published definition version`, action: raise };
  }
  return { id, title, verdict: 'OK', figure };
}

/** The CDK bootstrap stack: cdk deploy uploads assets to its bucket and deploys with its roles. */
export async function checkBootstrap(cloudformation: CloudFormationClient, plan: PreflightPlan, account: string | undefined): Promise<CheckResult> {
  const id = 'cdk-bootstrap';
  const title = 'CDK bootstrap';
  const bootstrap = `npx cdk bootstrap aws://${account ?? 'ACCOUNT'}/${plan.awsRegion}`;
  let stack;
  try {
    stack = (await cloudformation.send(new DescribeStacksCommand({ StackName: TOOLKIT_STACK }))).Stacks?.[0];
  } catch (err) {
    if (errorName(err) === 'ValidationError' && /does not exist/.test(errorMessage(err))) stack = undefined;
    else return couldNotRead(id, title, 'cloudformation:DescribeStacks', err);
  }
  if (!stack) {
    return { id, title, verdict: 'FAIL', figure: `no ${TOOLKIT_STACK} stack in ${plan.awsRegion}: the region is not bootstrapped`, action: `Run ${bootstrap}.` };
  }
  const status = stack.StackStatus ?? 'UNKNOWN';
  const version = Number(stack.Outputs?.find((o) => o.OutputKey === 'BootstrapVersion')?.OutputValue);
  const figure = `${TOOLKIT_STACK} ${status}, bootstrap version ${Number.isFinite(version) ? version : 'unknown'}`;
  if (status.endsWith('_IN_PROGRESS')) return { id, title, verdict: 'WARN', figure, action: `Wait for ${TOOLKIT_STACK} to finish, then run the preflight again.` };
  if (status === 'ROLLBACK_COMPLETE' || status.endsWith('_FAILED')) {
    return { id, title, verdict: 'FAIL', figure, action: `Delete the ${TOOLKIT_STACK} stack (its bucket first if it is kept), then run ${bootstrap}.` };
  }
  if (!Number.isFinite(version) || version < MIN_BOOTSTRAP_VERSION) {
    return { id, title, verdict: 'FAIL', figure: `${figure}; the stack's templates need version ${MIN_BOOTSTRAP_VERSION} or later`, action: `Run ${bootstrap} to upgrade it.` };
  }
  return { id, title, verdict: 'OK', figure };
}

/**
 * Service-linked roles the stack needs. Of the services it uses (API Gateway HTTP API, Lambda,
 * DynamoDB on demand, Step Functions, S3, SQS, EventBridge rules, KMS, SNS, CloudWatch,
 * Rekognition) only API Gateway has one: it makes it for the account's first API or custom domain,
 * which takes iam:CreateServiceLinkedRole of whoever creates the API (CloudFormation's execution
 * role: the default bootstrap's AdministratorAccess has it; a narrower execution policy may not).
 */
export async function checkServiceLinkedRoles(iam: IAMClient): Promise<CheckResult> {
  const id = 'service-linked-roles';
  const title = 'Service-linked roles';
  try {
    await iam.send(new GetRoleCommand({ RoleName: API_GATEWAY_ROLE }));
    return { id, title, verdict: 'OK', figure: `${API_GATEWAY_ROLE} exists` };
  } catch (err) {
    if (errorName(err) !== 'NoSuchEntityException' && errorName(err) !== 'NoSuchEntity') return couldNotRead(id, title, 'iam:GetRole', err);
  }
  return {
    id,
    title,
    verdict: 'WARN',
    figure: `${API_GATEWAY_ROLE} is not in the account yet: the deploy makes it with the API, if CloudFormation's execution role may iam:CreateServiceLinkedRole`,
    action:
      'With the default bootstrap (AdministratorAccess) nothing to do. With narrower --cloudformation-execution-policies, make it first: ' +
      'aws iam create-service-linked-role --aws-service-name ops.apigateway.amazonaws.com',
  };
}

/** Amazon Rekognition, the face engine on AWS (docs/faces.md): not offered in every region. */
export async function checkRekognition(rekognition: RekognitionClient, plan: PreflightPlan): Promise<CheckResult> {
  const id = 'rekognition';
  const title = 'Amazon Rekognition';
  try {
    await rekognition.send(new ListCollectionsCommand({ MaxResults: 1 }));
    return { id, title, verdict: 'OK', figure: `available in ${plan.awsRegion}` };
  } catch (err) {
    if (isNoEndpoint(err)) {
      return {
        id,
        title,
        verdict: 'FAIL',
        figure: `not offered in ${plan.awsRegion} (${errorName(err)}): face capture, match and watchlist steps would fail`,
        action: 'Map the service region to an AWS region that offers Rekognition (cdk.json "regions"), or deploy with --region set to one.',
      };
    }
    return couldNotRead(id, title, 'rekognition:ListCollections', err);
  }
}

/**
 * Every check, credentials first: without them nothing else can be read, so the others are not
 * run. A check that throws after all (a bug) becomes its own WARN rather than end the run.
 */
export async function runPreflight(clients: PreflightClients, plan: PreflightPlan): Promise<CheckResult[]> {
  const who = await checkCredentials(clients.sts);
  const { account, ...credentials } = who;
  if (who.verdict === 'FAIL') return [credentials];
  const checks: [string, string, () => Promise<CheckResult>][] = [
    ['lambda-concurrency', 'Lambda concurrent executions', () => checkLambdaConcurrency(clients.lambda, plan)],
    ['state-machines', 'Step Functions state machines', () => checkStateMachines(clients.sfn, clients.quotas, plan)],
    ['cdk-bootstrap', 'CDK bootstrap', () => checkBootstrap(clients.cloudformation, plan, account)],
    ['service-linked-roles', 'Service-linked roles', () => checkServiceLinkedRoles(clients.iam)],
    ['rekognition', 'Amazon Rekognition', () => checkRekognition(clients.rekognition, plan)],
  ];
  const results: CheckResult[] = [credentials];
  for (const [id, title, run] of checks) {
    try {
      results.push(await run());
    } catch (err) {
      results.push({ id, title, verdict: 'WARN', figure: `the check itself failed: ${errorName(err)}: ${errorMessage(err)}`, action: 'Check this by hand, and report the failure.' });
    }
  }
  return results;
}

/** 1 when any check failed (the deploy, or the service once deployed, would fail), else 0. */
export function exitCode(results: readonly CheckResult[]): number {
  return results.some((r) => r.verdict === 'FAIL') ? 1 : 0;
}

/** One line per check (verdict, title, figure), its action indented below it, then a summary. */
export function formatResults(results: readonly CheckResult[]): string {
  const width = Math.max(...results.map((r) => r.title.length));
  const lines = results.flatMap((r) => [`${r.verdict.padEnd(4)}  ${r.title.padEnd(width)}  ${r.figure}`, ...(r.action ? [`      ${' '.repeat(width)}  -> ${r.action}`] : [])]);
  const count = (v: Verdict) => results.filter((r) => r.verdict === v).length;
  const summary = count('FAIL') > 0 ? `${count('FAIL')} FAIL: fix them before cdk deploy.` : count('WARN') > 0 ? `No FAIL; ${count('WARN')} WARN to read.` : 'All checks OK.';
  return [...lines, '', summary].join('\n');
}
