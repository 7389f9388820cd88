import { rmSync } from 'node:fs';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityFunctionAccess } from '../../functions/activities/access.js';
import { routeList } from '../../functions/routes.js';
import { ACTIVITY_FUNCTION_TIMEOUT_SECONDS, compileDefinition, EXECUTION_END_FUNCTION_TIMEOUT_SECONDS } from '../../statemachines/compile.js';
import { exampleDefinitions } from '../../statemachines/examples/index.js';
import {
  asArray,
  joined,
  ofType,
  pascal,
  refId,
  resourceAt,
  statementsOf,
  synthesize,
  unacknowledgedNagFindings,
  type Resource,
  type Statement,
  type Synthesized,
  routeFunctionPath,
} from './support.js';

const LOG_ACTIONS = ['logs:CreateLogStream', 'logs:PutLogEvents'];
/** How the stack's ARNs read for region fir (eu-west-1) with the account left to deploy time. */
const ARN_HEAD = 'arn:aws:lambda:eu-west-1:<AWS::AccountId>:function:';

/** Every Task state of a compiled state machine, nested ones included. */
function taskStates(asl: unknown): Record<string, any>[] {
  const out: Record<string, any>[] = [];
  const walk = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    if ((node as { Type?: unknown }).Type === 'Task') out.push(node as Record<string, any>);
    for (const v of Object.values(node)) walk(v);
  };
  walk(asl);
  return out;
}


/** The condition that keeps a journey function's PutItem to the outbox partitions. */
/** A tenant role's condition: every partition named, and each one of `partitions`. */
const OWN_TENANT = (partitions: string[]) => ({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': partitions }, Null: { 'dynamodb:LeadingKeys': 'false' } });
/** The session tenant's outbox partitions, sharded or not. */
const OWN_OUTBOX = ['TNT#${aws:PrincipalTag/arthr-tenant}#EVENTS', 'TNT#${aws:PrincipalTag/arthr-tenant}#S??#EVENTS'];

describe('ArthrStack journeys', () => {
  let synth: Synthesized;
  let template: Template;
  let tableArn: unknown;

  let activities: Resource;
  let activitiesId: string;
  let executionEnd: Resource;
  let executionEndId: string;
  let runnerId: string;
  let runner: Resource;
  let queueId: string;
  let ruleId: string;
  let rule: Resource;

  /** Every statement of a function's role, and that role. */
  const grantsOf = (f: Resource): Statement[] => statementsOf(template, refId(f.Properties.Role)!);
  const actionsOf = (statements: Statement[]) => statements.flatMap((s) => asArray(s.Action)).sort();
  /** The grants of the tenant role a function acts through (`{construct}/Tenant/Role`), and its logical id. */
  const tenantRoleAt = (constructPath: string): [string, Statement[]] => {
    const [id] = resourceAt(template, 'AWS::IAM::Role', `${constructPath}/Tenant/Role`);
    return [id, statementsOf(template, id)];
  };
  /** A function's environment but its TENANT_ROLE_ARN (each function's own tenant role). */
  const sharedEnvironment = (f: Resource) => {
    const { TENANT_ROLE_ARN: _own, ...rest } = f.Properties.Environment.Variables as Record<string, unknown>;
    return rest;
  };
  const ASSUME = ['sts:AssumeRole', 'sts:TagSession'];

  beforeAll(() => {
    // Template only: the bundles are checked with the others in stack.test.ts.
    synth = synthesize({}, { bundle: false });
    template = synth.template;
    tableArn = { 'Fn::GetAtt': [Object.keys(ofType(template, 'AWS::DynamoDB::Table'))[0]!, 'Arn'] };
    [activitiesId, activities] = resourceAt(template, 'AWS::Lambda::Function', 'ArthrStack/Journeys/Activities/Function');
    [executionEndId, executionEnd] = resourceAt(template, 'AWS::Lambda::Function', 'ArthrStack/Journeys/ExecutionEnd/Function');
    [runnerId, runner] = resourceAt(template, 'AWS::Lambda::Function', 'ArthrStack/Journeys/CloudFunctionRunner/Function');
    [queueId] = resourceAt(template, 'AWS::SQS::Queue', 'ArthrStack/Journeys/ExecutionEndDeadLetters');
    [ruleId, rule] = resourceAt(template, 'AWS::Events::Rule', 'ArthrStack/Journeys/ExecutionEndRule');
  }, 120_000);

  afterAll(() => {
    if (synth) rmSync(synth.outdir, { recursive: true, force: true });
  });

  describe('cloud function runner', () => {
    it('has no environment and a role that grants nothing but its own logs, with QuickJS and pyodide from layers, 1536 MB and 75 s', () => {
      expect(runner.Properties).toMatchObject({ FunctionName: 'arthr-fir-cloud-function-runner', Runtime: 'nodejs22.x', MemorySize: 1536, Timeout: 75 });
      expect(runner.Properties.Environment).toBeUndefined();
      expect(asArray(runner.Properties.Layers)).toHaveLength(2);
      const statements = grantsOf(runner);
      expect(actionsOf(statements)).toEqual([...LOG_ACTIONS].sort());
      expect(ofType(template, 'AWS::IAM::Role')[refId(runner.Properties.Role)!]!.Properties.ManagedPolicyArns).toBeUndefined();
      // Invoked by the activity function (run) and the upload route (a Python script's check), by grants
      // on their roles: no resource policy lets anything else in.
      const checkers = routeList.filter((r) => r.aws.functionRunner).map((r) => r.operationId);
      expect(checkers).toEqual(['addCloudFunction']);
      expect(Object.values(ofType(template, 'AWS::Lambda::Permission')).filter((p) => refId(p.Properties.FunctionName) === runnerId)).toEqual([]);
    });
  });

  describe('activity function', () => {
    it('exists under the exact name every compiled state machine invokes', () => {
      const name = activities.Properties.FunctionName as string;
      expect(name).toBe('arthr-fir-activities');
      // What the publishing function compiles into every state machine...
      // (Every function but the image clean-up, the cloud function runner, the event relay and the webhook delivery worker, which start no journey and are not told.)
      const notTold = [
        'ArthrStack/Images/Cleanup/Function/Resource',
        'ArthrStack/Journeys/CloudFunctionRunner/Function/Resource',
        'ArthrStack/Events/Relay/Function/Resource',
        'ArthrStack/Events/DeliveryWorker/Function/Resource',
        'ArthrStack/Events/DeliverySweeper/Function/Resource',
      ];
      const arns = new Set(
        Object.values(ofType(template, 'AWS::Lambda::Function'))
          .filter((f) => !notTold.includes(f.Metadata?.['aws:cdk:path'] as string))
          .map((f) => joined(f.Properties.Environment.Variables.ACTIVITY_FUNCTION_ARN)),
      );
      expect([...arns]).toEqual([`${ARN_HEAD}${name}`]);
      // ...and so what every Task state of a journey names, but the last (the execution-end function).
      const arn = [...arns][0]!;
      const endArn = `${ARN_HEAD}${executionEnd.Properties.FunctionName as string}`;
      for (const definition of exampleDefinitions()) {
        const tasks = taskStates(compileDefinition(definition, { activityFunctionArn: arn, executionEndFunctionArn: endArn }));
        expect(tasks.length, definition.name).toBeGreaterThan(1);
        const names = tasks.map((t) => t.Parameters.FunctionName as string);
        expect(names.filter((n) => n === endArn), definition.name).toHaveLength(1);
        expect(names.filter((n) => n !== endArn).every((n) => n === arn), definition.name).toBe(true);
      }
      // The output names the function itself.
      expect(refId(template.findOutputs('ActivityFunctionName').ActivityFunctionName!.Value)).toBe(activitiesId);
    });

    it('runs on nodejs22.x, arm64, 1,024 MB (the document steps read documents), 90 s (a cloud function step waits for its run), logging to its own log group kept for a month', () => {
      expect(activities.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 1024,
        Timeout: 90,
      });
      const group = ofType(template, 'AWS::Logs::LogGroup')[refId(activities.Properties.LoggingConfig.LogGroup)!]!;
      expect(group.Properties).toEqual({ LogGroupName: '/aws/lambda/arthr-fir-activities', RetentionInDays: 30 });
    });

    it("is waited for by every compiled Task state a little longer than its timeout, the execution-end function too", () => {
      // The compiler's figures are the functions' timeouts as deployed, so a state times out
      // only after its function has (a user step waits for its end user instead).
      expect(activities.Properties.Timeout).toBe(ACTIVITY_FUNCTION_TIMEOUT_SECONDS);
      expect(executionEnd.Properties.Timeout).toBe(EXECUTION_END_FUNCTION_TIMEOUT_SECONDS);
      const timeoutOf = new Map([
        ['arn:activities', activities.Properties.Timeout as number],
        ['arn:end', executionEnd.Properties.Timeout as number],
      ]);
      for (const definition of exampleDefinitions()) {
        for (const task of taskStates(compileDefinition(definition, { activityFunctionArn: 'arn:activities', executionEndFunctionArn: 'arn:end' }))) {
          if (String(task.Resource).endsWith('.waitForTaskToken')) continue;
          expect(task.TimeoutSeconds, definition.name).toBeGreaterThan(timeoutOf.get(task.Parameters.FunctionName as string)!);
        }
      }
    });

    it('gets the configuration the route functions get, and where the runner and the secrets key are', () => {
      const route = resourceAt(template, 'AWS::Lambda::Function', routeFunctionPath(routeList[0]!))[1];
      const { CLOUD_FUNCTION_RUNNER, SECRETS_KEY, IMAGES_BUCKET, FACE_COLLECTION_PREFIX, PAGES_ORIGIN, DOCUMENT_ENGINE, ...rest } = sharedEnvironment(activities);
      expect(rest).toEqual(sharedEnvironment(route));
      // Each its own tenant role.
      expect(activities.Properties.Environment.Variables.TENANT_ROLE_ARN).toEqual({ 'Fn::GetAtt': [tenantRoleAt('ArthrStack/Journeys/Activities')[0], 'Arn'] });
      expect(executionEnd.Properties.Environment.Variables.TENANT_ROLE_ARN).toEqual({ 'Fn::GetAtt': [tenantRoleAt('ArthrStack/Journeys/ExecutionEnd')[0], 'Arn'] });
      // The face steps: the images bucket, and the watchlists' collections.
      expect(IMAGES_BUCKET).toEqual({ Ref: expect.stringMatching(/^ImagesBucket/) });
      expect(FACE_COLLECTION_PREFIX).toMatch(/^arthr-[a-z0-9-]+$/);
      expect(CLOUD_FUNCTION_RUNNER).toEqual({ 'Fn::GetAtt': [runnerId, 'Arn'] });
      expect(JSON.stringify(SECRETS_KEY)).toContain('kms:');
      // A custom page step records where its page is served: the distribution's domain, no grant on its bucket.
      expect(JSON.stringify(PAGES_ORIGIN)).toContain('PagesDistribution');
      // The document steps: the embedded engine unless the deployment chose Textract.
      expect(DOCUMENT_ENGINE).toBe('embedded');
      expect(sharedEnvironment(executionEnd)).toEqual(sharedEnvironment(route));
    });

    it('may only touch table items as activityFunctionAccess says (a user step\'s event goes in the outbox), invoke the runner, unseal cloud secrets, judge and search faces, read and pre-sign instance images, and write its own logs', () => {
      const own = grantsOf(activities);
      const tenantRoleId = (activities.Properties.Environment.Variables.TENANT_ROLE_ARN as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const forTenant = statementsOf(template, tenantRoleId);
      // Its own role: what is not a tenant's data, and assuming its tenant role.
      expect(actionsOf(own)).toEqual(
        ['kms:Decrypt', 'lambda:InvokeFunction', 'rekognition:CompareFaces', 'rekognition:DetectFaces', 'rekognition:SearchFacesByImage', 'sts:AssumeRole', 'sts:TagSession', ...LOG_ACTIONS].sort(),
      );
      // Its tenant role: the items and images (tenant-iam.test.ts evaluates them per tenant).
      // PutItem: among others, a user step's event, written with the step (the outbox); the
      // relay alone puts events on the bus (events.test.ts). kms: the images' key, through S3 only.
      expect(actionsOf(forTenant)).toEqual(
        ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem', 'kms:Decrypt', 'kms:GenerateDataKey', 's3:GetObject', 's3:PutObject'].sort(),
      );
      // The table actions are exactly what the activity modules and the user steps declare.
      expect(actionsOf(forTenant).filter((a) => a.startsWith('dynamodb:'))).toEqual(activityFunctionAccess().table.map((a) => `dynamodb:${a}`).sort());
      for (const s of forTenant) {
        if (asArray(s.Action).some((a) => a.startsWith('dynamodb:'))) {
          expect(asArray(s.Resource)).toEqual([tableArn]);
          expect(JSON.stringify(s.Condition)).toContain('TNT#${aws:PrincipalTag/arthr-tenant}#*');
        } else if (asArray(s.Action).some((a) => a.startsWith('s3:'))) {
          expect(JSON.stringify(s.Resource)).toContain('/tenants/${aws:PrincipalTag/arthr-tenant}/*');
        } else {
          expect(JSON.stringify(s.Condition)).toContain('s3.eu-west-1.amazonaws.com');
        }
      }
      const statements = own;
      const sid = (s: Statement) => (s as Statement & { Sid?: string }).Sid;
      for (const s of statements) {
        expect(s.Effect).toBe('Allow');
        const resources = asArray(s.Resource);
        // Faces and images as every route that uses them is granted them (test/infra/stack.test.ts, images.test.ts).
        if (sid(s) === 'JudgeFaceImages') {
          expect(resources).toEqual(['*']);
          continue;
        }
        if (sid(s) === 'UseWatchlistCollections') {
          expect(resources.map(joined)).toEqual([expect.stringMatching(/^arn:aws:rekognition:eu-west-1:<AWS::AccountId>:collection\/arthr-[a-z0-9-]+\.\*$/)]);
          continue;
        }
        if (sid(s) === 'ActForOneTenant') {
          expect(resources.map(joined)).toEqual(['arn:aws:iam::<AWS::AccountId>:role/arthr-fir-activities/tenant/*']);
          continue;
        }
        if (asArray(s.Action).includes('kms:Decrypt')) {
          // Only cloud secrets' ciphertexts, by their encryption context.
          expect(s.Condition).toEqual({ StringEquals: { 'kms:EncryptionContext:purpose': 'cloud-secret' } });
          continue;
        }
        if (sid(s) === 'ActForOneTenant') {
          expect(asArray(s.Action)).toEqual(ASSUME);
          expect(resources.map(joined)).toEqual(['arn:aws:iam::<AWS::AccountId>:role/arthr-fir-activities/tenant/*']);
          continue;
        }
        expect(s.Condition).toBeUndefined();
        if (asArray(s.Action).some((a) => a.startsWith('dynamodb:'))) expect(resources).toEqual([tableArn]);
        else if (asArray(s.Action).includes('lambda:InvokeFunction')) expect(resources).toEqual([{ 'Fn::GetAtt': [runnerId, 'Arn'] }]);
        else expect(resources).toEqual([{ 'Fn::GetAtt': [refId(activities.Properties.LoggingConfig.LogGroup), 'Arn'] }]);
      }
      expect(ofType(template, 'AWS::IAM::Role')[refId(activities.Properties.Role)!]!.Properties.ManagedPolicyArns).toBeUndefined();
    });

    it('is, with the execution-end function, what the state machine role may invoke, and nothing else', () => {
      const roles = Object.values(ofType(template, 'AWS::IAM::Role')).filter((r) =>
        JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('states.amazonaws.com'),
      );
      expect(roles).toHaveLength(1);
      const statements = asArray<{ PolicyDocument: { Statement: Statement[] } }>(roles[0]!.Properties.Policies).flatMap((p) => p.PolicyDocument.Statement);
      expect(actionsOf(statements)).toEqual(['lambda:InvokeFunction']);
      const fn = `${ARN_HEAD}${activities.Properties.FunctionName}`;
      const end = `${ARN_HEAD}${executionEnd.Properties.FunctionName}`;
      // The functions, and their versions and aliases.
      expect(statements.flatMap((s) => asArray(s.Resource)).map(joined)).toEqual([fn, `${fn}:*`, end, `${end}:*`]);
    });
  });

  describe('execution end', () => {
    it('matches terminal status changes of this stack\'s state machines on the default bus', () => {
      expect(rule.Properties.EventBusName).toBeUndefined();
      expect(rule.Properties.State).toBe('ENABLED');
      const { detail, ...pattern } = rule.Properties.EventPattern;
      expect(pattern).toEqual({ source: ['aws.states'], 'detail-type': ['Step Functions Execution Status Change'] });
      expect(Object.keys(detail).sort()).toEqual(['stateMachineArn', 'status']);
      expect([...detail.status].sort()).toEqual(['ABORTED', 'FAILED', 'SUCCEEDED', 'TIMED_OUT']);
      expect(detail.stateMachineArn).toHaveLength(1);
      const prefix = joined(detail.stateMachineArn[0].prefix);
      expect(prefix).toBe('arn:aws:states:eu-west-1:<AWS::AccountId>:stateMachine:arthr-fir-');
      // The same state machines the API may create and start.
      const granted = Object.values(ofType(template, 'AWS::IAM::Role'))
        .flatMap((r) => asArray<{ PolicyDocument: { Statement: Statement[] } }>(r.Properties.Policies))
        .flatMap((p) => p.PolicyDocument.Statement)
        .filter((s) => asArray(s.Action).some((a) => a === 'states:StartExecution' || a === 'states:CreateStateMachine'))
        .flatMap((s) => asArray(s.Resource).map(joined));
      expect(granted.length).toBeGreaterThan(0);
      expect(new Set(granted)).toEqual(new Set([`${prefix}*`]));
    });

    it('invokes the execution-end function, with retries and a dead-letter queue', () => {
      const targets = rule.Properties.Targets as Record<string, any>[];
      expect(targets).toHaveLength(1);
      const target = targets[0]!;
      expect(refId(target.Arn)).toBe(executionEndId);
      expect(target.RetryPolicy).toEqual({ MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 10 });
      expect(refId(target.DeadLetterConfig.Arn)).toBe(queueId);
      // Only this rule may invoke it.
      const permissions = Object.values(ofType(template, 'AWS::Lambda::Permission')).filter((p) => refId(p.Properties.FunctionName) === executionEndId);
      expect(permissions.map((p) => p.Properties)).toEqual([
        { Action: 'lambda:InvokeFunction', FunctionName: { 'Fn::GetAtt': [executionEndId, 'Arn'] }, Principal: 'events.amazonaws.com', SourceArn: { 'Fn::GetAtt': [ruleId, 'Arn'] } },
      ]);
    });

    it('keeps a run that failed after Lambda\'s own retries in the same dead-letter queue', () => {
      expect(refId(executionEnd.Properties.DeadLetterConfig.TargetArn)).toBe(queueId);
      const configs = Object.values(ofType(template, 'AWS::Lambda::EventInvokeConfig')).filter((c) => refId(c.Properties.FunctionName) === executionEndId);
      expect(configs.map((c) => c.Properties)).toEqual([
        { FunctionName: { Ref: executionEndId }, Qualifier: '$LATEST', MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 21_600 },
      ]);
    });

    it('encrypts the dead-letter queue, refuses plain HTTP and takes messages only from that rule', () => {
      const queue = ofType(template, 'AWS::SQS::Queue')[queueId]!;
      expect(queue.Properties).toEqual({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
      const policies = Object.values(ofType(template, 'AWS::SQS::QueuePolicy')).filter((p) => asArray(p.Properties.Queues).some((q) => refId(q) === queueId));
      expect(policies).toHaveLength(1);
      const statements = asArray<Statement>(policies[0]!.Properties.PolicyDocument.Statement);
      expect(statements.find((s) => s.Effect === 'Deny')).toMatchObject({ Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } });
      const allows = statements.filter((s) => s.Effect === 'Allow');
      expect(allows).toHaveLength(1);
      expect(allows[0]).toMatchObject({
        Action: 'sqs:SendMessage',
        Principal: { Service: 'events.amazonaws.com' },
        Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } } },
      });
      // A message there is an instance left without its final status: an alarm says so.
      const alarms = Object.values(ofType(template, 'AWS::CloudWatch::Alarm')).filter((a) =>
        asArray<{ Value: unknown }>(a.Properties.Dimensions).some((d) => refId(d.Value) === queueId),
      );
      expect(alarms.map((a) => a.Properties)).toEqual([
        expect.objectContaining({ MetricName: 'ApproximateNumberOfMessagesVisible', ComparisonOperator: 'GreaterThanThreshold', Threshold: 0 }),
      ]);
    });

    it('may only read and update table items and put the status change\'s events in the outbox (for one tenant, through its tenant role), describe this stack\'s executions, dead-letter and write its own logs', () => {
      const statements = grantsOf(executionEnd);
      expect(actionsOf(statements)).toEqual([...ASSUME, 'sqs:SendMessage', 'states:DescribeExecution', ...LOG_ACTIONS].sort());
      expectInstanceEndGrants(tenantRoleAt('ArthrStack/Journeys/ExecutionEnd')[1]);
      for (const s of statements) {
        expect(s.Effect).toBe('Allow');
        const actions = asArray(s.Action);
        const resources = asArray(s.Resource);
        if (actions.includes('sts:AssumeRole')) expect(resources.map(joined)).toEqual(['arn:aws:iam::<AWS::AccountId>:role/arthr-fir-execution-end/tenant/*']);
        else if (actions.includes('sqs:SendMessage')) expect(resources).toEqual([{ 'Fn::GetAtt': [queueId, 'Arn'] }]);
        else if (actions.includes('states:DescribeExecution')) {
          expect(resources.map(joined)).toEqual(['arn:aws:states:eu-west-1:<AWS::AccountId>:execution:arthr-fir-*']);
        }
        else expect(resources).toEqual([{ 'Fn::GetAtt': [refId(executionEnd.Properties.LoggingConfig.LogGroup), 'Arn'] }]);
      }
      expect(ofType(template, 'AWS::IAM::Role')[refId(executionEnd.Properties.Role)!]!.Properties.ManagedPolicyArns).toBeUndefined();
    });

    it('runs on nodejs22.x, arm64, logging to its own log group kept for a month', () => {
      expect(executionEnd.Properties).toMatchObject({
        // Named in advance: every compiled state machine's last state invokes it by this name.
        FunctionName: 'arthr-fir-execution-end',
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
      });
      const groupId = refId(executionEnd.Properties.LoggingConfig.LogGroup)!;
      expect(groupId).not.toBe(refId(activities.Properties.LoggingConfig.LogGroup));
      expect(ofType(template, 'AWS::Logs::LogGroup')[groupId]!.Properties).toEqual({ LogGroupName: '/aws/lambda/arthr-fir-execution-end', RetentionInDays: 30 });
    });
  });

  describe('reconciler', () => {
    let reconciler: Resource;
    let reconcilerId: string;
    beforeAll(() => {
      [reconcilerId, reconciler] = resourceAt(template, 'AWS::Lambda::Function', 'ArthrStack/Journeys/Reconciler/Function');
    });

    it('runs every five minutes, stopping before the next run, not retried (the next run does the same work)', () => {
      const [, schedule] = resourceAt(template, 'AWS::Events::Rule', 'ArthrStack/Journeys/ReconcileSchedule');
      expect(schedule.Properties).toMatchObject({ ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED' });
      const targets = schedule.Properties.Targets as Record<string, any>[];
      expect(targets.map((t) => refId(t.Arn))).toEqual([reconcilerId]);
      expect(targets[0]!.RetryPolicy).toEqual({ MaximumRetryAttempts: 0 });
      expect(reconciler.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], Timeout: 240 });
      expect(sharedEnvironment(reconciler)).toEqual(sharedEnvironment(executionEnd));
      expect(reconciler.Properties.Environment.Variables.TENANT_ROLE_ARN).toEqual({ 'Fn::GetAtt': [tenantRoleAt('ArthrStack/Journeys/Reconciler')[0], 'Arn'] });
    });

    it('may only scan the open-instance index, read and update instances and put their status changes\' events in the outbox, describe this stack\'s executions and write its own logs', () => {
      const statements = grantsOf(reconciler);
      // The index Scan (keys only) on its own role; each instance's reads and writes through its tenant role.
      expect(actionsOf(statements)).toEqual(['dynamodb:Scan', ...ASSUME, 'states:DescribeExecution', ...LOG_ACTIONS].sort());
      expectInstanceEndGrants(tenantRoleAt('ArthrStack/Journeys/Reconciler')[1]);
      for (const s of statements) {
        expect(s.Effect).toBe('Allow');
        const actions = asArray(s.Action);
        const resources = asArray(s.Resource);
        if (actions.includes('dynamodb:Scan')) expect(resources).toEqual([{ 'Fn::Join': ['', [tableArn, '/index/GSI2']] }]);
        else if (actions.includes('sts:AssumeRole')) expect(resources.map(joined)).toEqual(['arn:aws:iam::<AWS::AccountId>:role/arthr-fir-reconcileExecutions/tenant/*']);
        else if (actions.includes('states:DescribeExecution')) expect(resources.map(joined)).toEqual(['arn:aws:states:eu-west-1:<AWS::AccountId>:execution:arthr-fir-*']);
        else expect(resources).toEqual([{ 'Fn::GetAtt': [refId(reconciler.Properties.LoggingConfig.LogGroup), 'Arn'] }]);
      }
    });
  });

  /**
   * What recording an instance's end may do, for the session's tenant only: read and update its
   * items, and PutItem only in its outbox partitions (sharded or not), so it cannot overwrite an
   * instance or anything else (the relay puts the events on the bus).
   */
  function expectInstanceEndGrants(statements: Statement[]): void {
    expect(statements).toEqual([
      { Sid: 'InstanceItems', Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], Resource: tableArn, Condition: { ...OWN_TENANT(['TNT#${aws:PrincipalTag/arthr-tenant}#*']) } },
      { Sid: 'OutboxEvents', Effect: 'Allow', Action: 'dynamodb:PutItem', Resource: tableArn, Condition: OWN_TENANT(OWN_OUTBOX) },
    ]);
  }

  it('passes the cdk-nag AwsSolutions pack with no unacknowledged finding', () => {
    expect(unacknowledgedNagFindings(synth.app)).toEqual([]);
  });
});
