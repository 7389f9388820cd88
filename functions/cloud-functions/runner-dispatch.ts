/**
 * What the runner does with a payload (the runner Lambda's and the local runner child's one
 * entry): a JavaScript run in the QuickJS sandbox, a Python run, or a Python syntax check, both
 * in the Python engine (python/engine.ts: a fresh hardened child process per run). The Python
 * engine starts at its first use, so a runner that only ever runs JavaScript never pays for it.
 */
import type { PythonCheck, RunnerPayload, RunResult } from './contract.js';
import type { PythonEngine } from './python/engine.js';
import { runFunction } from './sandbox.js';

let python: Promise<PythonEngine> | undefined;

function pythonEngine(): Promise<PythonEngine> {
  python ??= import('./python/engine.js').then(async ({ startPythonEngine }) => {
    const engine = startPythonEngine();
    await engine.warmUp();
    return engine;
  });
  // A start that failed is tried again by the next payload, not remembered.
  python.catch(() => (python = undefined));
  return python;
}

export async function dispatch(payload: RunnerPayload): Promise<RunResult | PythonCheck> {
  if ('action' in payload) {
    if (payload.action !== 'checkPython' || typeof payload.script !== 'string') throw new TypeError('runner: unknown action');
    return (await pythonEngine()).check(payload.script);
  }
  if ('language' in payload) {
    if (payload.language !== 'python') throw new TypeError('runner: unknown language');
    return (await pythonEngine()).run(payload);
  }
  return runFunction(payload);
}

/** Ends the Python engine's children (the local runner's stop). */
export async function stopRunners(): Promise<void> {
  const engine = python;
  python = undefined;
  if (engine) await (await engine.catch(() => undefined))?.stop();
}
