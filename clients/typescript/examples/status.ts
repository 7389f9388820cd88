/**
 * Status: read an instance (PENDING until its link is opened, then ACTIVE, then a final status),
 * wait for it to end, find instances by the end user's name, or read what happened to one (its
 * events). A webhook (webhook.ts) tells you the moment it ends without polling.
 */
import type { ArthrClient, Schema } from '../src/index.js';

const FINAL: ReadonlySet<Schema<'ProcessInstance'>['status']> = new Set([
  'COMPLETED_ENDED_SUCCESS',
  'COMPLETED_ENDED_ERROR',
  'COMPLETED_PROCESS_ERROR',
  'COMPLETED_TERMINATED',
  'REVIEW',
]);

export async function readInstance(client: ArthrClient, processInstanceId: string) {
  const { data, error } = await client.GET('/api/process-manager/processInstances/{processInstanceId}', { params: { path: { processInstanceId } } });
  if (error) throw new Error(`${error.code}: ${error.message}`);
  return data;
}

/** Polls every `everyMs` until the instance reaches a final status (or REVIEW), or `timeoutMs` passes. */
export async function waitForEnd(client: ArthrClient, processInstanceId: string, { everyMs = 2000, timeoutMs = 60_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const instance = await readInstance(client, processInstanceId);
    if (FINAL.has(instance.status) || Date.now() > deadline) return instance;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function searchByName(client: ArthrClient, searchString: string) {
  const { data, error } = await client.GET('/api/process-manager/processInstances/search', { params: { query: { searchString, size: 3 } } });
  if (error) throw new Error(`${error.code}: ${error.message}`);
  return data.content;
}

/**
 * What happened to an instance: its events, oldest first, each the payload its webhooks receive,
 * a page at a time (the key needs ProcessManager:getProcessInstanceEvents). Kept 30 days.
 */
export async function instanceEvents(client: ArthrClient, processInstanceId: string) {
  const events: Schema<'ProcessInstanceEvent'>[] = [];
  let nextToken: string | undefined;
  do {
    const { data, error } = await client.GET('/api/process-manager/processInstances/{processInstanceId}/events', {
      params: { path: { processInstanceId }, query: { size: 500, ...(nextToken ? { nextToken } : {}) } },
    });
    if (error) throw new Error(`${error.code}: ${error.message}`);
    events.push(...data.events);
    nextToken = data.nextToken;
  } while (nextToken);
  return events;
}
