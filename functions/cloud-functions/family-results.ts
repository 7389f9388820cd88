/**
 * A Python function's `results`, written back as the family's journeys read them (its contract:
 * the function fills the dict `results`; docs/cloud-functions.md):
 *
 * - `results["executionVariables"]`, a dict: each entry set as a process variable (real journeys
 *   keep their whole state in one, `idv`, this way; a function that adds a check reads
 *   `params["vars"]["_checks"]`, adds to it and sets `_checks` back).
 * - `results` itself where gateways read it, `cloudFunctions.ruleExecutionResults.<Rule Execution
 *   Name>.ruleResults` (`${cloudFunctions.ruleExecutionResults.verifyEmail.ruleResults["pass"]}`),
 *   when the step names its run;
 * - and where forms read it, `_checks.cloudFunctions.<Function Name>.metaData.ruleResults`
 *   (`{{processvar._checks.cloudFunctions.DocumentParseV6.metaData.ruleResults.doc.documentNumber }}`),
 *   with the run's check: `outcome` (its `cfResults` outcome when it gave one), `valid` (it ran).
 * - `results["metrics"]["counters"]`: `{name: outcome}`, counted for the names the step's Metrics
 *   list allows and the family's outcomes only (`countersOf`).
 */
import { own, setOwn } from '../shared/own.js';
import { SESSION_KEYS } from '../../statemachines/variables.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The outcomes a counter may record (the family's). */
export const COUNTER_OUTCOMES = ['approve', 'decline', 'review', 'na', 'failed', 'passed', 'not_found'] as const;

/** The overall outcome a function gave with `cfresults` (`results["cfResults"]`), if any. */
export function cfOutcome(results: Record<string, unknown>): string | undefined {
  const cf = own(results, 'cfResults');
  if (!isRecord(cf)) return undefined;
  const outcome = own(cf, 'outcome') ?? own(cf, 'overallOutcome');
  return typeof outcome === 'string' && outcome !== '' ? outcome : undefined;
}

/** An execution variable the journey keeps for itself (statemachines/variables.ts SESSION_KEYS, but `_checks`). */
export class ReservedVariableError extends Error {
  override readonly name = 'ReservedVariableError';
}

/**
 * The journey's variables and checks after a Python run: `vars` with what the run sets, the
 * session's `_checks` (where `${_checks...}` reads) with its check and any it set, nothing else
 * touched. A function may set `_checks` (the family's extensible checks) but none of the other
 * names the journey keeps for itself (`instance`, `parameters`, `_decision`...): that fails the run.
 */
export function writeBack(
  state: { vars?: Readonly<Record<string, unknown>> | undefined; _checks?: unknown },
  results: Record<string, unknown>,
  at: { functionName: string; ruleExecutionName?: string | undefined },
): { vars: Record<string, unknown>; checks: Record<string, unknown> } {
  const vars: Record<string, unknown> = { ...(state.vars ?? {}) };
  let checks: Record<string, unknown> = isRecord(state._checks) ? { ...state._checks } : {};
  const set = own(results, 'executionVariables');
  if (isRecord(set)) {
    for (const [name, value] of Object.entries(set)) {
      if (name === '_checks') {
        if (!isRecord(value)) throw new ReservedVariableError('executionVariables sets _checks to something other than a dict.');
        checks = { ...value };
      } else if ((SESSION_KEYS as readonly string[]).includes(name)) {
        throw new ReservedVariableError(`executionVariables sets ${name}, which the journey keeps for itself.`);
      } else {
        // A variable named `__proto__` is a variable like any other, never the object's prototype.
        setOwn(vars, name, value);
      }
    }
  }
  if (at.ruleExecutionName) {
    const cf = isRecord(vars.cloudFunctions) ? vars.cloudFunctions : {};
    const runs = isRecord(cf.ruleExecutionResults) ? cf.ruleExecutionResults : {};
    vars.cloudFunctions = { ...cf, ruleExecutionResults: { ...runs, [at.ruleExecutionName]: { ruleResults: results } } };
  }
  const functions = isRecord(checks.cloudFunctions) ? checks.cloudFunctions : {};
  const outcome = cfOutcome(results);
  checks.cloudFunctions = { ...functions, [at.functionName]: { ...(outcome ? { outcome } : {}), valid: true, metaData: { ruleResults: results } } };
  return { vars, checks };
}

/** The counters a run recorded that its step allows: `[name, outcome]`, each allowed name once. */
export function countersOf(results: Record<string, unknown>, allowed: readonly string[]): [string, string][] {
  const metrics = own(results, 'metrics');
  const counters = isRecord(metrics) ? own(metrics, 'counters') : undefined;
  if (!isRecord(counters)) return [];
  const outcomes: readonly string[] = COUNTER_OUTCOMES;
  return Object.entries(counters).flatMap(([name, outcome]) =>
    allowed.includes(name) && typeof outcome === 'string' && outcomes.includes(outcome.toLowerCase()) ? [[name, outcome.toLowerCase()] as [string, string]] : [],
  );
}
