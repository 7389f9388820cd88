import { AsyncLocalStorage } from 'node:async_hooks';
import { writeFileSync } from 'node:fs';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { scopedTenant } from '../../functions/shared/tenant-scope.js';

/**
 * Records which AWS actions each operation makes when the service runs locally, in IAM's terms
 * (a transaction is the PutItem/UpdateItem/... of each of its items; an index Query is
 * `dynamodb:Query (index)`, an index Scan `dynamodb:Scan (index)`). The integration suite turns it on and compares what was used with
 * what the route table makes the CDK stack grant.
 */
const current = new AsyncLocalStorage<string>();
const used = new Map<string, Set<string>>();
/** `{operation} {partition key}` of each call made for a tenant on a partition not that tenant's. */
const outsideTenant = new Set<string>();

/** The usage record's entry for calls outside the tenant a request acts for (IAM refuses them on AWS). */
export const OUTSIDE_TENANT = '(outside its tenant)';
/** The usage record's entry for table calls a per-record worker made with no tenant named (it holds no grant for them on AWS). */
export const NO_TENANT = '(no tenant named)';
/**
 * The functions that are not routes and act for one tenant per record, through a tenant role
 * (lib/constructs/service-function.ts `actForTenants`): their own role keeps no table grant
 * but an index Scan (the reconciler's, the sweeper's), so any other table call of theirs must be
 * made in a record's tenant scope.
 */
const PER_RECORD_TENANT = new Set(['onExecutionEnd', 'reconcileExecutions', 'relayEvents', 'deliverWebhooks', 'sweepWebhookDeliveries', 'runExport']);
const unscoped = new Set<string>();

export function asOperation<T>(operation: string, fn: () => T): T {
  return current.run(operation, fn);
}

export function recordAction(action: string): void {
  const op = current.getStore() ?? '(none)';
  let set = used.get(op);
  if (!set) used.set(op, (set = new Set()));
  set.add(action);
}

const TRANSACT_ITEM_ACTIONS: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
};

export function recordDynamoCalls(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? '').replace(/Command$/, '');
      const input = args.input as { TransactItems?: Record<string, unknown>[]; IndexName?: string };
      // On AWS a route acts through its tenant role, whose grants name the tenant's partitions only.
      const tenant = scopedTenant();
      if (tenant) {
        for (const pk of partitionKeys(command, args.input as Record<string, unknown>)) {
          if (!pk.startsWith(`TNT#${tenant}#`)) outsideTenant.add(`${current.getStore() ?? '(none)'} ${pk}`);
        }
      } else if (PER_RECORD_TENANT.has(current.getStore() ?? '') && !(command === 'Scan' && input.IndexName)) {
        for (const pk of partitionKeys(command, args.input as Record<string, unknown>)) unscoped.add(`${current.getStore()} ${pk}`);
      }
      if (command === 'TransactWriteItems') {
        for (const item of input.TransactItems ?? []) for (const k of Object.keys(item)) recordAction(TRANSACT_ITEM_ACTIONS[k] ?? `dynamodb:${k}`);
      } else if (command === 'Query' && input.IndexName) {
        recordAction('dynamodb:Query (index)');
      } else if (command === 'Scan' && input.IndexName) {
        recordAction('dynamodb:Scan (index)');
      } else {
        recordAction(`dynamodb:${command}`);
      }
      return next(args);
    },
    { step: 'initialize', name: 'awsUsageRecorder' },
  );
}

/** A key attribute's value, marshalled (`{ S: ... }`) or not. */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  const s = (value as { S?: unknown } | undefined)?.S;
  return typeof s === 'string' ? s : '(not a string)';
}

/**
 * The partition keys a DynamoDB request names, as IAM's `dynamodb:LeadingKeys` sees them: the
 * table's PK, or a queried index's partition key. A Scan names none (`(scan)`), which a grant
 * conditioned on leading keys refuses.
 */
export function partitionKeys(command: string, input: Record<string, unknown>): string[] {
  const pkOf = (item: unknown) => text((item as Record<string, unknown> | undefined)?.PK);
  switch (command) {
    case 'GetItem':
    case 'DeleteItem':
    case 'UpdateItem':
      return [pkOf(input.Key)];
    case 'PutItem':
      return [pkOf(input.Item)];
    case 'Query': {
      const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
      const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
      const out: string[] = [];
      for (const m of String(input.KeyConditionExpression ?? '').matchAll(/(#?[A-Za-z0-9_]+)\s*=\s*(:[A-Za-z0-9_]+)/g)) {
        const attr = names[m[1]!] ?? m[1]!;
        if (/^(PK|GSI\d+PK)$/.test(attr)) out.push(text(values[m[2]!]));
      }
      return out.length ? out : ['(no partition key)'];
    }
    case 'BatchGetItem':
      return Object.values((input.RequestItems ?? {}) as Record<string, { Keys?: unknown[] }>).flatMap((r) => (r.Keys ?? []).map(pkOf));
    case 'BatchWriteItem':
      return Object.values((input.RequestItems ?? {}) as Record<string, { PutRequest?: { Item: unknown }; DeleteRequest?: { Key: unknown } }[]>).flatMap((rs) =>
        rs.map((r) => pkOf(r.PutRequest?.Item ?? r.DeleteRequest?.Key)),
      );
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return ((input.TransactItems ?? []) as Record<string, { Key?: unknown; Item?: unknown }>[]).flatMap((item) =>
        Object.values(item).map((body) => pkOf(body.Key ?? body.Item)),
      );
    default:
      return ['(scan)'];
  }
}

/**
 * S3 calls in IAM's terms (ListObjectsV2 is `s3:ListBucket`); calls on one of `labelled`
 * buckets get its label (`s3:PutObject (exports)`), since each bucket is granted apart.
 */
export function recordS3Calls(client: S3Client, labelled: Record<string, string> = {}): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? '').replace(/Command$/, '');
      const bucket = (args.input as { Bucket?: string }).Bucket;
      const label = bucket && labelled[bucket] ? ` (${labelled[bucket]})` : '';
      recordAction(`${command === 'ListObjectsV2' ? 's3:ListBucket' : `s3:${command}`}${label}`);
      return next(args);
    },
    { step: 'initialize', name: 'awsUsageRecorder' },
  );
}

/** Wraps an object's async methods so each call records `action`. */
export function recordMethods<T extends object>(target: T, actions: Partial<Record<keyof T, string>>): void {
  for (const [method, action] of Object.entries(actions) as [keyof T, string][]) {
    const original = target[method] as unknown as (...a: unknown[]) => unknown;
    (target as Record<keyof T, unknown>)[method] = function (this: unknown, ...a: unknown[]) {
      recordAction(action);
      return original.apply(this, a);
    };
  }
}

export function writeUsage(path: string): void {
  const out: Record<string, string[]> = {};
  for (const [op, set] of [...used.entries()].sort()) out[op] = [...set].sort();
  if (outsideTenant.size) out[OUTSIDE_TENANT] = [...outsideTenant].sort();
  if (unscoped.size) out[NO_TENANT] = [...unscoped].sort();
  writeFileSync(path, `${JSON.stringify(out, null, 2)}\n`);
}
