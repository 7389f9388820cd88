import { afterAll, beforeAll } from 'vitest';
import { resetConfigForTests } from '../../functions/config.js';

/**
 * For the whole file: sets `env` (a value of `undefined` unsets the variable) and re-reads the
 * service's config, then puts every variable back as it was and re-reads it again.
 */
export function useConfigEnv(env: Record<string, string | undefined>): void {
  const saved: Record<string, string | undefined> = {};
  beforeAll(() => {
    for (const [k, v] of Object.entries(env)) {
      saved[k] = process.env[k];
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetConfigForTests();
  });
  afterAll(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetConfigForTests();
  });
}
