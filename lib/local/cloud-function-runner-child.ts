/**
 * The local runner's child process: runs cloud functions for the service over its IPC channel,
 * several at once, each in a fresh sandbox (functions/cloud-functions/sandbox.ts). It is the local
 * stand-in for the runner Lambda: tenant code never runs in the service's own process.
 *
 * Protocol (JSON over the IPC channel): the child sends `{ type: 'ready' }` once QuickJS is
 * compiled; the parent sends `{ id, request }`; the child answers `{ id, result }`, or
 * `{ id, error }` when the sandbox itself failed (never for what the function's code did).
 */
import type { PythonCheck, RunnerPayload, RunResult } from '../../functions/cloud-functions/contract.js';
import { dispatch, stopRunners } from '../../functions/cloud-functions/runner-dispatch.js';
import { warmUp } from '../../functions/cloud-functions/sandbox.js';

export interface RunnerRequestMessage {
  id: number;
  request: RunnerPayload;
}

export type RunnerReplyMessage = { type: 'ready' } | { id: number; result: RunResult | PythonCheck } | { id: number; error: string };

function send(message: RunnerReplyMessage): void {
  // The parent may be gone already; its disconnect ends this process anyway.
  if (process.connected) process.send?.(message);
}

// The parent's end of the channel closes when it exits, however it exits (SIGKILL included):
// this process must never outlive the service.
// The Python engine's children go with it.
process.on('disconnect', () => void stopRunners().finally(() => process.exit(0)));

process.on('message', (message: RunnerRequestMessage) => {
  dispatch(message.request).then(
    (result) => send({ id: message.id, result }),
    (err: unknown) => send({ id: message.id, error: err instanceof Error ? err.message : String(err) }),
  );
});

await warmUp();
send({ type: 'ready' });
