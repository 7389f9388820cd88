/** The preflight's checks against mocked AWS answers (aws-sdk-client-mock), and its command line. */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetRoleCommand, IAMClient } from '@aws-sdk/client-iam';
import { GetAccountSettingsCommand, GetFunctionConcurrencyCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { ListCollectionsCommand, RekognitionClient } from '@aws-sdk/client-rekognition';
import { ListServiceQuotasCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { ListStateMachinesCommand, SFNClient } from '@aws-sdk/client-sfn';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { RESERVED_DEFAULTS } from '../../lib/concurrency.js';
import {
  checkBootstrap,
  checkCredentials,
  checkLambdaConcurrency,
  checkRekognition,
  checkServiceLinkedRoles,
  checkStateMachines,
  exitCode,
  formatResults,
  runPreflight,
  type CheckResult,
  type PreflightPlan,
} from '../../lib/preflight.js';

const sts = mockClient(STSClient);
const lambda = mockClient(LambdaClient);
const sfn = mockClient(SFNClient);
const quotas = mockClient(ServiceQuotasClient);
const cloudformation = mockClient(CloudFormationClient);
const iam = mockClient(IAMClient);
const rekognition = mockClient(RekognitionClient);

const clients = {
  sts: new STSClient({ region: 'eu-west-1' }),
  lambda: new LambdaClient({ region: 'eu-west-1' }),
  sfn: new SFNClient({ region: 'eu-west-1' }),
  quotas: new ServiceQuotasClient({ region: 'eu-west-1' }),
  cloudformation: new CloudFormationClient({ region: 'eu-west-1' }),
  iam: new IAMClient({ region: 'eu-west-1' }),
  rekognition: new RekognitionClient({ region: 'eu-west-1' }),
};
const plan: PreflightPlan = { awsRegion: 'eu-west-1', namePrefix: 'arthr-fir', reserved: {} };
const reserving: PreflightPlan = { ...plan, reserved: { ...RESERVED_DEFAULTS } };

/** An SDK error as the SDK throws it: its name is the service's error code. */
const named = (name: string, message = name) => Object.assign(new Error(message), { name });
const denied = () => named('AccessDeniedException', 'User: arn:aws:iam::123456789012:user/dev is not authorized');

beforeEach(() => {
  for (const m of [sts, lambda, sfn, quotas, cloudformation, iam, rekognition]) m.reset();
});

/** An account as a fresh one looks: everything in place, nothing deployed yet. */
function healthyAccount(concurrency = 1000) {
  sts.on(GetCallerIdentityCommand).resolves({ Account: '123456789012', Arn: 'arn:aws:iam::123456789012:user/dev' });
  lambda.on(GetAccountSettingsCommand).resolves({ AccountLimit: { ConcurrentExecutions: concurrency, UnreservedConcurrentExecutions: concurrency } });
  lambda.on(GetFunctionConcurrencyCommand).rejects(named('ResourceNotFoundException'));
  sfn.on(ListStateMachinesCommand).resolves({ stateMachines: [] });
  quotas.on(ListServiceQuotasCommand).resolves({ Quotas: [] });
  cloudformation.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'CDKToolkit', StackStatus: 'UPDATE_COMPLETE', CreationTime: new Date(), Outputs: [{ OutputKey: 'BootstrapVersion', OutputValue: '30' }] }] });
  iam.on(GetRoleCommand).resolves({ Role: { RoleName: 'AWSServiceRoleForAPIGateway', Path: '/aws-service-role/', RoleId: 'x', Arn: 'arn:aws:iam::123456789012:role/x', CreateDate: new Date() } });
  rekognition.on(ListCollectionsCommand).resolves({ CollectionIds: [] });
}

describe('checkCredentials', () => {
  it('names the account and the identity', async () => {
    healthyAccount();
    expect(await checkCredentials(clients.sts)).toMatchObject({ verdict: 'OK', account: '123456789012', figure: 'account 123456789012 as arn:aws:iam::123456789012:user/dev' });
  });

  it('fails when there are no usable credentials', async () => {
    sts.on(GetCallerIdentityCommand).rejects(named('CredentialsProviderError', 'Could not load credentials from any providers'));
    const r = await checkCredentials(clients.sts);
    expect(r).toMatchObject({ verdict: 'FAIL', figure: expect.stringContaining('Could not load credentials') });
    expect(r.action).toContain('aws configure');
  });
});

describe('checkLambdaConcurrency', () => {
  it('passes an account at the usual 1,000 when the stack reserves nothing', async () => {
    healthyAccount(1000);
    expect(await checkLambdaConcurrency(clients.lambda, plan)).toEqual({
      id: 'lambda-concurrency',
      title: 'Lambda concurrent executions',
      verdict: 'OK',
      figure: 'quota 1,000, 1,000 unreserved; the stack reserves none',
    });
  });

  it('warns when a new account\u2019s quota of 10 would be shared by every function, without failing the deploy', async () => {
    healthyAccount(10);
    const r = await checkLambdaConcurrency(clients.lambda, plan);
    expect(r.verdict).toBe('WARN');
    expect(r.figure).toContain('quota 10, 10 unreserved; the stack reserves none');
    expect(r.action).toContain('--quota-code L-B99A9384 --desired-value 1000 --region eu-west-1');
  });

  it('fails when the reservations would leave less than the 100 Lambda keeps unreserved, and says the quota that would do (302)', async () => {
    healthyAccount(50);
    const r = await checkLambdaConcurrency(clients.lambda, reserving);
    expect(r.verdict).toBe('FAIL');
    expect(r.figure).toBe(
      'quota 50, 50 unreserved; the stack would reserve 202 (activities 100, executionEnd 100, reconciler 1, janitor 1), leaving -152 unreserved where Lambda keeps 100',
    );
    expect(r.action).toContain('at least 302');
    expect(r.action).toContain('drop -c reservedConcurrency');
  });

  it('passes a redeploy whose own reservations already hold the concurrency it reserves', async () => {
    healthyAccount();
    lambda.on(GetAccountSettingsCommand).resolves({ AccountLimit: { ConcurrentExecutions: 302, UnreservedConcurrentExecutions: 100 } });
    lambda.on(GetFunctionConcurrencyCommand, { FunctionName: 'arthr-fir-activities' }).resolves({ ReservedConcurrentExecutions: 100 });
    lambda.on(GetFunctionConcurrencyCommand, { FunctionName: 'arthr-fir-execution-end' }).resolves({ ReservedConcurrentExecutions: 100 });
    lambda.on(GetFunctionConcurrencyCommand, { FunctionName: 'arthr-fir-reconcileExecutions' }).resolves({ ReservedConcurrentExecutions: 1 });
    lambda.on(GetFunctionConcurrencyCommand, { FunctionName: 'arthr-fir-sweepStateMachines' }).resolves({ ReservedConcurrentExecutions: 1 });
    const r = await checkLambdaConcurrency(clients.lambda, reserving);
    // 302 is below the usual 1,000, so a WARN, but no FAIL: the deploy replaces its own 202.
    expect(r.verdict).toBe('WARN');
    expect(r.figure).toContain('(202 reserved by this stack now)');
  });

  it('warns that it could not read when GetAccountSettings is denied', async () => {
    lambda.on(GetAccountSettingsCommand).rejects(denied());
    expect(await checkLambdaConcurrency(clients.lambda, reserving)).toMatchObject({
      verdict: 'WARN',
      figure: 'could not read: access denied (lambda:GetAccountSettings)',
    });
  });

  it('counts a reservation it may not read as none, and says so when that fails the check', async () => {
    healthyAccount(150);
    lambda.on(GetFunctionConcurrencyCommand).rejects(denied());
    const r = await checkLambdaConcurrency(clients.lambda, reserving);
    expect(r.verdict).toBe('FAIL');
    expect(r.figure).toContain("this stack's current reservations could not be read");
  });
});

describe('checkStateMachines', () => {
  const machines = (names: string[]) => names.map((name) => ({ name, stateMachineArn: `arn:aws:states:eu-west-1:123456789012:stateMachine:${name}`, type: 'STANDARD' as const, creationDate: new Date() }));

  it('counts every page of the region\u2019s state machines against the documented default when Service Quotas lists none', async () => {
    sfn.on(ListStateMachinesCommand).resolvesOnce({ stateMachines: machines(['arthr-fir-a1', 'other']), nextToken: 'next' }).resolves({ stateMachines: machines(['arthr-fir-b2']) });
    quotas.on(ListServiceQuotasCommand).resolves({ Quotas: [{ QuotaName: 'StartExecution throttle token bucket size', Value: 800 }] });
    expect(await checkStateMachines(clients.sfn, clients.quotas, plan)).toMatchObject({
      verdict: 'OK',
      figure: "3 of 10,000 (documented default) in use, 2 of them this deployment's",
    });
  });

  it('takes the quota Service Quotas lists, and warns from 80% of it', async () => {
    sfn.on(ListStateMachinesCommand).resolves({ stateMachines: machines(['a', 'b', 'c', 'd']) });
    quotas.on(ListServiceQuotasCommand).resolves({ Quotas: [{ QuotaName: 'Maximum number of registered state machines', Value: 5 }] });
    const r = await checkStateMachines(clients.sfn, clients.quotas, plan);
    expect(r.verdict).toBe('WARN');
    expect(r.figure).toContain('4 of 5 (Service Quotas) in use');
  });

  it('fails at the quota: publishing a journey would answer 503', async () => {
    sfn.on(ListStateMachinesCommand).resolves({ stateMachines: machines(['a', 'b']) });
    quotas.on(ListServiceQuotasCommand).resolves({ Quotas: [{ QuotaName: 'Maximum number of registered state machines', Value: 2 }] });
    const r = await checkStateMachines(clients.sfn, clients.quotas, plan);
    expect(r.verdict).toBe('FAIL');
    expect(r.figure).toContain('503 QUOTA_EXCEEDED');
  });

  it('falls back to the documented default, and says why, when Service Quotas is denied', async () => {
    sfn.on(ListStateMachinesCommand).resolves({ stateMachines: [] });
    quotas.on(ListServiceQuotasCommand).rejects(denied());
    expect((await checkStateMachines(clients.sfn, clients.quotas, plan)).figure).toBe(
      "0 of 10,000 (documented default (Service Quotas unreadable: access denied, servicequotas:ListServiceQuotas)) in use, 0 of them this deployment's",
    );
  });

  it('warns that it could not read when ListStateMachines is denied', async () => {
    sfn.on(ListStateMachinesCommand).rejects(denied());
    expect(await checkStateMachines(clients.sfn, clients.quotas, plan)).toMatchObject({ verdict: 'WARN', figure: 'could not read: access denied (states:ListStateMachines)' });
  });
});

describe('checkBootstrap', () => {
  const toolkit = (status: string, version?: string) =>
    cloudformation.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'CDKToolkit', StackStatus: status as never, CreationTime: new Date(), Outputs: version ? [{ OutputKey: 'BootstrapVersion', OutputValue: version }] : [] }] });

  it('passes a complete bootstrap stack of a version the templates accept', async () => {
    toolkit('CREATE_COMPLETE', '30');
    expect(await checkBootstrap(clients.cloudformation, plan, '123456789012')).toMatchObject({ verdict: 'OK', figure: 'CDKToolkit CREATE_COMPLETE, bootstrap version 30' });
    expect(cloudformation.commandCalls(DescribeStacksCommand)[0]!.args[0].input).toEqual({ StackName: 'CDKToolkit' });
  });

  it('fails when the region is not bootstrapped, with the command for this account and region', async () => {
    cloudformation.on(DescribeStacksCommand).rejects(named('ValidationError', 'Stack with id CDKToolkit does not exist'));
    const r = await checkBootstrap(clients.cloudformation, plan, '123456789012');
    expect(r.verdict).toBe('FAIL');
    expect(r.action).toBe('Run npx cdk bootstrap aws://123456789012/eu-west-1.');
  });

  it('fails on a bootstrap older than version 6 or one that rolled back', async () => {
    toolkit('UPDATE_COMPLETE', '5');
    expect(await checkBootstrap(clients.cloudformation, plan, '123456789012')).toMatchObject({ verdict: 'FAIL', figure: expect.stringContaining('need version 6 or later') });
    toolkit('ROLLBACK_COMPLETE', '30');
    expect(await checkBootstrap(clients.cloudformation, plan, '123456789012')).toMatchObject({ verdict: 'FAIL', action: expect.stringContaining('Delete the CDKToolkit stack') });
  });

  it('warns while the bootstrap stack is still being updated', async () => {
    toolkit('UPDATE_IN_PROGRESS', '30');
    expect((await checkBootstrap(clients.cloudformation, plan, '123456789012')).verdict).toBe('WARN');
  });

  it('warns that it could not read when DescribeStacks is denied', async () => {
    cloudformation.on(DescribeStacksCommand).rejects(named('AccessDenied', 'not authorized to perform: cloudformation:DescribeStacks'));
    expect(await checkBootstrap(clients.cloudformation, plan, '123456789012')).toMatchObject({ verdict: 'WARN', figure: 'could not read: access denied (cloudformation:DescribeStacks)' });
  });
});

describe('checkServiceLinkedRoles', () => {
  it('passes when API Gateway\u2019s service-linked role exists', async () => {
    healthyAccount();
    expect(await checkServiceLinkedRoles(clients.iam)).toMatchObject({ verdict: 'OK', figure: 'AWSServiceRoleForAPIGateway exists' });
    expect(iam.commandCalls(GetRoleCommand)[0]!.args[0].input).toEqual({ RoleName: 'AWSServiceRoleForAPIGateway' });
  });

  it('warns, never fails, when it is missing: the deploy makes it unless the execution role may not', async () => {
    iam.on(GetRoleCommand).rejects(named('NoSuchEntityException', 'The role with name AWSServiceRoleForAPIGateway cannot be found.'));
    const r = await checkServiceLinkedRoles(clients.iam);
    expect(r.verdict).toBe('WARN');
    expect(r.action).toContain('aws iam create-service-linked-role --aws-service-name ops.apigateway.amazonaws.com');
  });

  it('warns that it could not read when GetRole is denied', async () => {
    iam.on(GetRoleCommand).rejects(named('AccessDenied'));
    expect(await checkServiceLinkedRoles(clients.iam)).toMatchObject({ verdict: 'WARN', figure: 'could not read: access denied (iam:GetRole)' });
  });
});

describe('checkRekognition', () => {
  it('passes where Rekognition answers', async () => {
    healthyAccount();
    expect(await checkRekognition(clients.rekognition, plan)).toMatchObject({ verdict: 'OK', figure: 'available in eu-west-1' });
  });

  it('fails in a region where Rekognition has no endpoint', async () => {
    rekognition.on(ListCollectionsCommand).rejects(Object.assign(new Error('getaddrinfo ENOTFOUND rekognition.eu-south-2.amazonaws.com'), { code: 'ENOTFOUND' }));
    const r = await checkRekognition(clients.rekognition, { ...plan, awsRegion: 'eu-south-2' });
    expect(r.verdict).toBe('FAIL');
    expect(r.figure).toContain('not offered in eu-south-2');
  });

  it('warns that it could not read when denied or throttled', async () => {
    rekognition.on(ListCollectionsCommand).rejects(denied());
    expect(await checkRekognition(clients.rekognition, plan)).toMatchObject({ verdict: 'WARN', figure: 'could not read: access denied (rekognition:ListCollections)' });
    rekognition.on(ListCollectionsCommand).rejects(named('ThrottlingException', 'Rate exceeded'));
    expect(await checkRekognition(clients.rekognition, plan)).toMatchObject({ verdict: 'WARN', figure: 'could not read: ThrottlingException: Rate exceeded' });
  });
});

describe('runPreflight', () => {
  it('runs every check in a healthy account, all OK, exit code 0', async () => {
    healthyAccount();
    const results = await runPreflight(clients, plan);
    expect(results.map((r) => [r.id, r.verdict])).toEqual([
      ['credentials', 'OK'],
      ['lambda-concurrency', 'OK'],
      ['state-machines', 'OK'],
      ['cdk-bootstrap', 'OK'],
      ['service-linked-roles', 'OK'],
      ['rekognition', 'OK'],
    ]);
    expect(results[0]).not.toHaveProperty('account');
    expect(exitCode(results)).toBe(0);
    expect(formatResults(results)).toMatch(/^OK {4}AWS credentials {16}account 123456789012/);
    expect(formatResults(results)).toMatch(/All checks OK\.$/);
  });

  it('stops after the credentials when there are none, exit code 1', async () => {
    sts.on(GetCallerIdentityCommand).rejects(named('CredentialsProviderError'));
    const results = await runPreflight(clients, plan);
    expect(results.map((r) => r.id)).toEqual(['credentials']);
    expect(exitCode(results)).toBe(1);
    expect(lambda.calls()).toHaveLength(0);
  });

  it('fails a fresh account of quota 50 asked to reserve, and only warns it without reservations', async () => {
    healthyAccount(50);
    const reserved = await runPreflight(clients, reserving);
    expect(reserved.filter((r) => r.verdict === 'FAIL').map((r) => r.id)).toEqual(['lambda-concurrency']);
    expect(exitCode(reserved)).toBe(1);
    expect(formatResults(reserved)).toMatch(/1 FAIL: fix them before cdk deploy\.$/);
    const unreserved = await runPreflight(clients, plan);
    expect(unreserved.filter((r) => r.verdict !== 'OK').map((r) => [r.id, r.verdict])).toEqual([['lambda-concurrency', 'WARN']]);
    expect(exitCode(unreserved)).toBe(0);
  });

  it('turns a denied read into that check\u2019s WARN and goes on with the others (exit code 0)', async () => {
    healthyAccount();
    lambda.on(GetAccountSettingsCommand).rejects(denied());
    iam.on(GetRoleCommand).rejects(denied());
    const results = await runPreflight(clients, plan);
    expect(results.map((r) => r.verdict)).toEqual(['OK', 'WARN', 'OK', 'OK', 'WARN', 'OK']);
    expect(exitCode(results)).toBe(0);
  });

  it('turns a check that breaks into a WARN instead of ending the run', async () => {
    healthyAccount();
    const broken = { ...clients, iam: {} as IAMClient };
    const results = await runPreflight(broken, plan);
    expect(results.find((r) => r.id === 'service-linked-roles')).toMatchObject({ verdict: 'WARN' });
    expect(results).toHaveLength(6);
  });
});

describe('exitCode', () => {
  const result = (verdict: CheckResult['verdict']): CheckResult => ({ id: 'x', title: 'x', verdict, figure: '' });
  it('is 1 on any FAIL and 0 otherwise', () => {
    expect(exitCode([result('OK'), result('WARN')])).toBe(0);
    expect(exitCode([result('OK'), result('FAIL'), result('WARN')])).toBe(1);
  });
});

describe('bin/preflight.ts', () => {
  const root = resolve(import.meta.dirname, '../..');
  const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'bin/preflight.ts', ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });

  it('exits 2 with the usage on a context the deploy would refuse, before calling AWS', () => {
    const out = run('-c', 'reservedConcurrency=false', '-c', 'activityConcurrency=10');
    expect(out.status).toBe(2);
    expect(out.stderr).toContain('"reservedConcurrency" is false');
    expect(out.stderr).toContain('usage: npm run preflight');
  });

  it('exits 2 on a service region it does not know', () => {
    const out = run('-c', 'region=elm');
    expect(out.status).toBe(2);
    expect(out.stderr).toContain('must be one of fir, gum, oak');
  });
});
