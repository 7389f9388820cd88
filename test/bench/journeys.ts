/**
 * Journey cost: each example definition's happy path run on the local engine, its state
 * transitions as the engine counts them (what Step Functions Standard bills) next to the
 * compile-time figure, and every AWS call one whole journey makes.
 */
import type { Harness } from './aws-calls.js';
import { newTally, within } from './counters.js';
import { createInstanceEvent, figuresOf, meanFigures, setUpDefinition, waitForInstance, type CallFigures } from './process-calls.js';
import { median, round } from './stats.js';

/** Step Functions Standard workflows, list price (us-east-1) per state transition. */
export const USD_PER_1000_TRANSITIONS = 0.025;
/** The free tier (per month, per account), left out of every figure here. */
export const FREE_TRANSITIONS_PER_MONTH = 4000;

export const usdPer1000Journeys = (transitions: number) => round(transitions * USD_PER_1000_TRANSITIONS, 4);

/**
 * The end user's submission at each user step of a definition's happy path (what the hosted
 * pages would send). A definition whose happy path has a user step not listed here is not run.
 */
const STEP_RESULTS: Record<string, Record<string, Record<string, unknown>>> = {
  'identity-check': {
    personalDetails: { vars: { personalDetails: { firstName: 'Ada', lastName: 'Lovelace', dateOfBirth: '1990-12-10' } } },
    captureFace: { _checks: { face: { result: 'PASS' } } },
  },
};

export interface JourneyDefinitionCost {
  definition: string;
  /** `happyPathTransitions(def)` from statemachines/compile.ts. */
  happyPathTransitions: number;
  /** The activity ids of the happy path, in order, with their kinds. */
  happyPath: string[];
  ran: boolean;
  notRunReason?: string;
  runs?: number;
  /** ExecutionResult.transitions of each run (the engine's count: states entered plus retries). */
  transitions?: { median: number; min: number; max: number; each: number[] };
  executionStatus?: string[];
  decision?: string[];
  finalInstanceStatus?: string[];
  /** All AWS calls of one journey, creation to recorded end (mean per journey). */
  perJourney?: CallFigures;
  /** Transitions billed per journey: the engine's count when run, else the compile-time one. */
  billedTransitions: number;
  basis: 'engine count' | 'compile time';
  usdPer1000Journeys: number;
  verdict: 'MATCHES' | 'DIFFERS' | 'NOT RUN';
}

export interface JourneyCost {
  pricing: {
    service: string;
    usdPer1000Transitions: number;
    freeTransitionsPerMonth: number;
    freeTierApplied: false;
    note: string;
  };
  definitions: JourneyDefinitionCost[];
}

export async function measureJourneys(h: Harness, opts: { runs: number }): Promise<JourneyCost> {
  const { exampleDefinitions } = await import('../../statemachines/examples/index.js');
  const { happyPathTransitions } = await import('../../statemachines/compile.js');
  const { activitySpec } = await import('../../statemachines/catalogue.js');
  const { completeUserStep } = await import('../../functions/journey/steps.js');
  const { orchestrator } = await import('../../functions/process-manager/executions/orchestrator.js');
  const createInstance = (await import('../../functions/process-manager/instances/create-process-instance.js')).handler;

  const out: JourneyDefinitionCost[] = [];
  for (const def of exampleDefinitions()) {
    const expected = happyPathTransitions(def);
    // The happy path, as happyPathTransitions walks it: `next` from the start.
    const path: { id: string; type: string; kind: string }[] = [];
    for (let id: string | undefined = def.startActivityId; id !== undefined; id = def.activities[id]!.next) {
      const type = def.activities[id]!.type;
      path.push({ id, type, kind: activitySpec(type)?.kind ?? '?' });
    }
    const results = STEP_RESULTS[def.name];
    const service = path.find((a) => a.kind === 'service');
    const unscripted = path.find((a) => a.kind === 'user' && !results?.[a.id]);
    const base = {
      definition: `${def.name} v${def.version}`,
      happyPathTransitions: expected,
      happyPath: path.map((a) => `${a.id} (${a.kind})`),
    };
    if (service || unscripted) {
      out.push({
        ...base,
        ran: false,
        notRunReason: service
          ? `its happy path reaches the service activity ${service.id} (${service.type}), whose identity store data (a store, ` +
            'its user, a passcode the form stages) the bench does not set up: compile-time figure only'
          : `no scripted result for its user step ${unscripted!.id}: compile-time figure only`,
        billedTransitions: expected,
        basis: 'compile time',
        usdPer1000Journeys: usdPer1000Journeys(expected),
        verdict: 'NOT RUN',
      });
      continue;
    }

    const { processTokenId } = await setUpDefinition(h, def.name);
    const resumer = await orchestrator();
    const transitions: number[] = [];
    const statuses = new Set<string>();
    const decisions = new Set<string>();
    const finals = new Set<string>();
    const perJourney: CallFigures[] = [];
    for (let run = 0; run < opts.runs; run++) {
      const journey = newTally(`journey ${def.name}`);
      const created = await h.invoke(
        'createProcessInstance',
        createInstance,
        createInstanceEvent(h, processTokenId, { authorization: `Bearer ${h.bearer}` }),
        { expect: 201, also: [journey] },
      );
      const id = (created.body as { processInstanceId: string }).processInstanceId;
      for (const step of path.filter((a) => a.kind === 'user')) {
        await waitForInstance(h, id, (r) => r?.currentStep?.activityId === step.id, `step ${step.id}`);
        await within([journey], () =>
          completeUserStep({ tenantId: h.tenantId, processInstanceId: id, activityId: step.id, result: results![step.id]! }, resumer, new Date()),
        );
      }
      const done = h.engine.started.get(id);
      if (!done) throw new Error(`no execution was started for instance ${id}`);
      const result = await done;
      // The journey ends when its end is recorded: the final status, published as an event.
      const ended = await h.bus.waitFor(id, (e) => e.type === 'process-instance.completed', 10_000);
      journey.open = false;
      if (!ended) throw new Error(`the end of instance ${id} (execution ${result.status}) was not recorded within 10 s`);
      transitions.push(result.transitions);
      statuses.add(result.status);
      decisions.add(String((result.output as { _decision?: string } | undefined)?._decision ?? 'none'));
      finals.add(String(ended.data.status));
      perJourney.push(figuresOf(journey));
    }
    const med = median(transitions);
    out.push({
      ...base,
      ran: true,
      runs: transitions.length,
      transitions: { median: med, min: Math.min(...transitions), max: Math.max(...transitions), each: transitions },
      executionStatus: [...statuses],
      decision: [...decisions],
      finalInstanceStatus: [...finals],
      perJourney: meanFigures(perJourney),
      billedTransitions: med,
      basis: 'engine count',
      usdPer1000Journeys: usdPer1000Journeys(med),
      verdict: transitions.every((t) => t === expected) ? 'MATCHES' : 'DIFFERS',
    });
  }
  return {
    pricing: {
      service: 'AWS Step Functions Standard workflows',
      usdPer1000Transitions: USD_PER_1000_TRANSITIONS,
      freeTransitionsPerMonth: FREE_TRANSITIONS_PER_MONTH,
      freeTierApplied: false,
      note: 'List price; the monthly free tier is ignored. AWS bills retries as transitions too, so a retried step costs more than the happy path.',
    },
    definitions: out,
  };
}
