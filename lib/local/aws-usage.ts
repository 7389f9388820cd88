import { AsyncLocalStorage } from 'node:async_hooks';
import { writeFileSync } from 'node:fs';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';

/**
 * Records which AWS actions each operation makes when the service runs locally, in IAM's terms
 * (a transaction is the PutItem/UpdateItem/... of each of its items; an index Query is
 * `dynamodb:Query (index)`, an index Scan `dynamodb:Scan (index)`). The integration suite turns it on and compares what was used with
 * what the route table makes the CDK stack grant.
 */
const current = new AsyncLocalStorage<string>();
const used = new Map<string, Set<string>>();

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
  writeFileSync(path, `${JSON.stringify(out, null, 2)}\n`);
}
