/**
 * Where each user step stands in its journey, for the pages' progress indicator. A journey is a
 * graph (gateways, error routes, timers, loops back to a retake), so there is no one "step n of
 * N": this is an estimate, made once when a version is published.
 *
 * The loops are cut first (a flow back to a node already on the path from the start, found by a
 * depth-first walk: a retake), which leaves a directed acyclic graph. On it a user step's number
 * is one more than the most user steps on any path from the start to it, and its total adds the
 * most user steps on any path from it to an end. So along any path the number only grows (a
 * skipped branch can make it jump, never go back), a retake shows the earlier step's number
 * again, and the bar (number / total) never claims more than is done.
 */
import type { ProcessDefinition } from './definition.js';

/** Per user step (by activity id): its number and the estimated total, `[n, of]`. */
export type StepProgress = Record<string, readonly [n: number, of: number]>;

/** Every node a node leads to: its next, its error routes and timer for an activity; its branches and default for a gateway. */
function successors(def: ProcessDefinition, id: string): string[] {
  const activity = Object.hasOwn(def.activities, id) ? def.activities[id] : undefined;
  if (activity) {
    return [activity.next, ...Object.values(activity.errorEvents ?? {}), activity.timer?.next].filter((x): x is string => typeof x === 'string');
  }
  const gateway = def.gateways && Object.hasOwn(def.gateways, id) ? def.gateways[id] : undefined;
  if (gateway) return [...gateway.branches.map((b) => b.next), ...(gateway.default ? [gateway.default] : [])];
  return [];
}

export function stepProgress(def: ProcessDefinition, isUserStep: (type: string) => boolean): StepProgress {
  const user = (id: string) => Object.hasOwn(def.activities, id) && isUserStep(def.activities[id]!.type);
  // Depth-first from the start, iteratively (300 activities and 300 gateways can be deep): the
  // forward edges (those that close no loop) and the nodes in reverse post-order, a topological order.
  const forward = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const postorder: string[] = [];
  const stack: { id: string; next: string[]; i: number }[] = [];
  const enter = (id: string) => {
    state.set(id, 'open');
    forward.set(id, []);
    stack.push({ id, next: successors(def, id), i: 0 });
  };
  enter(def.startActivityId);
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (top.i < top.next.length) {
      const to = top.next[top.i++]!;
      const seen = state.get(to);
      if (seen === 'open') continue; // a loop back (a retake): cut
      forward.get(top.id)!.push(to);
      if (seen === undefined) enter(to);
      continue;
    }
    state.set(top.id, 'done');
    postorder.push(top.id);
    stack.pop();
  }
  const order = [...postorder].reverse();
  // Most user steps before a node (not counting it), from the start.
  const before = new Map<string, number>(order.map((id) => [id, 0]));
  for (const id of order) {
    const through = before.get(id)! + (user(id) ? 1 : 0);
    for (const to of forward.get(id)!) before.set(to, Math.max(before.get(to)!, through));
  }
  // Most user steps after a node (not counting it), to an end.
  const after = new Map<string, number>();
  for (let i = order.length - 1; i >= 0; i--) {
    const id = order[i]!;
    after.set(id, Math.max(0, ...forward.get(id)!.map((to) => after.get(to)! + (user(to) ? 1 : 0))));
  }
  const out: StepProgress = {};
  for (const id of order) {
    if (!user(id)) continue;
    const n = before.get(id)! + 1;
    out[id] = [n, n + after.get(id)!];
  }
  return out;
}
