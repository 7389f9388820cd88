/** `setTimeout`, `clearTimeout` (each wait a host timer, bounded by the run's deadline) and `queueMicrotask`. */
import type { HostFunctions } from './contract.js';
import { install } from './intrinsics.js';

/**
 * The global `console` as it is when a callback throws (the prelude's own, unless the function
 * replaced it): read from the global object then, as the function's own code would.
 */
declare const console: { error(...data: unknown[]): void };

const timers = new Set<number>();
let nextTimer = 1;

export function installTimers(hostSleep: HostFunctions['sleep']): void {
  install('setTimeout', function setTimeout(callback: unknown, ms?: unknown, ...args: unknown[]): number {
    if (typeof callback !== 'function') throw new TypeError('setTimeout: the callback must be a function');
    const id = nextTimer++;
    timers.add(id);
    hostSleep(Number(ms) || 0).then(() => {
      if (!timers.delete(id)) return;
      try { callback(...args); } catch (e) { console.error('Uncaught error in a setTimeout callback:', e); }
    });
    return id;
  });
  install('clearTimeout', function clearTimeout(id: unknown): void { timers.delete(id as number); });
  install('queueMicrotask', function queueMicrotask(callback: unknown): void {
    if (typeof callback !== 'function') throw new TypeError('queueMicrotask: the callback must be a function');
    Promise.resolve().then(() => callback());
  });
}
