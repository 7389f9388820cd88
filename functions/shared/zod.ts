/**
 * zod for the runtime schemas: `zod/mini` (functional and tree-shakable: a handler bundles only
 * what its schemas use, ~10 ms less cold import than classic zod) with two things classic zod
 * gives for free. Every module that builds a schema imports `z` from here, never from `zod`:
 * one classic import in a bundle brings the whole classic library back.
 *
 * - zod's English messages ("Too big: expected string to have <=255 characters", ...), which
 *   400 details carry: classic zod installs the English locale itself; zod/mini leaves every
 *   message at "Invalid input" until a locale is configured. Only English is imported, not
 *   `z.locales` (every language).
 * - `withMeta(schema, meta)`: classic zod's `.meta(meta)`, a copy of the schema with `meta` in
 *   the global registry (the OpenAPI document reads `id`, `description`, `readOnly`, ...).
 */
import { config, globalRegistry, type ZodMiniType } from 'zod/mini';
import type { GlobalMeta } from 'zod/v4/core';
import en from 'zod/v4/locales/en.js';

config(en());

export * from 'zod/mini';

/**
 * Exactly what classic zod's `.meta()` does: clone (the clone's parent is the original, so it
 * inherits the original's metadata except `id`) and register the clone. Unlike
 * `.register(globalRegistry, meta)` it never changes the schema it is given, so a shared schema
 * (`DateTime`) can carry different descriptions where it is used; unlike `.check(z.meta(...))`
 * it adds no check, so the schema can still be extended, picked or made partial.
 */
export function withMeta<T extends ZodMiniType>(schema: T, meta: GlobalMeta): T {
  const copy = schema.clone();
  globalRegistry.add(copy, meta);
  return copy;
}
