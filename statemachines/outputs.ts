/**
 * Output parameters (`camunda:outputParameter`): process variables an activity sets when it
 * completes, each from a JUEL expression evaluated on the session data the activity left
 * (`${_checks.face1.result}`, `${execution.hasVariable("isMobile") ? isMobile : false}`), or a
 * plain text value. Evaluated by the same reference semantics the gateways' Choice rules follow
 * (conditions/evaluate.ts): a missing variable is null. Applied in the activity function for a
 * service step, and when the end user's submission completes a user step.
 */
import { evaluate, parseCondition, type Json } from './conditions/index.js';
import { isExpression } from './references.js';
import { processVariables } from './variables.js';
import { setOwn } from '../functions/shared/own.js';

export function applyOutputs<S extends Record<string, unknown>>(state: S, outputs: Readonly<Record<string, string>> | undefined): S {
  if (!outputs || Object.keys(outputs).length === 0) return state;
  const scope = processVariables(state);
  const vars: Record<string, Json> = { ...((state.vars as Record<string, Json> | undefined) ?? {}) };
  // Every output reads the state as the activity left it, not the outputs set before it.
  for (const [name, expression] of Object.entries(outputs)) {
    setOwn(vars, name, isExpression(expression) ? evaluate(parseCondition(expression), scope) : expression);
  }
  return { ...state, vars };
}
