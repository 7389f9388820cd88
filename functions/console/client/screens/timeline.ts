import { badge, h, time } from '../dom.js';
import type { Instance, UserData } from '../types.js';
import type { InstanceEvent } from './deliveries.js';

interface Entry {
  at: string;
  what: (Node | string)[];
}

/**
 * What happened to an instance, oldest first: its creation, each step the end user completed,
 * each photo and check, the summary's decision, the events its webhooks received, the review
 * and the final status. Built from the reads the key may make; what it may not read is left out.
 */
export function timeline(instance: Instance, data: UserData | undefined, events: InstanceEvent[]): HTMLElement {
  const entries: Entry[] = [{ at: instance.createdAt, what: ['Instance created'] }];
  for (const s of data?.steps ?? []) entries.push({ at: s.submittedAt, what: [`Step ${s.activityId} completed (${s.activityType})`] });
  for (const i of data?.images ?? []) entries.push({ at: i.capturedAt, what: [`Photo "${i.imageKey}" captured (${i.width}×${i.height})`] });
  for (const c of data?.checks ?? []) entries.push({ at: c.checkedAt, what: [`Check ${c.displayName} (${c.checkId}): `, badge(c.result)] });
  if (data?.summary) entries.push({ at: data.summary.writtenAt, what: ['Summary written, decision ', badge(data.summary.decision ?? 'none')] });
  const seen = new Set<string>();
  for (const e of events) {
    const key = `${e.type}@${e.at}`;
    if (seen.has(key)) continue;
    seen.add(key);
    entries.push({ at: e.at, what: [`Event ${e.type}`] });
  }
  if (instance.review) entries.push({ at: instance.review.reviewedAt, what: ['Reviewed: ', badge(instance.review.status), ` by ${instance.review.reviewedBy}: \u201c${instance.review.comment}\u201d`] });
  if (instance.status !== 'ACTIVE' && instance.status !== 'PENDING' && !events.length) entries.push({ at: instance.lastUpdatedAt, what: ['Status ', badge(instance.status)] });
  entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return h(
    'section',
    { 'aria-labelledby': 'timeline-h' },
    h('h2', { id: 'timeline-h' }, 'Timeline'),
    h('ol', { class: 'timeline' }, entries.map((e) => h('li', {}, time(e.at), ' ', ...e.what))),
  );
}
