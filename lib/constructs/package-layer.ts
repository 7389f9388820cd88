import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
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
    const staging = stagedClosure(props.root, props.packages);
    this.layer = new lambda.LayerVersion(this, 'Layer', {
      code: lambda.Code.fromAsset(staging),
      compatibleRuntimes: [lambda.Runtime.NODEJS_22_X],
      compatibleArchitectures: [lambda.Architecture.ARM_64],
      description: props.description,
    });
  }
}

/**
 * The layer's folder: the closure copied once per set of package versions into
 * node_modules/.cache/arthr-layers/, so synths after the first reuse it. A synth that builds it
 * copies into a fresh folder beside it and renames that into place, so synths running at the
 * same time never see half a copy.
 */
function stagedClosure(root: string, packages: readonly string[]): string {
  const closure = dependencyClosure(root, packages);
  const versions = [...closure].map(([relative, dir]) => `${relative}@${(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string }).version}`);
  const id = createHash('sha256').update(versions.sort().join('\n')).digest('hex').slice(0, 16);
  const parent = join(root, 'node_modules', '.cache', 'arthr-layers');
  const staged = join(parent, id);
  if (existsSync(staged)) return staged;
  mkdirSync(parent, { recursive: true });
  const building = mkdtempSync(`${staged}-`);
  for (const [relative, source] of closure) {
    const target = join(building, 'nodejs', relative);
    mkdirSync(dirname(target), { recursive: true });
    cpSync(source, target, { recursive: true, dereference: true });
  }
  try {
    renameSync(building, staged);
  } catch {
    // Another synth put it in place first: theirs is the same.
    rmSync(building, { recursive: true, force: true });
  }
  return staged;
}
