import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { completeUserStep } from '../../functions/journey/steps.js';
import { orchestrator } from '../../functions/process-manager/executions/orchestrator.js';
import { processInstanceStore } from '../../functions/store/process-instances.js';
import { definitionStore } from '../../functions/store/process-definitions.js';
import { dynamo } from '../../functions/store/client.js';
import { keys } from '../../functions/store/keys.js';
import { getConfig } from '../../functions/config.js';
import { activityFunction } from '../../functions/activities/run.js';
import { BEGINS, RUNS } from '../../functions/activities/index.generated.js';
import { activityDeps } from '../../functions/activities/deps.js';
import { ACTIVITY_CONTRACT, CONTRACT_ERRORS, type ContractWindow } from '../../functions/shared/activity-contract.js';
import { call } from './client.js';
import { inProcessRuntime, until, waitingAt } from './in-process.js';

/**
 * A deploy in the middle of a journey. The journey starts on a state machine as the previous
 * build compiled it (its ASL frozen in test/fixtures/contracts/contract-{N-1}.asl.json, a version
 * activated before the deploy), its first steps run on that build's activity function, then the
 * deploy swaps the activity function (Lambda's unqualified function: every running execution
 * calls the new code at once), and the current build must finish it.
 *
 * The runtime runs in this process; its engine calls the activity function through
 * functions/activities/lambda.ts's runActivity, which this test points at one build or the next.
 */
type Run = (payload: Record<string, unknown>, now: Date) => Promise<unknown>;
const build = vi.hoisted(() => ({ run: undefined as undefined | ((payload: Record<string, unknown>, now: Date) => Promise<unknown>), name: '' }));
const calls: { build: string; activityId: unknown; contract: unknown }[] = [];

vi.mock('../../functions/activities/lambda.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../functions/activities/lambda.js')>();
  return {
    ...real,
    runActivity: (payload: Record<string, unknown>, now: Date) => {
      calls.push({ build: build.name, activityId: payload.activityId, contract: payload.contract });
      return (build.run ?? real.runActivity)(payload, now);
    },
  };
});

const PREVIOUS = ACTIVITY_CONTRACT - 1;
/** An activity function that serves `contracts`: what a build with that window is, as far as a Task can tell. */
const buildServing = (contracts: ContractWindow): Run => activityFunction({ runs: RUNS, begins: BEGINS, deps: activityDeps, contracts });
/** The previous build: it spoke N-1, and served N-2. */
const previousBuild = buildServing({ current: PREVIOUS, oldest: PREVIOUS - 1 });

const FIXTURES = resolve(import.meta.dirname, '../fixtures/contracts');
const journey = JSON.parse(readFileSync(join(FIXTURES, 'journey.json'), 'utf8')) as Record<string, unknown>;

const context = inProcessRuntime('contract');

const fresh = () => Math.random().toString(36).slice(2, 10);

/** Publishes the fixture journey under a fresh name (compiled by this build): its version's id. */
async function publish(): Promise<{ name: string; id: string }> {
  const name = `contract-journey-${fresh()}`;
  const published = await call('POST', '/api/process-manager/processDefinitions', { port: context.runtime().port, token: context.token(), body: { ...journey, name } });
  expect(published.status, published.text).toBe(201);
  const record = await definitionStore.getByNameVersion('demo', name, 1);
  return { name, id: record!.id };
}

/**
 * The version as the previous build left it: active on the state machine that build compiled
 * (frozen ASL, this deployment's function ARNs), which new instances of it start on.
 */
async function activatedByPreviousBuild(definitionId: string): Promise<string> {
  const { ACTIVITY_FUNCTION_ARN, EXECUTION_END_FUNCTION_ARN } = getConfig();
  const text = readFileSync(join(FIXTURES, `contract-${PREVIOUS}.asl.json`), 'utf8')
    .replaceAll('${ActivityFunctionArn}', ACTIVITY_FUNCTION_ARN)
    .replaceAll('${ExecutionEndFunctionArn}', EXECUTION_END_FUNCTION_ARN);
  const name = `arthr-fir-contract${PREVIOUS}-${fresh()}`;
  const { stateMachineArn } = context.runtime().engine.createStateMachine(name, JSON.parse(text));
  const { doc, tableName, commands } = await dynamo();
  await doc.send(
    new commands.UpdateCommand({
      TableName: tableName,
      Key: keys.definition('demo', definitionId),
      UpdateExpression: 'SET stateMachineArn = :arn, stateMachineName = :name',
      ExpressionAttributeValues: { ':arn': stateMachineArn, ':name': name },
    }),
  );
  return stateMachineArn;
}

async function startJourney(definition: string): Promise<string> {
  const pt = await call('POST', '/api/process-manager/processTokens', {
    port: context.runtime().port,
    token: context.token(),
    body: { name: `pt-${fresh()}`, processDefnName: definition, processDefnVersion: 1, parameters: { firstName: 'Ann' } },
  });
  expect(pt.status, pt.text).toBe(201);
  const created = await call('POST', `/api/process-manager/processInstances/create?pt=${pt.json.id}`, { port: context.runtime().port, token: context.token() });
  expect(created.status, created.text).toBe(201);
  return created.json.processInstanceId;
}

const finalStatus = (id: string) =>
  until(
    'the instance to end',
    async () => {
      const s = (await processInstanceStore.get('demo', id))?.status;
      return s === 'PENDING' || s === 'ACTIVE' ? undefined : s;
    },
    15_000,
  );

/** Starts the journey on the previous build's state machine, runs it to its user step on the previous build, then deploys `next`. */
async function startOnPreviousBuild(next: { name: string; run: Run | undefined }): Promise<{ id: string; executionArn: string; machine: string }> {
  const { name, id: definitionId } = await publish();
  const machine = await activatedByPreviousBuild(definitionId);
  build.name = 'previous';
  build.run = previousBuild;
  const id = await startJourney(name);
  expect((await processInstanceStore.get('demo', id))?.stateMachineArn).toBe(machine);
  await waitingAt(id, 'details', 15_000);
  const executionArn = context.runtime().engine.waitingTasks().find((t) => t.executionArn.endsWith(`:${id}`))!.executionArn;
  // The deploy: the unqualified function's code changes under the waiting execution.
  build.name = next.name;
  build.run = next.run;
  await completeUserStep(
    { tenantId: 'demo', processInstanceId: id, activityId: 'details', result: { vars: { details: { firstName: 'Ann' } } } },
    await orchestrator(),
    new Date(),
  );
  return { id, executionArn, machine };
}

describe('a journey started on the previous build', () => {
  it(`is finished by the current build: a state machine of contract ${PREVIOUS} is served after the deploy`, async () => {
    calls.length = 0;
    const { id, executionArn } = await startOnPreviousBuild({ name: 'current', run: undefined });
    expect(await finalStatus(id)).toBe('COMPLETED_ENDED_SUCCESS');
    // The previous build ran the first steps, the current one the last; every payload spoke N-1
    // (contract 1 carries no number).
    const spoken = PREVIOUS === 1 ? undefined : PREVIOUS;
    expect(calls).toEqual([
      { build: 'previous', activityId: 'before', contract: spoken },
      { build: 'previous', activityId: 'details', contract: spoken },
      { build: 'current', activityId: 'after', contract: spoken },
    ]);
    // Both counters ran on the one session: the gateway saw 2 and took PASS.
    expect(context.runtime().engine.describeExecution(executionArn)).toMatchObject({ status: 'SUCCEEDED', output: expect.objectContaining({ _decision: 'PASS' }) });
  }, 60_000);

  it('fails as Activity.ContractTooOld, a process error, when the build deployed no longer serves it', async () => {
    calls.length = 0;
    const dropped = buildServing({ current: ACTIVITY_CONTRACT, oldest: ACTIVITY_CONTRACT });
    const { id, executionArn } = await startOnPreviousBuild({ name: 'dropped', run: dropped });
    expect(await finalStatus(id)).toBe('COMPLETED_PROCESS_ERROR');
    expect(context.runtime().engine.describeExecution(executionArn)).toMatchObject({ status: 'FAILED', error: CONTRACT_ERRORS.TOO_OLD });
    // Refused once, not retried: no later attempt would be served.
    expect(calls.filter((c) => c.build === 'dropped').map((c) => c.activityId)).toEqual(['after']);
  }, 60_000);
});

describe('a journey on a state machine this build compiles', () => {
  it(`speaks contract ${ACTIVITY_CONTRACT} in every payload`, async () => {
    calls.length = 0;
    const { name } = await publish();
    build.name = 'current';
    build.run = undefined;
    const id = await startJourney(name);
    await waitingAt(id, 'details', 15_000);
    await completeUserStep({ tenantId: 'demo', processInstanceId: id, activityId: 'details', result: {} }, await orchestrator(), new Date());
    expect(await finalStatus(id)).toBe('COMPLETED_ENDED_SUCCESS');
    expect(calls).toEqual(['before', 'details', 'after'].map((activityId) => ({ build: 'current', activityId, contract: ACTIVITY_CONTRACT })));
  }, 60_000);
});
