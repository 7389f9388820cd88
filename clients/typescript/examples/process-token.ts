/**
 * Process token: what starts journeys of one definition version, with the parameters every
 * instance it makes gets (the end user's name, say). Its name is unique in the tenant.
 */
import type { ArthrClient } from '../src/index.js';

export async function createProcessToken(client: ArthrClient, name: string, definition = { name: 'identity-check', version: '1' }) {
  const { data, error } = await client.POST('/api/process-manager/processTokens', {
    body: { name, processDefnName: definition.name, processDefnVersion: definition.version, parameters: { firstName: 'Ann' } },
  });
  if (error) throw new Error(`${error.code}: ${error.message}`);
  return data; // data.id is the `pt` of instance creation
}
