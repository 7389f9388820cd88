import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { transform } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { GENERATED_PRELUDE, GUEST_DIR, generatedPreludeModule } from '../../bin/build-guest.js';
import { runFunction } from '../../functions/cloud-functions/sandbox.js';
import { PRELUDE } from '../../functions/cloud-functions/prelude.generated.js';

const root = resolve(import.meta.dirname, '../..');
const guestFiles = readdirSync(join(root, GUEST_DIR)).filter((f) => f.endsWith('.ts'));
const source = (file: string) => readFileSync(join(root, GUEST_DIR, file), 'utf8');

/** Every module specifier of a source: static imports and re-exports, `import()` and `require()`. */
function specifiers(text: string): { specifier: string; typeOnly: boolean }[] {
  const found: { specifier: string; typeOnly: boolean }[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^'";]*?\bfrom\s+['"]([^'"]+)['"]/gm)) found.push({ specifier: m[3]!, typeOnly: Boolean(m[2]) });
  for (const m of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) found.push({ specifier: m[1]!, typeOnly: false });
  for (const m of text.matchAll(/\b(?:import|require)\s*\(\s*['"]?([^'")]*)/g)) found.push({ specifier: m[1]!, typeOnly: false });
  return found;
}

describe('the sandbox\u2019s prelude (functions/cloud-functions/guest/)', () => {
  it('is bundled from its sources as they are now (npm run build:guest)', async () => {
    expect(readFileSync(join(root, GENERATED_PRELUDE), 'utf8')).toBe(await generatedPreludeModule(root));
  }, 30_000);

  it('imports at run time only its own modules: no host module, no package, no Node built-in', () => {
    expect(guestFiles).toContain('prelude.ts');
    const own = new Set(guestFiles.map((f) => `./${f.replace(/\.ts$/, '.js')}`));
    const outside = guestFiles.flatMap((file) =>
      specifiers(source(file))
        .filter(({ specifier, typeOnly }) => !typeOnly && !own.has(specifier))
        .map(({ specifier }) => `${file}: ${specifier}`),
    );
    expect(outside).toEqual([]);
  });

  it('shares only types with the host: guest/contract.ts compiles to nothing', async () => {
    const { code } = await transform(source('contract.ts'), { loader: 'ts' });
    expect(code.trim()).toBe('');
  });

  it('is one script with no module syntax that evaluates to a function', () => {
    expect(PRELUDE).toMatch(/^\(function \(\) \{\n"use strict";\n[^]*\nreturn prelude;\n\}\)\(\)$/);
    expect(PRELUDE).not.toMatch(/^\s*(import|export)\b/m);
    expect(PRELUDE).not.toMatch(/\b__[a-z][A-Za-z]*\b/);
  });

  it('installs its globals under their own names, as the function expects them', async () => {
    const result = await runFunction({
      modules: {
        'index.js': `export function handler() {
          const names = {};
          for (const n of ['TextDecoder', 'TextEncoder', 'URL', 'URLSearchParams', 'atob', 'btoa', 'clearTimeout', 'fetch', 'queueMicrotask', 'setTimeout']) names[n] = globalThis[n].name;
          return { names, console: Object.keys(console), ok: new URL('https://a.example/?q=1').searchParams.get('q') };
        }`,
      },
      entry: 'index.js',
      input: { variables: {}, secrets: {} },
    });
    expect(result.ok && result.output).toEqual({
      names: {
        TextDecoder: 'TextDecoder', TextEncoder: 'TextEncoder', URL: 'URL', URLSearchParams: 'URLSearchParams', atob: 'atob', btoa: 'btoa',
        clearTimeout: 'clearTimeout', fetch: 'fetch', queueMicrotask: 'queueMicrotask', setTimeout: 'setTimeout',
      },
      console: ['log', 'info', 'warn', 'error', 'debug', 'trace'],
      ok: '1',
    });
  });
});
