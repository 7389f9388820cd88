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
 * The path of the first key named `__proto__` in a parsed JSON value, if any. JSON.parse keeps
 * such a key as data, but every later step (validation, the DynamoDB marshaller and
 * unmarshaller) would assign it, which sets an object's prototype instead of a member: the value
 * would be lost without a word. It is refused instead (the only key that is).
 */
export function protoKeyPath(value: unknown, path: string[] = []): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = protoKeyPath(item, [...path, String(i)]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (key === '__proto__') return [...path, key].join('.');
    const found = protoKeyPath((value as Record<string, unknown>)[key], [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}
