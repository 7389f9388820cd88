import type { DefinitionStore } from '../model.js';

/** A state machine as the janitor sees it. */
export interface StateMachineEntry {
  arn: string;
  name: string;
  createdAt: Date;
}

/** What the janitor needs of Step Functions (step-functions-inventory.ts on AWS). */
export interface StateMachineInventory {
  /** Every state machine of the account and region whose name starts with `prefix`. */
  list(prefix: string): AsyncIterable<StateMachineEntry>;
  /** The tenant it was published for (its `arthr:tenant` tag), undefined when it has none. */
  tenantOf(arn: string): Promise<string | undefined>;
  /** Whether any execution of it is still running. */
  hasRunningExecutions(arn: string): Promise<boolean>;
  delete(arn: string): Promise<void>;
}

/** Why a state machine was kept (or that it was deleted), for the run's log. */
export type Verdict = 'deleted' | 'young' | 'untagged' | 'live version' | 'running';

/**
 * A state machine is made outside CloudFormation when a version is published, and no version is
 * ever deleted, so without this they would pile up to the account's quota (10,000 per region by
 * default; over it, publishing answers 503). A state machine is deleted when it is:
 * - older than `graceHours` (a publication makes the state machine first and stores its version
 *   just after; a state machine left by a publication that failed in between goes after the grace),
 * - tagged with its tenant (one not tagged was not made by this service as it is now: kept),
 * - needed by no live version: none of the tenant's versions that are not ARCHIVED names it
 *   (versions that compile alike share one, so every version is looked at; an ARCHIVED version
 *   takes no new instance),
 * - running no execution (an archived version's journeys in flight finish on it).
 * Each check reads now, just before the deletion. A version published in the instant between the
 * last check and the deletion that compiles to the same state machine would find it deleting;
 * after a day unused that is a race the daily schedule makes unlikely, and documented.
 */
export async function sweepStateMachines(
  d: { inventory: StateMachineInventory; definitions: Pick<DefinitionStore, 'list'> },
  opts: { prefix: string; now: Date; graceHours: number },
): Promise<Map<string, Verdict>> {
  const verdicts = new Map<string, Verdict>();
  const liveArns = new Map<string, Promise<Set<string>>>();
  const liveOf = (tenantId: string) => {
    let found = liveArns.get(tenantId);
    if (!found) {
      found = d.definitions.list(tenantId).then((versions) => new Set(versions.filter((v) => v.status !== 'ARCHIVED').flatMap((v) => v.stateMachineArn ?? [])));
      liveArns.set(tenantId, found);
    }
    return found;
  };
  // The whole list first: deleting while paging could make the listing skip some.
  const machines: StateMachineEntry[] = [];
  for await (const machine of d.inventory.list(opts.prefix)) if (machine.name.startsWith(opts.prefix)) machines.push(machine);
  for (const machine of machines) {
    const verdict = await judge(machine);
    verdicts.set(machine.arn, verdict);
    if (verdict === 'deleted') await d.inventory.delete(machine.arn);
  }
  return verdicts;

  async function judge(machine: StateMachineEntry): Promise<Verdict> {
    if (opts.now.getTime() - machine.createdAt.getTime() < opts.graceHours * 3_600_000) return 'young';
    const tenantId = await d.inventory.tenantOf(machine.arn);
    if (!tenantId) return 'untagged';
    if ((await liveOf(tenantId)).has(machine.arn)) return 'live version';
    if (await d.inventory.hasRunningExecutions(machine.arn)) return 'running';
    return 'deleted';
  }
}
