/** Conditions in the family's JUEL subset: parse, evaluate (the reference), compile to a Choice rule. */
export { ConditionError, print, type Expr, type Segment, type CompareOp, type LiteralValue } from './ast.js';
export { parseCondition } from './parse.js';
export { evaluate, evaluateCondition, truthy, type Json, type Variables } from './evaluate.js';
export { compileCondition, jsonPath, toChoiceRule, type ChoiceRule, type ToChoiceRuleOptions } from './choice.js';
