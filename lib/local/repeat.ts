/**
 * Runs `work` (now, or first after one interval), then again `intervalSeconds` after each run
 * ends, until stopped: one run at a time. The local stand-ins of AWS schedules (the TTL sweep,
 * the reconciler) use it, since runs started on a fixed timer would pile up behind a slow one
 * (a Scan of a large table takes longer than the interval). A failed run is logged by `work`.
 */
export function repeatAfterEach(intervalSeconds: number, work: () => Promise<unknown>, opts: { now: boolean }): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(run, intervalSeconds * 1000);
    timer.unref();
  };
  const run = () => {
    running = work().finally(schedule);
  };
  if (opts.now) run();
  else schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
