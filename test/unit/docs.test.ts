import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codePaths, headingAnchors, linkTargets, problemWith, topLevelEntries } from '../support/doc-paths.js';

const root = resolve(import.meta.dirname, '../..');
const docPages = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
/** The folders' own READMEs (statemachines/README.md, ...), which the docs link to. */
const folderReadmes = ['bin', 'functions', 'lib', 'statemachines', 'test'].flatMap((dir) =>
  (readdirSync(join(root, dir), { recursive: true }) as string[])
    .filter((path) => path === 'README.md' || path.endsWith('/README.md'))
    .map((path) => `${dir}/${path}`),
);
const pages = ['README.md', ...docPages, ...folderReadmes];
const read = (page: string) => readFileSync(join(root, page), 'utf8');
const topLevel = topLevelEntries(root);

/** Each problem of the pages' named paths, as `page:line: path (what is wrong)`. */
function problems(find: (markdown: string) => { text: string; line: number; kind: 'code' | 'link' }[]): string[] {
  return pages.flatMap((page) =>
    find(read(page)).flatMap((named) => {
      const problem = problemWith(named, join(root, page), root);
      return problem ? [`${page}:${named.line}: ${named.text} (${problem})`] : [];
    }),
  );
}

describe('the docs', () => {
  it('are found', () => {
    expect(docPages.length).toBeGreaterThan(10);
    expect(folderReadmes).toContain('statemachines/README.md');
  });

  it('name only repository paths that exist', () => {
    expect(problems((md) => codePaths(md, topLevel))).toEqual([]);
  });

  it('link only to files in the repository and to headings that exist', () => {
    expect(problems(linkTargets)).toEqual([]);
  });

  it('README.md is the front door: short, and it links to every page of docs/', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    const linked = new Set(linkTargets(readme).map(({ text }) => text.split('#')[0]));
    expect(docPages.filter((page) => !linked.has(page))).toEqual([]);
  });

  it('README.md has the first calls that .ci/run runs (test/readme/first-calls.sh)', () => {
    const readme = read('README.md');
    expect(readme).toMatch(/<!-- first-calls:start[^]*```sh\n[^]*```\n<!-- first-calls:end -->/);
  });
});

describe('codePaths', () => {
  const top = new Set(['functions', 'lib', 'test', 'cdk.json', 'README.md']);
  const named = (md: string) => codePaths(md, top).map(({ text }) => text);

  it('takes paths that start at a top-level entry of the repository', () => {
    expect(named('see `functions/webhooks/on-table-stream.ts`, `lib/local/` and `cdk.json`.')).toEqual([
      'functions/webhooks/on-table-stream.ts',
      'lib/local/',
      'cdk.json',
    ]);
    expect(named('```\nnpx vitest run test/unit/docs.test.ts\n```')).toEqual(['test/unit/docs.test.ts']);
  });

  it('takes paths that climb out of the page folder, to be checked', () => {
    expect(named('the spec is `../shared/spec/interface.md`')).toEqual(['../shared/spec/interface.md']);
  });

  it('leaves HTTP paths, URLs, S3 keys, shorthand, commands and placeholders alone', () => {
    expect(
      named(
        [
          '`POST /api/process-manager/processTokens`, `/journey/assets/face-capture.js`,',
          '`http://localhost:8080/openapi.json`, `tenants/{tenantId}/instances/{id}/`,',
          '`store/codec.ts`, `deps.ts`, `npm test`, `functions/activities/<type>.ts`,',
          '`test/unit/...`, `${LOCAL_DIR:-.local}/bootstrap.json`, `.local/bootstrap.json`',
        ].join('\n'),
      ),
    ).toEqual([]);
  });
});

describe('headingAnchors', () => {
  it('makes the anchors GitHub makes', () => {
    expect([...headingAnchors('# Faces\n## `npm run bench`\n## Passcodes, SRP-6a\n## Logs\n## Logs\n```\n# not a heading\n```')]).toEqual([
      'faces',
      'npm-run-bench',
      'passcodes-srp-6a',
      'logs',
      'logs-1',
    ]);
  });
});
