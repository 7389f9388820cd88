/**
 * The README's first calls with the typed client: API key -> token, the newest keys, a process
 * token of the identity-check example, an instance of it, then the instance read back and found
 * by the end user's first name. Run it against `npm start`:
 *
 *   npx tsx clients/typescript/examples/first-calls.ts
 */
import { connect, newestKeys } from './connect.js';
import { createProcessToken } from './process-token.js';
import { startInstance } from './instance.js';
import { readInstance, searchByName } from './status.js';
import type { ArthrClient } from '../src/index.js';

export async function firstCalls(client: ArthrClient) {
  const keys = await newestKeys(client);
  const token = await createProcessToken(client, `first-calls-${Date.now()}-${Math.floor(Math.random() * 1e6)}`);
  const created = await startInstance(client, token.id);
  const instance = await readInstance(client, created.processInstanceId);
  const found = await searchByName(client, 'Ann');
  return { keys, processTokenId: token.id, created, instance, found };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await firstCalls(connect());
  console.log(JSON.stringify({ ...result, found: result.found.map((i) => i.id) }, null, 2));
}
