/**
 * The family names an activity by a Spring bean (`camunda:delegateExpression="${captureFaceImageV1}"`,
 * or a user step's start execution listener), and some user steps by a second one on their end
 * listener (`customDataFormWriterV1`). Each activity's spec lists them (`family.beans`,
 * `family.endBean`), gathered in the generated spec index.
 */
import { ALIASES, END_BEANS } from '../../functions/activities/specs/index.generated.js';
import type { ActivityType } from '../catalogue.js';

export type BeanName = keyof typeof ALIASES;

/** The family's end event listener: it names the journey's final screen (`thank-you`). */
export const END_SCREEN_BEAN = 'redirectMapperV1';

/** The activity type a bean name stands for, or undefined when no module claims it. */
export function resolveActivity(beanName: string): ActivityType | undefined {
  // Own properties only: a bean named `constructor` or `toString` names nothing.
  return Object.hasOwn(ALIASES, beanName) ? ALIASES[beanName as BeanName] : undefined;
}

/** The bean name of `${name}` (or Camunda's deferred `#{name}`), or undefined for any other expression. */
export function beanNameOf(delegateExpression: string | undefined): string | undefined {
  return /^\s*[$#]\{\s*([A-Za-z_$][A-Za-z0-9_$]*)\s*\}\s*$/.exec(delegateExpression ?? '')?.[1];
}

/** The activity a user step's end listener bean belongs to, or undefined when no spec names it. */
export function resolveEndBean(beanName: string): ActivityType | undefined {
  return Object.hasOwn(END_BEANS, beanName) ? END_BEANS[beanName as keyof typeof END_BEANS] : undefined;
}

const END_BY_TYPE = new Map<string, string>(Object.entries(END_BEANS).map(([bean, type]) => [type, bean]));

/** The end listener bean the exporter writes after an activity's start listener, if its spec names one. */
export function endBeanFor(type: string): string | undefined {
  return END_BY_TYPE.get(type);
}

// The first bean of each spec wins (Object.entries keeps the generated order, the spec's order).
const BEANS = new Map<string, string>();
for (const [bean, type] of Object.entries(ALIASES)) if (!BEANS.has(type)) BEANS.set(type, bean);

/** The family's bean name for an activity type (its spec's `family.beans[0]`), or undefined for a type no spec has. */
export function beanNameFor(type: string): string | undefined {
  return BEANS.get(type);
}
