/**
 * Instance: one journey of one end user. Send the end user to `redirectUrl`; keep
 * `processInstanceId` to follow it.
 */
import type { ArthrClient } from '../src/index.js';

export async function startInstance(client: ArthrClient, processTokenId: string) {
  const { data, error } = await client.POST('/api/process-manager/processInstances/create', { params: { query: { pt: processTokenId } } });
  if (error) throw new Error(`${error.code}: ${error.message}`);
  return data; // { redirectUrl, processInstanceId, ... }
}
