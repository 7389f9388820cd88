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

/**
 * Sets the object's own `key` to `value` and returns the value. Unlike `obj[key] = value`, a key
 * named `__proto__` becomes a member, never the object's prototype.
 */
export function setOwn<T>(obj: Record<string, unknown>, key: string, value: T): T {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  return value;
}
