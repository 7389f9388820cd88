/**
 * The family names an activity by a Spring bean (`camunda:delegateExpression="${captureFaceImageV1}"`);
 * each activity module lists the bean names it answers to (`aliases`), gathered in the generated
 * activity index.
 */
import { ALIASES } from '../../functions/activities/specs/index.generated.js';
import type { ActivityType } from '../catalogue.js';

export type BeanName = keyof typeof ALIASES;

/** The activity type a bean name stands for, or undefined when no module claims it. */
export function resolveActivity(beanName: string): ActivityType | undefined {
  // Own properties only: a bean named `constructor` or `toString` names nothing.
  return Object.hasOwn(ALIASES, beanName) ? ALIASES[beanName as BeanName] : undefined;
}

/** The bean name of `${name}` (or Camunda's deferred `#{name}`), or undefined for any other expression. */
export function beanNameOf(delegateExpression: string | undefined): string | undefined {
  return /^\s*[$#]\{\s*([A-Za-z_$][A-Za-z0-9_$]*)\s*\}\s*$/.exec(delegateExpression ?? '')?.[1];
}

const BEANS = new Map<string, string>(Object.entries(ALIASES).map(([bean, type]) => [type, bean]));

/** The family's bean name for an activity type (its module's `aliases[0]`), or undefined for a type no module has. */
export function beanNameFor(type: string): string | undefined {
  return BEANS.get(type);
}
