/**
 * DynamoDB Local's port is found free before its JVM binds it; another process can take it in
 * between (two services starting at once). The start tries again on a new port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { freePort, localClient, startDynamoDbLocal, type LocalDynamo } from '../../lib/local/dynamodb.js';

const dir = mkdtempSync(join(tmpdir(), 'dynamodb-port-'));
let taken: Server | undefined;
let local: LocalDynamo | undefined;
const sockets = new Set<Socket>();
afterAll(async () => {
  await local?.stop();
  // The probes' connections to the port's holder, which never answered them.
  for (const socket of sockets) socket.destroy();
  await new Promise((r) => (taken ? taken.close(r) : r(undefined)));
  rmSync(dir, { recursive: true, force: true });
});

it('starts on another port when the one found free was taken before the JVM bound it', async () => {
  taken = createServer((socket) => void sockets.add(socket));
  await new Promise<void>((r) => taken!.listen(0, '127.0.0.1', r));
  const takenPort = (taken.address() as { port: number }).port;
  const offered: number[] = [];
  const ports = [takenPort];
  local = await startDynamoDbLocal(dir, {
    port: async () => {
      const port = ports.shift() ?? (await freePort());
      offered.push(port);
      return port;
    },
  });
  expect(offered).toHaveLength(2);
  expect(offered[0]).toBe(takenPort);
  expect(local.endpoint).toBe(`http://127.0.0.1:${offered[1]}`);
  const client = localClient(local.endpoint);
  await expect(client.send(new ListTablesCommand({}))).resolves.toBeDefined();
  client.destroy();
}, 120_000);
