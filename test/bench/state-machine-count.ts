/**
 * How many state machines a deployment needs for many tenants (`npm run bench`, section 7d): every
 * tenant has the three shipped examples active (statemachines/examples/: identity-check,
 * passcode-registration, selfie-match) and ten retired versions (DEPLOYED_INACTIVE or ARCHIVED),
 * each version uploaded with the same content, as a pipeline that publishes at every deploy does.
 * Each tenant's versions are compiled as an activation compiles them and named as Step Functions
 * names them on AWS (logging and tracing settings included); the figure is the number of distinct
 * names. Beside it, the same versions named the former way: a hash of the tenant and of an ASL
 * whose Comment carried the definition's name and version, one state machine per tenant-version.
 * No AWS call: names are all the quota counts.
 */
import { createHash } from 'node:crypto';
import { compileDefinition, type AslStateMachine } from '../../statemachines/compile.js';
import { exampleDefinitions } from '../../statemachines/examples/index.js';
import type { ProcessDefinition } from '../../statemachines/definition.js';
import { stateMachineName } from '../../functions/process-manager/executions/state-machine-names.js';
import { stateMachineSettings } from '../../functions/process-manager/executions/step-functions.js';
import { round, table } from './stats.js';

/** Step Functions' default quota of state machines per account and region. */
export const STATE_MACHINE_QUOTA = 10_000;
const REGION = 'fir';
const ARNS = {
  activityFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:arthr-fir-activities',
  executionEndFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:arthr-fir-execution-end',
};
/** The settings every state machine of a deployment gets (stateMachineSettings), as on AWS with tracing off. */
const SETTINGS = stateMachineSettings({
  STATE_MACHINE_LOG_GROUP_ARN: 'arn:aws:logs:eu-west-1:123456789012:log-group:/aws/vendedlogs/states/arthr-fir-0a1b2c3d:*',
  STATE_MACHINE_TRACING: 'false',
});

export interface StateMachineCountFigures {
  tenants: number;
  activePerTenant: number;
  retiredPerTenant: number;
  versions: number;
  /** One state machine per tenant-version: the tenant in the name's hash, the name and version in the ASL. */
  formerMachines: number;
  /** Distinct names of the active versions: what the janitor keeps. */
  sharedMachinesInUse: number;
  /** Distinct names of every version, retired ones included (what would exist if none were ever deleted). */
  sharedMachinesAllVersions: number;
  quota: number;
  ms: number;
}

/** The name a version had before state machines were shared (the code as of 32e744a). */
function formerName(tenantId: string, asl: AslStateMachine, def: ProcessDefinition): string {
  const definition = JSON.stringify({ ...asl, Comment: `${def.name} v${def.version}. Compiled from the process definition; do not edit.` });
  const hash = createHash('sha256')
    .update(JSON.stringify([tenantId, 'STANDARD', definition, SETTINGS.loggingConfiguration ?? null, SETTINGS.tracingConfiguration ?? null]))
    .digest('hex')
    .slice(0, 32);
  return `arthr-${REGION}-${hash}`;
}

export function measureStateMachineCount(opts: { tenants?: number; retiredPerTenant?: number } = {}): StateMachineCountFigures {
  const tenants = opts.tenants ?? 10_000;
  const retired = opts.retiredPerTenant ?? 10;
  const t0 = performance.now();
  const examples = exampleDefinitions();
  // A tenant's versions: the retired ones spread over the three names (versions 1, 2, ...), each
  // name's next version active.
  const versions: { def: ProcessDefinition; active: boolean }[] = [];
  const next = examples.map(() => 1);
  for (let i = 0; i < retired; i++) {
    const k = i % examples.length;
    versions.push({ def: { ...examples[k]!, version: next[k]!++ }, active: false });
  }
  examples.forEach((def, k) => versions.push({ def: { ...def, version: next[k]! }, active: true }));

  // Compiling is pure (the compiler is given no tenant), so each distinct definition is compiled once.
  const compiled = new Map<string, AslStateMachine>();
  const compile = (def: ProcessDefinition) => {
    const key = JSON.stringify(def);
    let asl = compiled.get(key);
    if (!asl) compiled.set(key, (asl = compileDefinition(def, ARNS)));
    return asl;
  };
  const former = new Set<string>();
  const inUse = new Set<string>();
  const all = new Set<string>();
  for (let t = 0; t < tenants; t++) {
    const tenantId = `tenant-${t}`;
    for (const { def, active } of versions) {
      const asl = compile(def);
      const name = stateMachineName(REGION, JSON.stringify(asl), SETTINGS);
      all.add(name);
      if (active) inUse.add(name);
      former.add(formerName(tenantId, asl, def));
    }
  }
  return {
    tenants,
    activePerTenant: examples.length,
    retiredPerTenant: retired,
    versions: tenants * versions.length,
    formerMachines: former.size,
    sharedMachinesInUse: inUse.size,
    sharedMachinesAllVersions: all.size,
    quota: STATE_MACHINE_QUOTA,
    ms: Math.round(performance.now() - t0),
  };
}

/** Section 7d: the state machines many tenants need, shared by what runs, beside one per tenant-version. */
export function printStateMachineCount(f: StateMachineCountFigures, log: (text: string) => void): void {
  const n = (x: number) => x.toLocaleString('en');
  log(
    table([
      ['naming', 'state machines', `of the quota (${n(f.quota)})`, 'result'],
      [`one per tenant-version (tenant and name + version in the hash), ${n(f.tenants)} x ${f.activePerTenant + f.retiredPerTenant}`, n(f.formerMachines), `${round((f.formerMachines / f.quota) * 100, 1)}%`, f.formerMachines > f.quota ? 'OVER' : 'OK'],
      ['by the hash of what runs: in use (active versions; the janitor deletes the rest)', n(f.sharedMachinesInUse), `${round((f.sharedMachinesInUse / f.quota) * 100, 2)}%`, f.sharedMachinesInUse > f.activePerTenant ? 'OVER' : 'OK'],
      ['by the hash of what runs: every version, retired ones too', n(f.sharedMachinesAllVersions), `${round((f.sharedMachinesAllVersions / f.quota) * 100, 2)}%`, 'info'],
    ]),
  );
  log(`${n(f.versions)} versions compiled and named as activations name them (no AWS call), in ${n(f.ms)} ms; every version uploads the same example content.`);
}
