import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { lambdaBuildOptions } from '../../../lib/bundling.js';
import { parseBpmn } from '../../../statemachines/bpmn/parse.js';
import { definitionToBpmn } from '../../../statemachines/bpmn/to-bpmn.js';
import { exampleDefinitions } from '../../../statemachines/examples/index.js';

const root = resolve(import.meta.dirname, '../../..');

/** The packages the parser brings (bpmn-moddle and what it depends on) and the parser's own code. */
const PARSER_INPUT = /^(node_modules\/(bpmn-moddle|camunda-bpmn-moddle|moddle|moddle-xml|saxen|min-dash)\/|statemachines\/bpmn\/)/;

/**
 * bpmn-moddle is an ESM package and camunda-bpmn-moddle only a JSON descriptor: this checks the
 * parser survives a Lambda bundle (the same esbuild options the stack deploys with) and what it
 * costs there.
 */
describe('the BPMN parser in a Lambda bundle', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'arthr-bpmn-bundle-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  const bundle = async (name: string, contents: string) => {
    const outfile = join(outdir, `${name}.mjs`);
    const result = await build({ ...lambdaBuildOptions(root, outfile), stdin: { contents, resolveDir: root, loader: 'ts', sourcefile: `${name}.ts` } });
    return { outfile, bytes: statSync(outfile).size, metafile: result.metafile };
  };

  const parserBytes = (metafile: Metafile) => {
    const [output] = Object.values(metafile.outputs);
    const byPackage: Record<string, number> = {};
    for (const [path, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
      const m = PARSER_INPUT.exec(path);
      if (!m) continue;
      const key = m[2] ?? 'statemachines/bpmn';
      byPackage[key] = (byPackage[key] ?? 0) + bytesInOutput;
    }
    return byPackage;
  };

  it('parses a fixture the same bundled as from the sources', async () => {
    const { outfile } = await bundle('parser', "export { parseBpmn } from './statemachines/bpmn/parse.ts';");
    const bundled = (await import(pathToFileURL(outfile).href)) as { parseBpmn: typeof parseBpmn };
    const xml = readFileSync(join(root, 'test/fixtures/bpmn/retake.bpmn'), 'utf8');
    const graph = await bundled.parseBpmn(xml);
    expect(graph.problems).toEqual([]);
    expect(graph).toEqual(await parseBpmn(xml));
    expect((await bundled.parseBpmn(readFileSync(join(root, 'test/fixtures/bpmn/unsupported.bpmn'), 'utf8'))).problems).toHaveLength(5);
  }, 60_000);

  it('writes a definition the same bundled as from the sources', async () => {
    const { outfile } = await bundle('writer', "export { definitionToBpmn } from './statemachines/bpmn/to-bpmn.ts';");
    const bundled = (await import(pathToFileURL(outfile).href)) as { definitionToBpmn: typeof definitionToBpmn };
    for (const def of exampleDefinitions()) expect(bundled.definitionToBpmn(def)).toBe(definitionToBpmn(def));
  }, 60_000);

  it('costs a definitions route under 150 KB minified', async () => {
    // Against a module that already carries the catalogue and the bean names, as the definitions routes do.
    const withParser = await bundle('with-parser', "export { parseBpmn } from './statemachines/bpmn/parse.ts';");
    const without = await bundle(
      'without-parser',
      "export { CATALOGUE } from './statemachines/catalogue.ts'; export { resolveActivity } from './statemachines/bpmn/activities.ts';",
    );
    const byPackage = parserBytes(withParser.metafile);
    const increase = withParser.bytes - without.bytes;
    console.log(
      `BPMN parser bundle: ${withParser.bytes} bytes with it, ${without.bytes} without, +${increase} bytes; by input: ${JSON.stringify(byPackage)}`,
    );
    expect(byPackage['bpmn-moddle']).toBeGreaterThan(0);
    expect(byPackage['camunda-bpmn-moddle']).toBeGreaterThan(0);
    expect(increase).toBeLessThan(150 * 1024);
  }, 60_000);
});
