/**
 * User data: what the end user provided in an instance (forms, steps, images) and its checks.
 * A check's `moreinfo` is a JSON document in a string (the family's wire format): parse it.
 */
import type { ArthrClient } from '../src/index.js';

export async function readUserData(client: ArthrClient, processDefnId: string, processInstanceId: string) {
  const { data, error } = await client.GET('/api/userdata-server/processDefinitions/{processDefnId}/processInstances/{processInstanceId}/userdata', {
    params: { path: { processDefnId, processInstanceId } },
  });
  if (error) throw new Error(`${error.code}: ${error.message}`);
  return {
    status: data.status,
    forms: data.forms,
    checks: data.checks.map((check) => ({
      checkId: check.checkId,
      result: check.result,
      figures: check.moreinfo ? (JSON.parse(check.moreinfo) as Record<string, unknown>) : undefined,
    })),
    images: data.images.map((image) => ({ key: image.imageKey, format: image.format, bytes: image.bytes })),
  };
}
