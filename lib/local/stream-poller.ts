import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { StreamRecord } from '../../functions/events/relay.js';
import { log } from '../../functions/observability/logger.js';

/** Where the poller has read to: the stream, and per shard the last sequence number handled (or `closed`). */
interface Checkpoint {
  streamArn: string;
  shards: Record<string, string>;
}
const CLOSED = 'closed';

export interface StreamPollerOptions {
  client: DynamoDBClient;
  endpoint: string;
  tableName: string;
  /** Where the checkpoint is kept across restarts (a file, not the table: a write to it would be a stream record too). */
  checkpointFile: string;
  /**
   * Handles a batch in stream order, as the Lambda event source mapping hands it over, and says
   * where it stopped: the sequence number of the first record not handled (it comes again).
   */
  handle(records: StreamRecord[]): Promise<{ failedAt?: string }>;
  /** How long to wait when the stream has nothing new (ms). */
  idleMs?: number;
  /**
   * Where a shard with no checkpoint is read from, as the event source mapping's starting
   * position: its oldest record (the default), or only what is written from now on.
   */
  startingPosition?: 'TRIM_HORIZON' | 'LATEST';
}

export interface StreamPoller {
  /** Resolves once every record written before the call has been handled (for a clean stop, and for tests). */
  drained(): Promise<void>;
  stop(): Promise<void>;
}

function readCheckpoint(file: string): Checkpoint | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as Checkpoint;
    return typeof c.streamArn === 'string' && c.shards && typeof c.shards === 'object' ? c : undefined;
  } catch {
    return undefined;
  }
}

function writeCheckpoint(file: string, c: Checkpoint): void {
  // Written whole and renamed over: a crash mid-write leaves the last checkpoint, never half of one.
  writeFileSync(`${file}.tmp`, JSON.stringify(c), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/**
 * What Lambda's event source mapping does on AWS, against DynamoDB Local's stream: reads each
 * shard in order (a parent before its children), hands each batch to `handle`, and moves its
 * checkpoint past a batch only once `handle` took it, or to just before the record it stopped
 * at (which is then read again, after a backoff). The checkpoint is kept in a file, so a
 * restart resumes where the last run stopped: a record is handled at least once, and in order.
 */
export function startStreamPoller(opts: StreamPollerOptions): StreamPoller {
  const streams = new DynamoDBStreamsClient({
    endpoint: opts.endpoint,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const idleMs = opts.idleMs ?? 100;
  let stopping = false;
  let wake: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((r) => {
      const t = setTimeout(r, ms);
      wake = () => (clearTimeout(t), r());
    });
  // Waiters for `drained()`: each is answered by the first pass that started after it asked and found nothing new.
  let started = 0;
  let waiters: { after: number; done: () => void }[] = [];

  let checkpoint: Checkpoint | undefined;
  const iterators = new Map<string, string>();
  let failures = 0;

  async function streamArn(): Promise<string> {
    const { Table } = await opts.client.send(new DescribeTableCommand({ TableName: opts.tableName }));
    if (!Table?.LatestStreamArn) throw new Error(`The table ${opts.tableName} has no stream`);
    return Table.LatestStreamArn;
  }

  async function shards(arn: string): Promise<Shard[]> {
    const all: Shard[] = [];
    let start: string | undefined;
    do {
      const out = await streams.send(new DescribeStreamCommand({ StreamArn: arn, ...(start ? { ExclusiveStartShardId: start } : {}) }));
      all.push(...(out.StreamDescription?.Shards ?? []));
      start = out.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    return all;
  }

  /** One pass: every open shard whose parent is done, one batch each. True when some shard had records. */
  async function pass(): Promise<boolean> {
    const arn = await streamArn();
    if (!checkpoint || checkpoint.streamArn !== arn) {
      const kept = readCheckpoint(opts.checkpointFile);
      // A new stream (the table was made anew): read it from its start.
      checkpoint = kept?.streamArn === arn ? kept : { streamArn: arn, shards: {} };
      iterators.clear();
    }
    const c = checkpoint;
    const list = await shards(arn);
    const known = new Set(list.map((s) => s.ShardId));
    let busy = false;
    for (const shard of list) {
      const id = shard.ShardId!;
      if (c.shards[id] === CLOSED) continue;
      // A child waits until its parent is read to its end (the parent may be gone, trimmed).
      if (shard.ParentShardId && known.has(shard.ParentShardId) && c.shards[shard.ParentShardId] !== CLOSED) continue;
      let iterator = iterators.get(id);
      if (!iterator) {
        const after = c.shards[id];
        const from = (position: object) => streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId: id, ...position } as never));
        let out;
        try {
          out = await from(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: opts.startingPosition ?? 'TRIM_HORIZON' });
        } catch (error) {
          if (!after) throw error;
          // A checkpoint the stream no longer holds (trimmed after 24 hours, or from another
          // stream): read what it still has, as the event source mapping does with TRIM_HORIZON.
          log().warn('stream checkpoint not found; reading the shard from its oldest record', { shardId: id, error: error as Error });
          out = await from({ ShardIteratorType: 'TRIM_HORIZON' });
        }
        iterator = out.ShardIterator!;
      }
      const out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 100 }));
      const records = (out.Records ?? []) as StreamRecord[];
      if (records.length) {
        busy = true;
        const { failedAt } = await opts.handle(records);
        if (failedAt !== undefined) {
          const at = records.findIndex((r) => r.dynamodb?.SequenceNumber === failedAt);
          const before = at > 0 ? records[at - 1]!.dynamodb!.SequenceNumber! : undefined;
          if (before) c.shards[id] = before;
          writeCheckpoint(opts.checkpointFile, c);
          // Read again from the failed record, after a backoff (as Lambda retries a failed batch).
          iterators.delete(id);
          failures++;
          await sleep(Math.min(5_000, 100 * 2 ** Math.min(failures, 6)));
          continue;
        }
        failures = 0;
        c.shards[id] = records.at(-1)!.dynamodb!.SequenceNumber!;
        writeCheckpoint(opts.checkpointFile, c);
      }
      if (out.NextShardIterator) {
        iterators.set(id, out.NextShardIterator);
      } else {
        // The shard is closed and read to its end: its children come next.
        c.shards[id] = CLOSED;
        iterators.delete(id);
        writeCheckpoint(opts.checkpointFile, c);
      }
    }
    return busy;
  }

  const loop = (async () => {
    while (!stopping) {
      const pass_ = ++started;
      try {
        if (!(await pass())) {
          // Nothing new in any shard: whoever asked before this pass began is answered.
          const ready = waiters.filter((w) => w.after < pass_);
          waiters = waiters.filter((w) => w.after >= pass_);
          for (const w of ready) w.done();
          await sleep(idleMs);
        }
      } catch (error) {
        // An expired iterator, DynamoDB Local restarting: start the shards again from the checkpoint.
        iterators.clear();
        checkpoint = undefined;
        if (!stopping) log().warn('table stream read failed; retrying', { error: error as Error });
        await sleep(1_000);
      }
    }
  })();

  return {
    drained() {
      // The next pass that finds nothing new started after this call: everything written before it was handled.
      return new Promise<void>((done) => {
        waiters.push({ after: started, done });
        wake?.();
      });
    },
    async stop() {
      stopping = true;
      wake?.();
      await loop;
      for (const w of waiters) w.done();
      streams.destroy();
    },
  };
}
