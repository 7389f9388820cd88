/**
 * When the reconciler (reconcile.ts) asks Step Functions about an open instance's execution: a
 * module of its own so that making an instance does not pull the reconciler into a handler.
 */

/** The first check, after an instance's creation; also how long a journey has to start its execution. */
export const RECONCILE_FIRST_CHECK_SECONDS = 15 * 60;
/** The longest interval between two checks of a running execution. */
export const RECONCILE_MAX_INTERVAL_SECONDS = 6 * 3600;

export function firstReconcileAt(createdAt: Date): string {
  return new Date(createdAt.getTime() + RECONCILE_FIRST_CHECK_SECONDS * 1000).toISOString();
}

/** When to ask again after the `checks`-th check found the execution running (1, 2, ...). */
export function nextReconcileAt(now: Date, checks: number): string {
  const seconds = Math.min(RECONCILE_FIRST_CHECK_SECONDS * 2 ** Math.min(checks, 20), RECONCILE_MAX_INTERVAL_SECONDS);
  return new Date(now.getTime() + seconds * 1000).toISOString();
}
