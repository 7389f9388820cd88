/**
 * Activities this deployment has no runtime for (functions/activities, `notRunnable`): refused
 * at publish, each one named, never accepted and then failed at run time.
 */
import type { ErrorDetail } from '../errors.js';
import { NOT_RUNNABLE } from '../activities/index.generated.js';

/** The same rule for a definition in the JSON format: each activity of a type that cannot run. */
export function notRunnableActivities(input: unknown): ErrorDetail[] {
  const activities = (input as { activities?: unknown } | null)?.activities;
  if (activities === null || typeof activities !== 'object') return [];
  return Object.entries(activities).flatMap(([id, activity]) => {
    const type = (activity as { type?: unknown } | null)?.type;
    const reason = typeof type === 'string' && Object.hasOwn(NOT_RUNNABLE, type) ? (NOT_RUNNABLE as Record<string, string>)[type] : undefined;
    if (reason === undefined) return [];
    return [{ location: `activities.${id}.type`, message: `activity "${id}" (${String(type)}): this deployment cannot run it: ${reason}` }];
  });
}
