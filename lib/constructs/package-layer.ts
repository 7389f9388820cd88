import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

/**
 * The packages and every package they depend on, as installed in `root`'s node_modules (the
 * versions the lock file pins), each resolved the way Node resolves it from its dependant.
 */
export function dependencyClosure(root: string, packages: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (name: string, fromDir: string) => {
    let dir = fromDir;
    for (;;) {
      const candidate = join(dir, 'node_modules', name);
      if (existsSync(join(candidate, 'package.json'))) {
        const relative = candidate.slice(root.length + 1);
        if (found.has(relative)) return;
        found.set(relative, candidate);
        const pkg = JSON.parse(readFileSync(join(candidate, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
        for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, candidate);
        return;
      }
      if (dir === root || dirname(dir) === dir) throw new Error(`${name} is not installed (npm ci)`);
      dir = dirname(dir);
    }
  };
  for (const name of packages) visit(name, root);
  return found;
}

/**
 * A Lambda layer holding `packages` from the repository's node_modules (with their own
 * dependencies) under `nodejs/node_modules`, where the Node.js runtime resolves them. Built at
 * synth time by copying: no network, no Docker.
 */
export class PackageLayer extends Construct {
  readonly layer: lambda.LayerVersion;

  constructor(scope: Construct, id: string, props: { root: string; packages: readonly string[]; description: string }) {
    super(scope, id);
    const staging = mkdtempSync(join(tmpdir(), 'arthr-layer-'));
    for (const [relative, source] of dependencyClosure(props.root, props.packages)) {
      const target = join(staging, 'nodejs', relative);
      mkdirSync(dirname(target), { recursive: true });
      cpSync(source, target, { recursive: true, dereference: true });
    }
    this.layer = new lambda.LayerVersion(this, 'Layer', {
      code: lambda.Code.fromAsset(staging),
      compatibleRuntimes: [lambda.Runtime.NODEJS_22_X],
      compatibleArchitectures: [lambda.Architecture.ARM_64],
      description: props.description,
    });
  }
}
