import { routeList } from '../../functions/routes.js';
import { isRateLimited } from '../../functions/http/route.js';
import { activityAccess, activityFunctionAccess } from '../../functions/activities/access.js';
import { CATALOGUE } from '../../statemachines/catalogue.js';
import { SERVICE_PREFIX } from '../../functions/store/keys.js';
import { NO_TENANT, OUTSIDE_TENANT } from '../../lib/local/aws-usage.js';

/**
 * The AWS actions each operation's function is granted, in the terms the local runtime records
 * (lib/local/aws-usage.ts): from the route table for routes (the same mapping the CDK stack
 * applies in lib/constructs/route-function.ts), and as lib/constructs/journey-functions.ts grants
 * them for the journey functions (activities, execution end, reconciler).
 */
export function grantedActions(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const r of routeList) {
    const a = new Set<string>();
    for (const t of r.aws.table ?? []) a.add(`dynamodb:${t}`);
    // The tenant's rate limit: a lease of the tenant's budget when the container's runs out (lib/constructs/route-function.ts).
    if (isRateLimited(r)) a.add('dynamodb:UpdateItem');
    if (r.aws.queryIndexes) a.add('dynamodb:Query (index)');
    if (r.aws.signingKey === 'sign') a.add('kms:Sign');
    if (r.aws.signingKey === 'publicKey') a.add('kms:GetPublicKey');
    if (r.aws.stateMachines === 'publish') a.add('states:CreateStateMachine');
    if (r.aws.stateMachines === 'start') a.add('states:StartExecution');
    if (r.aws.stateMachines === 'sendTask') a.add('states:SendTaskSuccess');
    if (r.aws.stateMachines === 'endTask') a.add('states:SendTaskSuccess').add('states:SendTaskFailure');
    for (const i of r.aws.images ?? []) a.add(`s3:${i}`);
    // The pages bucket's calls are recorded with its label (lib/local/runtime.ts), a pre-signed upload as the PutObject it carries.
    for (const p of r.aws.pages ?? []) a.add(`s3:${p} (pages)`);
    for (const e of r.aws.exports ?? []) a.add({ SendMessage: 'sqs:SendMessage', Seal: 'kms:Encrypt', GetObject: 's3:GetObject (exports)' }[e]);
    if (r.aws.cloudSecrets === 'seal') a.add('kms:Encrypt (secrets)');
    if (r.aws.webhooks?.includes('Seal')) a.add('kms:Encrypt (webhook secrets)');
    // On the replay queue (lib/stack.ts passes it to the route stacks), not the delivery queue.
    if (r.aws.webhooks?.includes('SendMessage')) a.add('sqs:SendMessage (webhook replays)');
    for (const f of r.aws.faces ?? []) a.add(`rekognition:${f}`);
    out.set(r.operationId, a);
  }
  const actions = (a: ReturnType<typeof activityFunctionAccess>) =>
    new Set([
      ...a.table.map((t) => `dynamodb:${t}`),
      ...a.images.map((i) => `s3:${i}`),
      // Running a tenant's function: the runner Lambda, and the secrets the step gives it.
      ...(a.cloudFunctions ? ['lambda:InvokeFunction'] : []),
      ...(a.cloudSecrets ? ['kms:Decrypt (secrets)'] : []),
      ...a.faces.map((f) => `rekognition:${f}`),
    ]);
  out.set('activities', actions(activityFunctionAccess()));
  // Each activity module is held to its own declaration (those with none, the decider and the
  // activities marked not runnable, make no AWS call).
  for (const spec of CATALOGUE) {
    const own = actions(activityAccess(spec.type));
    if (own.size > 0) out.set(`activities:${spec.type}`, own);
  }
  out.set('onInstanceExpired', new Set(['s3:ListBucket', 's3:DeleteObject']));
  // The outbox relay (lib/constructs/events.ts): reads each new event item, puts it on the bus,
  // then reads the tenant's webhooks, starts each delivery and queues it.
  out.set('relayEvents', new Set(['dynamodb:GetItem', 'events:PutEvents', 'dynamodb:Query', 'dynamodb:PutItem', 'sqs:SendMessage (webhooks)']));
  // The delivery worker: the delivery, the webhook and the event; the attempt claimed and recorded
  // (and a webhook disabled on 410, its endpoint's health kept); its subject's line (Query, Put,
  // Update, Delete); its secrets unsealed; a retry queued on the retry queue.
  out.set(
    'deliverWebhooks',
    new Set(['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:DeleteItem', 'kms:Decrypt (webhook secrets)', 'sqs:SendMessage (webhook retries)']),
  );
  // The webhook sweeper: the due index scanned, each due delivery read and rescheduled, a parked
  // one's line read (and the delivery released), and it queued again on the retry queue.
  out.set('sweepWebhookDeliveries', new Set(['dynamodb:Scan (index)', 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query', 'sqs:SendMessage (webhook retries)']));
  // The export worker (lib/constructs/exports.ts): the job item, the archive's user data and
  // images with its sealed password, the CSV's index queries, and the file it writes.
  out.set(
    'runExport',
    new Set(['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query', 'dynamodb:Query (index)', 's3:GetObject', 'kms:Decrypt', 's3:PutObject (exports)']),
  );
  out.set('onExecutionEnd', new Set(['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem', 'states:DescribeExecution']));
  out.set(
    'reconcileExecutions',
    new Set(['dynamodb:Scan (index)', 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem', 'states:DescribeExecution']),
  );
  return out;
}

/** Granted actions the suite cannot reach, each with why it is granted all the same. */
export const GRANTED_FOR_FAILURE_PATHS: Record<string, Record<string, string>> = {
  // Rekognition Face Liveness is AWS only: the local runtime refuses Liveness Check REKOGNITION at
  // publish, so no step here reaches the count and the session record (test/unit/face-liveness-session-route.test.ts
  // covers them with aws-sdk-client-mock).
  startFaceLivenessSession: {
    'dynamodb:UpdateItem': 'the count of a step\'s Face Liveness sessions (AWS only)',
    'dynamodb:PutItem': 'a Face Liveness session kept in its instance\'s partition (AWS only)',
  },
  // Every activity deletes the session version two before the one it writes (functions/store/sessions.ts):
  // from a journey's third version on, which the suite's journeys need not reach at every activity type.
  ...Object.fromEntries(
    CATALOGUE.filter((spec) => spec.kind === 'service').map((spec) => [
      `activities:${spec.type}`,
      { 'dynamodb:DeleteItem': "the cleanup of an old session version, from a journey's third version on" },
    ]),
  ),
};

/**
 * The rate limit's lease write (functions/auth/rate-limit.ts) is made by whichever request finds
 * its container's lease spent. On AWS each function is its own container; in the local runtime
 * every route shares one, so a route may never be the one that leases: its grant is not judged
 * by use (a route whose own work updates items is judged as ever).
 */
function rateLeaseOnly(op: string): boolean {
  const route = routeList.find((r) => r.operationId === op);
  return route !== undefined && isRateLimited(route) && !(route.aws.table ?? []).includes('UpdateItem');
}

/** Problems: an action used but not granted (AccessDenied on AWS), or granted and never used. */
export function compareUsage(used: Record<string, string[]>): string[] {
  const granted = grantedActions();
  const problems: string[] = [];
  // The activity function's use is recorded per activity type: the function as a whole used their union.
  const activities = Object.entries(used).filter(([op]) => op.startsWith('activities:'));
  if (activities.length) used = { ...used, activities: [...new Set(activities.flatMap(([, a]) => a))] };
  // Calls a request made on partitions not its tenant's: its tenant role refuses them on AWS,
  // but for a publication's reference item of its state machine (lib/constructs/route-function.ts).
  for (const entry of used[OUTSIDE_TENANT] ?? []) {
    const [op, pk] = entry.split(' ') as [string, string];
    const route = routeList.find((r) => r.operationId === op);
    if (route?.aws.stateMachines === 'publish' && pk.startsWith(`${SERVICE_PREFIX}SM#`)) continue;
    problems.push(`${op} touched partition ${pk} outside the tenant it acts for, which its tenant role is not granted`);
  }
  // Table calls a per-record worker made with no record's tenant named: it holds no grant for them.
  for (const entry of used[NO_TENANT] ?? []) {
    const [op, pk] = entry.split(' ') as [string, string];
    problems.push(`${op} touched partition ${pk} acting for no tenant, which it holds no grant for (only its tenant role's, per record)`);
  }
  used = Object.fromEntries(Object.entries(used).filter(([op]) => op !== OUTSIDE_TENANT && op !== NO_TENANT));
  for (const [op, actions] of Object.entries(used)) {
    if (op === '(none)') continue; // the local runtime's own start-up (publishing the examples)
    const g = granted.get(op);
    if (!g) {
      problems.push(`${op}: not a known function`);
      continue;
    }
    for (const a of actions) if (!g.has(a)) problems.push(`${op} used ${a}, which its role is not granted`);
  }
  for (const [op, g] of granted) {
    const u = new Set(used[op] ?? []);
    for (const a of g) {
      if (a === 'dynamodb:UpdateItem' && rateLeaseOnly(op)) continue;
      if (!u.has(a) && !GRANTED_FOR_FAILURE_PATHS[op]?.[a]) problems.push(`${op} is granted ${a} but never used it`);
    }
  }
  return problems;
}
