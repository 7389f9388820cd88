import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { SFNClient, SFNServiceException, SendTaskFailureCommand, SendTaskSuccessCommand, TaskTimedOut } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { completeUserStep, failUserStep, submissionDigest } from '../../functions/journey/steps.js';
import { stepFunctionsOrchestrator } from '../../functions/process-manager/executions/step-functions.js';
import { keys } from '../../functions/store/keys.js';
import type { ProcessInstanceRecord } from '../../functions/process-manager/model.js';

/**
 * The order of a user step's completion on AWS, with DynamoDB and Step Functions mocked: what is
 * written before SendTaskSuccess, and what only after Step Functions took it.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const sfn = mockClient(SFNClient);
const tableName = process.env.TABLE_NAME;
let order: string[];

beforeAll(() => {
  process.env.TABLE_NAME = 'unit';
});
afterAll(() => {
  ddb.restore();
  sfn.restore();
  if (tableName === undefined) delete process.env.TABLE_NAME;
  else process.env.TABLE_NAME = tableName;
});
beforeEach(() => {
  ddb.reset();
  sfn.reset();
  order = [];
  ddb.on(TransactWriteCommand).callsFake((input: { TransactItems: Record<string, { Key?: { SK: string }; Item?: { SK: string }; UpdateExpression?: string }>[] }) => {
    order.push(
      `transact ${input.TransactItems.map((i) => {
        const [op, body] = Object.entries(i)[0]!;
        return `${op} ${(body.Key ?? body.Item)!.SK}${body.UpdateExpression ? ` (${body.UpdateExpression})` : ''}`;
      }).join(', ')}`,
    );
    return {};
  });
});

const now = new Date('2026-06-01T12:00:00.000Z');
/** A done step's item emptied (the waiting step is its own item, PISTEP). */
const DONE = 'REMOVE taskToken, activityId, activityType, inputs, #state, outputs, since, refusals, claim';
const record = (claim?: boolean): ProcessInstanceRecord =>
  ({
    tenantId: 'acme',
    id: 'pi',
    status: 'ACTIVE',
    expiresAt: 99,
    currentStep: {
      activityId: 'form',
      activityType: 'DATA_FORM',
      inputs: {},
      state: { instance: { tenantId: 'acme', processInstanceId: 'pi' }, vars: { kept: 1 } },
      taskToken: 'tok-1',
      since: now.toISOString(),
      ...(claim ? { claim: { at: now.toISOString(), outcome: 'complete' } } : {}),
    },
  }) as unknown as ProcessInstanceRecord;
const complete = (firstName: string, claimed = false) =>
  completeUserStep(
    { tenantId: 'acme', processInstanceId: 'pi', activityId: 'form', result: { vars: { form: { firstName } } }, values: { firstName }, dataKey: 'form', record: record(claimed) },
    stepFunctionsOrchestrator(),
    now,
  );
const sent = (output: string) => {
  order.push(`SendTaskSuccess ${output}`);
  return {};
};

describe('completeUserStep on AWS', () => {
  it('takes the step off and records what was given only after Step Functions took the result', async () => {
    sfn.on(SendTaskSuccessCommand).callsFake((input: { output: string }) => sent(input.output));
    await complete('Ann');
    expect(order).toEqual([
      'transact Update PISTEP (SET claim = :claim), Put STEPCLAIM#form',
      'SendTaskSuccess {"instance":{"tenantId":"acme","processInstanceId":"pi"},"vars":{"kept":1,"form":{"firstName":"Ann"}}}',
      `transact Delete STEPCLAIM#form, Put USERDATA#form, Update PI (SET lastStep = :last, lastUpdatedAt = :now), Update PISTEP (${DONE})`,
    ]);
  });

  it('answers 503 to a throttled SendTaskSuccess, releases the claim and keeps the step waiting', async () => {
    sfn.on(SendTaskSuccessCommand).rejects(new SFNServiceException({ name: 'ThrottlingException', message: 'Rate exceeded', $fault: 'client', $metadata: { httpStatusCode: 400 } }));
    await expect(complete('Ann')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', statusCode: 503, headers: { 'Retry-After': '2' } });
    expect(order).toEqual([
      'transact Update PISTEP (SET claim = :claim), Put STEPCLAIM#form',
      'transact Delete STEPCLAIM#form, Update PISTEP (REMOVE claim)',
    ]);
  });

  it('answers 503 and keeps the claim when Step Functions did not answer', async () => {
    sfn.on(SendTaskSuccessCommand).rejects(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }));
    await expect(complete('Ann')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(order).toEqual(['transact Update PISTEP (SET claim = :claim), Put STEPCLAIM#form']);
  });

  it('hands over the claimed result, not the new one, when the step is already claimed; "timed out" to the repeat means it was taken', async () => {
    ddb.on(GetCommand, { Key: keys.instanceStepClaim('acme', 'pi', 'form') }).resolves({
      Item: {
        itemType: 'StepClaim',
        activityId: 'form',
        taskToken: 'tok-1',
        at: now.toISOString(),
        outcome: { complete: { result: { vars: { form: { firstName: 'Ann' } } }, data: { activityId: 'form', activityType: 'DATA_FORM', dataKey: 'form', submittedAt: now.toISOString(), values: { firstName: 'Ann' } } } },
        expiresAt: 99,
      },
    });
    sfn.on(SendTaskSuccessCommand).callsFake((input: { output: string }) => {
      sent(input.output);
      throw new TaskTimedOut({ message: "Task Timed Out: 'Provided task does not exist anymore'", $metadata: {} });
    });
    await complete('Bob', true);
    expect(order).toEqual([
      'SendTaskSuccess {"instance":{"tenantId":"acme","processInstanceId":"pi"},"vars":{"kept":1,"form":{"firstName":"Ann"}}}',
      `transact Delete STEPCLAIM#form, Put USERDATA#form, Update PI (SET lastStep = :last, lastUpdatedAt = :now), Update PISTEP (${DONE})`,
    ]);
  });

  it('fails a step with its error event the same way: claimed, sent, then finished without user data', async () => {
    sfn.on(SendTaskFailureCommand).callsFake((input: { error: string }) => {
      order.push(`SendTaskFailure ${input.error}`);
      return {};
    });
    await failUserStep({ record: record(), activityId: 'form', error: 'DataFormRetake', cause: 'retake' }, stepFunctionsOrchestrator(), now);
    expect(order).toEqual([
      'transact Update PISTEP (SET claim = :claim), Put STEPCLAIM#form',
      'SendTaskFailure DataFormRetake',
      `transact Delete STEPCLAIM#form, Update PI (SET lastStep = :last, lastUpdatedAt = :now), Update PISTEP (${DONE})`,
    ]);
  });
});

describe('submissionDigest', () => {
  const multipart = (boundary: string, bytes: string) => ({
    contentType: `multipart/form-data; boundary=${boundary}`,
    bytes: Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="f.jpg"\r\nContent-Type: image/jpeg\r\n\r\n${bytes}\r\n--${boundary}--\r\n`),
  });

  it('is the same for the same fields in any order and for the same file under another multipart boundary', async () => {
    expect(await submissionDigest('cap', 'form', { body: { a: '1', b: '2' } })).toBe(await submissionDigest('cap', 'form', { body: { b: '2', a: '1' } }));
    expect(await submissionDigest('cap', 'face', { upload: multipart('x1', 'JPEG') })).toBe(await submissionDigest('cap', 'face', { upload: multipart('y2', 'JPEG') }));
  });

  it('differs for other values, another file, another step or another link, and does not show the values', async () => {
    const digest = await submissionDigest('cap', 'form', { body: { dateOfBirth: '1990-05-17' } });
    expect(await submissionDigest('cap', 'form', { body: { dateOfBirth: '1990-05-18' } })).not.toBe(digest);
    expect(await submissionDigest('cap', 'other', { body: { dateOfBirth: '1990-05-17' } })).not.toBe(digest);
    expect(await submissionDigest('cap2', 'form', { body: { dateOfBirth: '1990-05-17' } })).not.toBe(digest);
    expect(await submissionDigest('cap', 'face', { upload: multipart('x1', 'JPEG') })).not.toBe(await submissionDigest('cap', 'face', { upload: multipart('x1', 'JPEH') }));
    expect(digest).not.toContain('1990');
  });
});
