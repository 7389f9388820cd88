import { CreateStateMachineCommand, SFNClient, StateMachineLimitExceeded } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../functions/config.js';
import { toErrorResponse } from '../../functions/errors.js';
import { stateMachineName, stateMachineNameOf, stateMachinePrefix } from '../../functions/process-manager/executions/orchestrator.js';
import { stateMachineSettings, stepFunctionsOrchestrator } from '../../functions/process-manager/executions/step-functions.js';
import { compileDefinition } from '../../statemachines/compile.js';
import { exampleDefinitions } from '../../statemachines/examples/index.js';

const ROLE = 'arn:aws:iam::111122223333:role/arthr-fir-StateMachineRole';
const LOG_GROUP = 'arn:aws:logs:eu-west-1:111122223333:log-group:/aws/vendedlogs/states/arthr-fir:*';
const ACTIVITIES = 'arn:aws:lambda:eu-west-1:111122223333:function:arthr-fir-activities';
const env = {
  TABLE_NAME: 't',
  SERVICE_REGION: 'fir',
  SERVICE_DOMAIN: 'example.com',
  TOKEN_ISSUER: 'https://issuer.example.com',
  TOKEN_AUDIENCE: 'arthr-api',
  SIGNING_KEY: 'kms:k',
  STATE_MACHINE_ROLE_ARN: ROLE,
  STATE_MACHINE_LOG_GROUP_ARN: LOG_GROUP,
  ACTIVITY_FUNCTION_ARN: ACTIVITIES,
};

const saved = { ...process.env };
const sfn = mockClient(SFNClient);
const END = 'arn:aws:lambda:eu-west-1:123456789012:function:arthr-fir-execution-end';
const asl = compileDefinition(exampleDefinitions()[0]!, { activityFunctionArn: ACTIVITIES, executionEndFunctionArn: END });
const publish = (definition: object = asl) => stepFunctionsOrchestrator().publishStateMachine({ asl: definition });

describe('stateMachineName', () => {
  it('is the region\u2019s prefix and a hash of the ASL and its settings, within Step Functions\u2019 80 characters', () => {
    const name = stateMachineName('fir', JSON.stringify(asl));
    expect(name).toMatch(/^arthr-fir-[0-9a-f]{32}$/);
    expect(name.length).toBeLessThanOrEqual(80);
    expect(name.startsWith(stateMachinePrefix('fir'))).toBe(true);
    // The same in, the same out; anything different, another state machine.
    expect(stateMachineName('fir', JSON.stringify(asl))).toBe(name);
    expect(stateMachineName('gum', JSON.stringify(asl))).toMatch(/^arthr-gum-/);
    expect(stateMachineName('fir', JSON.stringify({ ...asl, Comment: 'x' }))).not.toBe(name);
    expect(stateMachineName('fir', JSON.stringify(asl), { tracingConfiguration: { enabled: true } })).not.toBe(name);
  });

  it('is the same for every tenant and every version whose definition compiles alike', () => {
    const [identity] = exampleDefinitions();
    const compile = (def: typeof identity) => JSON.stringify(compileDefinition(def!, { activityFunctionArn: ACTIVITIES, executionEndFunctionArn: END }));
    const names = [identity, { ...identity!, version: 2 }, { ...identity!, name: 'acme-onboarding', version: 31 }].map((def) => stateMachineName('fir', compile(def)));
    expect(new Set(names).size).toBe(1);
    process.env = { ...saved, ...env };
    resetConfigForTests();
    // The orchestrator names it the same way, whoever activates it.
    expect(stepFunctionsOrchestrator().stateMachineName(compileDefinition(identity!, { activityFunctionArn: ACTIVITIES, executionEndFunctionArn: END }))).toBe(
      stateMachineName('fir', compile(identity), stateMachineSettings({ STATE_MACHINE_LOG_GROUP_ARN: LOG_GROUP, STATE_MACHINE_TRACING: 'false' })),
    );
    process.env = saved;
    resetConfigForTests();
  });

  it('reads back from an ARN', () => {
    expect(stateMachineNameOf('arn:aws:states:eu-west-1:1:stateMachine:arthr-fir-abc')).toBe('arthr-fir-abc');
  });
});

describe('stepFunctionsOrchestrator().publishStateMachine', () => {
  beforeEach(() => {
    sfn.reset();
    resetConfigForTests();
    process.env = { ...saved, ...env };
  });
  afterAll(() => {
    process.env = saved;
    resetConfigForTests();
  });

  it('creates an untagged Standard workflow named by the hash, logging errors without execution data, traced as configured', async () => {
    sfn.on(CreateStateMachineCommand).callsFake((input: { name: string }) => ({ stateMachineArn: `arn:aws:states:eu-west-1:111122223333:stateMachine:${input.name}` }));
    const arn = await publish();
    const input = sfn.commandCalls(CreateStateMachineCommand)[0]!.args[0].input;
    const settings = stateMachineSettings({ STATE_MACHINE_LOG_GROUP_ARN: LOG_GROUP, STATE_MACHINE_TRACING: 'false' });
    // No tenant tag: the state machine is shared by every tenant whose definitions compile alike.
    expect(input).toEqual({
      name: stateMachineName('fir', JSON.stringify(asl), settings),
      type: 'STANDARD',
      roleArn: ROLE,
      definition: JSON.stringify(asl),
      loggingConfiguration: { level: 'ERROR', includeExecutionData: false, destinations: [{ cloudWatchLogsLogGroup: { logGroupArn: LOG_GROUP } }] },
      tracingConfiguration: { enabled: false },
    });
    expect(arn).toBe(`arn:aws:states:eu-west-1:111122223333:stateMachine:${input.name}`);
  });

  it('asks for the same state machine for the same ASL, and another for another', async () => {
    sfn.on(CreateStateMachineCommand).callsFake((input: { name: string }) => ({ stateMachineArn: `arn:aws:states:eu-west-1:1:stateMachine:${input.name}` }));
    const [a, b, c] = [await publish(), await publish(), await publish({ ...asl, TimeoutSeconds: 60 })];
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });

  it('traces the state machines when the deployment traces', async () => {
    process.env.STATE_MACHINE_TRACING = 'true';
    sfn.on(CreateStateMachineCommand).resolves({ stateMachineArn: 'arn:aws:states:eu-west-1:1:stateMachine:x' });
    await publish();
    expect(sfn.commandCalls(CreateStateMachineCommand)[0]!.args[0].input.tracingConfiguration).toEqual({ enabled: true });
  });

  it('answers 503 with Retry-After when the account\u2019s quota of state machines is used up', async () => {
    sfn.on(CreateStateMachineCommand).rejects(new StateMachineLimitExceeded({ message: 'State machine limit exceeded', $metadata: {} }));
    const err = await publish().catch((e: unknown) => e);
    const answer = toErrorResponse(err);
    expect(answer.statusCode).toBe(503);
    expect(answer.body.code).toBe('QUOTA_EXCEEDED');
    expect(answer.headers['Retry-After']).toMatch(/^\d+$/);
  });

  it('answers 503 with Retry-After while the janitor\u2019s deletion of the same state machine is still under way', async () => {
    sfn.on(CreateStateMachineCommand).rejects(Object.assign(new Error('deleting'), { name: 'StateMachineDeleting' }));
    const answer = toErrorResponse(await publish().catch((e: unknown) => e));
    expect(answer.statusCode).toBe(503);
    expect(answer.body.code).toBe('SERVICE_UNAVAILABLE');
    expect(answer.headers['Retry-After']).toMatch(/^\d+$/);
  });

  it('lets any other failure through as it is (a 500 for the caller)', async () => {
    sfn.on(CreateStateMachineCommand).rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }));
    const err = await publish().catch((e: unknown) => e);
    expect(toErrorResponse(err).statusCode).toBe(500);
  });
});
