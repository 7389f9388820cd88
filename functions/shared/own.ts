/**
 * User keys are data. Parameters, policy names, relying party ids and form field ids land as
 * keys of plain objects, where a lookup of a key the object does not have finds what
 * Object.prototype has under that name (`constructor`, `toString`): a policy "found" that is a
 * function, a form field whose value is one. Reads by a user's key go through `own`.
 */

/** The object's own value under `key`, never one inherited from Object.prototype. */
export function own<T>(obj: Readonly<Record<string, T>> | undefined | null, key: string): T | undefined {
  return obj != null && Object.hasOwn(obj, key) ? obj[key] : undefined;
}
