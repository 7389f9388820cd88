import type { DefinitionStore, JanitorCheckpoint, StateMachineRefStore } from '../model.js';

/** A state machine as the janitor sees it. */
export interface StateMachineEntry {
  arn: string;
  name: string;
  createdAt: Date;
}

/** What the janitor needs of Step Functions (step-functions-inventory.ts on AWS). */
export interface StateMachineInventory {
  /**
   * One page of the account's state machines (ListStateMachines), those whose name starts with
   * `prefix`, from `token` (absent: the first page), and the token of the next page. An expired
   * token fails with an error named `InvalidToken`.
   */
  page(prefix: string, token: string | undefined): Promise<{ machines: StateMachineEntry[]; next?: string }>;
  /** The tenant a state machine made before they were shared was published for (its `arthr:tenant` tag). */
  tenantOf(arn: string): Promise<string | undefined>;
  /** Whether any execution of it is still running. */
  hasRunningExecutions(arn: string): Promise<boolean>;
  /** Deletes it; one already gone counts as deleted. */
  delete(arn: string): Promise<void>;
}

/** Why a state machine was kept (or that it was deleted), for the run's log. */
export type Verdict =
  | 'deleted'
  /** Made less than the grace period ago (an activation makes it before recording its use). */
  | 'young'
  /** An active version of some tenant uses it. */
  | 'in use'
  /** Its last active version left less than the grace period ago. */
  | 'recently used'
  /** Made before state machines were shared: an active version of its tenant names it. */
  | 'live version'
  | 'running'
  /** Another run is deleting it, or its reference changed between the read and the claim. */
  | 'claimed elsewhere'
  | 'error';

export interface JanitorDeps {
  inventory: StateMachineInventory;
  /** A tenant's versions: only for state machines made before they were shared (tagged with their tenant). */
  definitions: Pick<DefinitionStore, 'list'>;
  stateMachines: StateMachineRefStore;
  /** Waits between tries of a throttled call (a timer on AWS; the tests count instead). */
  sleep?: (ms: number) => Promise<void>;
}

export interface JanitorOptions {
  prefix: string;
  /** The run's start: the grace periods count from it. */
  now: Date;
  /** A state machine made, or last used, less than this long ago is kept. */
  graceHours: number;
  /** A pass over every state machine starts at most this often (runs in between only finish one under way). */
  passIntervalHours: number;
  /** No state machine is judged from this instant on (epoch ms, on `clock`): the run saves its place and stops. */
  deadline: number;
  /** This run's id, for the lease that keeps a duplicate run out. */
  runId: string;
  /** How long the lease holds if this run dies without giving it up (its function's timeout and some). */
  leaseMs: number;
  /** A janitor's claim older than this is a run that died. */
  claimStaleMs: number;
  /** Milliseconds now; Date.now unless a test moves time itself. */
  clock?: () => number;
  /** Tries of a throttled call before the run stops (Step Functions' control plane refills a few calls a second). */
  throttleTries?: number;
}

export interface JanitorRun {
  verdicts: Map<string, Verdict>;
  /** Why the run ended before the pass did; absent when it finished the pass. */
  stopped?: 'not due' | 'lease held' | 'deadline' | 'throttled' | 'lease lost';
  /** The pass ended in this run (every page read). */
  passCompleted: boolean;
}

/** Errors that mean "slow down": the SDK has retried them already; the janitor waits longer, then stops. */
const THROTTLES = new Set(['ThrottlingException', 'TooManyRequestsException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded', 'Throttling']);

class Throttled extends Error {}

/**
 * State machines are made outside CloudFormation when versions become DEPLOYED_ACTIVE, and shared
 * by every version of every tenant that compiles alike; without this they would pile up to the
 * account's quota (10,000 per region by default; over it, activating answers 503). A state
 * machine is deleted when it is:
 * - older than `graceHours` (an activation makes it first and records its use just after),
 * - used by no DEPLOYED_ACTIVE version of any tenant: its reference item counts 0 users, and none
 *   left it within `graceHours` (a journey just started on it has time to show as running). A
 *   state machine without a reference item was either made before state machines were shared
 *   (tagged with its tenant: kept while an active version of that tenant names it) or made by an
 *   activation that failed after making it,
 * - running no execution (a version's journeys in flight finish on it).
 * The deletion is claimed on the reference item first (conditional on `users` being 0), and an
 * activation writes its use only over the generation it read before making the state machine, so
 * a version never becomes active on a state machine this deletes (state-machine-refs.ts).
 *
 * A run takes the janitor's lease (a duplicate delivery of the schedule finds it held and does
 * nothing), continues the pass under way from its checkpoint (the ListStateMachines page and the
 * last state machine judged on it), and saves its place and stops at `deadline` or when Step
 * Functions keeps throttling it; the next run goes on from there. A page token expires after a
 * day: a checkpoint that old starts the pass again. Deleting while paging may make the listing
 * skip a state machine; the next pass judges it.
 */
export async function sweepStateMachines(d: JanitorDeps, opts: JanitorOptions): Promise<JanitorRun> {
  const clock = opts.clock ?? Date.now;
  const sleep = d.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const tries = opts.throttleTries ?? 4;
  const verdicts = new Map<string, Verdict>();
  const errors: { arn: string; error: Error }[] = [];
  /** Per tenant, for state machines made before they were shared. */
  const legacy = new Map<string, Promise<Set<string>>>();
  const now = opts.now;
  const graceMs = opts.graceHours * 3_600_000;

  /** A call retried while throttled (1 s, 2 s, 4 s, ...), then Throttled. */
  const patient = async <T>(call: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        if (!THROTTLES.has((err as Error).name)) throw err;
        if (attempt >= tries) throw new Throttled((err as Error).message, { cause: err });
        await sleep(1000 * 2 ** (attempt - 1));
      }
    }
  };

  const acquired = await patient(() => d.stateMachines.acquireJanitor(opts.runId, now, new Date(clock() + opts.leaseMs)));
  if (!acquired) return { verdicts, stopped: 'lease held', passCompleted: false };
  let checkpoint: JanitorCheckpoint = acquired;
  try {
    if (!checkpoint.passStartedAt) {
      const last = checkpoint.passCompletedAt ? Date.parse(checkpoint.passCompletedAt) : undefined;
      if (last !== undefined && now.getTime() - last < opts.passIntervalHours * 3_600_000) return { verdicts, stopped: 'not due', passCompleted: false };
      checkpoint = { passStartedAt: now.toISOString(), ...(checkpoint.passCompletedAt ? { passCompletedAt: checkpoint.passCompletedAt } : {}) };
    }
    const save = async (): Promise<boolean> => patient(() => d.stateMachines.saveJanitor(opts.runId, checkpoint));
    const stop = async (why: 'deadline' | 'throttled'): Promise<JanitorRun> => {
      // Not saved (throttled again, the lease lost): the next run redoes a little, which is harmless.
      await save().catch(() => false);
      return { verdicts, stopped: why, passCompleted: false };
    };

    for (;;) {
      let page: Awaited<ReturnType<StateMachineInventory['page']>>;
      try {
        page = await patient(() => d.inventory.page(opts.prefix, checkpoint.pageToken));
      } catch (err) {
        if (err instanceof Throttled) return await stop('throttled');
        // The token outlived its day (a pass left unfinished too long): the pass starts again.
        if ((err as Error).name === 'InvalidToken' && checkpoint.pageToken !== undefined) {
          checkpoint = { passStartedAt: now.toISOString(), ...(checkpoint.passCompletedAt ? { passCompletedAt: checkpoint.passCompletedAt } : {}) };
          continue;
        }
        throw err;
      }
      let machines = page.machines.filter((m) => m.name.startsWith(opts.prefix));
      const done = checkpoint.lastArn === undefined ? -1 : machines.findIndex((m) => m.arn === checkpoint.lastArn);
      machines = machines.slice(done + 1);
      for (const machine of machines) {
        if (clock() >= opts.deadline) return await stop('deadline');
        let verdict: Verdict;
        try {
          verdict = await judge(machine);
        } catch (err) {
          if (err instanceof Throttled) return await stop('throttled');
          verdict = 'error';
          errors.push({ arn: machine.arn, error: err as Error });
        }
        verdicts.set(machine.arn, verdict);
        checkpoint = { ...checkpoint, lastArn: machine.arn };
      }
      if (page.next === undefined) {
        checkpoint = { passCompletedAt: now.toISOString() };
        await save();
        return { verdicts, passCompleted: true };
      }
      checkpoint = { ...checkpoint, pageToken: page.next, lastArn: undefined };
      if (!(await save())) return { verdicts, stopped: 'lease lost', passCompleted: false };
    }
  } finally {
    await d.stateMachines.releaseJanitor(opts.runId).catch(() => undefined);
    if (errors.length) throw new JanitorErrors(errors, verdicts);
  }

  async function judge(machine: StateMachineEntry): Promise<Verdict> {
    if (now.getTime() - machine.createdAt.getTime() < graceMs) return 'young';
    const ref = await patient(() => d.stateMachines.get(machine.name));
    if (ref) {
      if (ref.users > 0) return 'in use';
      if (ref.changedAt && now.getTime() - Date.parse(ref.changedAt) < graceMs) return 'recently used';
      if (ref.deletingSince && now.getTime() - Date.parse(ref.deletingSince) < opts.claimStaleMs) return 'claimed elsewhere';
    } else {
      const tenantId = await patient(() => d.inventory.tenantOf(machine.arn));
      if (tenantId && (await liveArnsOf(tenantId)).has(machine.arn)) return 'live version';
    }
    const claimedAt = new Date(clock());
    const claimed = await patient(() =>
      d.stateMachines.claim(machine.name, { now: claimedAt, unusedBefore: new Date(now.getTime() - graceMs), staleClaimBefore: new Date(claimedAt.getTime() - opts.claimStaleMs) }),
    );
    if (!claimed) return 'claimed elsewhere';
    try {
      if (await patient(() => d.inventory.hasRunningExecutions(machine.arn))) return 'running';
      await patient(() => d.inventory.delete(machine.arn));
      return 'deleted';
    } finally {
      // Deleted or kept, the claim ends: an activation may make the state machine again at once.
      await d.stateMachines.release(machine.name, claimedAt).catch(() => undefined);
    }
  }

  /** Made before state machines were shared: the ARNs the tenant's active versions name. */
  function liveArnsOf(tenantId: string): Promise<Set<string>> {
    let found = legacy.get(tenantId);
    if (!found) {
      found = patient(() => d.definitions.list(tenantId)).then(
        // A version written before the lifecycle has no status: it is active.
        (versions) => new Set(versions.filter((v) => (v.status ?? 'DEPLOYED_ACTIVE') === 'DEPLOYED_ACTIVE' && v.stateMachineArn).map((v) => v.stateMachineArn!)),
      );
      legacy.set(tenantId, found);
    }
    return found;
  }
}

/** State machines the run could not judge (each logged by the handler); thrown after the checkpoint is saved, so the janitor's alarm fires. */
export class JanitorErrors extends Error {
  constructor(
    readonly errors: { arn: string; error: Error }[],
    readonly verdicts: Map<string, Verdict>,
  ) {
    super(`${errors.length} state machine(s) could not be judged: ${errors.map((e) => `${e.arn}: ${e.error.message}`).join('; ').slice(0, 2000)}`);
    this.name = 'JanitorErrors';
  }
}
