import { badge, h, notice, time } from '../dom.js';
import type { Instance, InstanceEvent, UserData } from '../types.js';
import type { EventsRead } from './events.js';

interface Entry {
  at: string;
  what: (Node | string)[];
}

/** What an event says besides its type, in a few words (the whole payload is in the API). */
function detail(e: InstanceEvent): string {
  const d = e.data;
  const text = (k: string) => (typeof d[k] === 'string' ? (d[k] as string) : undefined);
  if (text('previousStatus') && text('status') && e.type !== 'process-instance.reviewed') return `: ${text('previousStatus')} \u2192 ${text('status')}`;
  if (text('decision')) return `: ${text('decision')} by ${text('reviewedBy') ?? 'a reviewer'}`;
  if (text('activityId') && text('name')) return `: ${text('name')} (step ${text('activityId')})`;
  if (text('activityId')) return `: waits at ${text('activityId')}`;
  if (text('status')) return `: ${text('status')}`;
  return '';
}

/**
 * What happened to an instance, oldest first: its creation, each step the end user completed,
 * each photo and check, the summary's decision, each event it made (its type and time, whether
 * or not a webhook took it), the review and the final status. Built from the reads the key may
 * make; what it may not read is left out, and the events' absence is said.
 */
export function timeline(instance: Instance, data: UserData | undefined, read: EventsRead): HTMLElement {
  const events = 'events' in read ? read.events : [];
  const entries: Entry[] = [{ at: instance.createdAt, what: ['Instance created'] }];
  for (const s of data?.steps ?? []) entries.push({ at: s.submittedAt, what: [`Step ${s.activityId} completed (${s.activityType})`] });
  for (const i of data?.images ?? []) entries.push({ at: i.capturedAt, what: [`Photo "${i.imageKey}" captured (${i.width}×${i.height})`] });
  for (const c of data?.checks ?? []) entries.push({ at: c.checkedAt, what: [`Check ${c.displayName} (${c.checkId}): `, badge(c.result)] });
  if (data?.summary) entries.push({ at: data.summary.writtenAt, what: ['Summary written, decision ', badge(data.summary.decision ?? 'none')] });
  for (const e of events) entries.push({ at: e.timestamp, what: [h('span', { class: 'event' }, `Event ${e.type}`), detail(e)] });
  if (instance.review) entries.push({ at: instance.review.reviewedAt, what: ['Reviewed: ', badge(instance.review.status), ` by ${instance.review.reviewedBy}: \u201c${instance.review.comment}\u201d`] });
  if (instance.status !== 'ACTIVE' && instance.status !== 'PENDING' && !events.length) entries.push({ at: instance.lastUpdatedAt, what: ['Status ', badge(instance.status)] });
  // Stable: entries of one instant keep the order above (the events among themselves, theirs).
  entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return h(
    'section',
    { 'aria-labelledby': 'timeline-h' },
    h('h2', { id: 'timeline-h' }, 'Timeline'),
    'unread' in read ? notice(read.unread, read.tone) : null,
    'more' in read && read.more ? h('p', { class: 'hint' }, `Only the first ${events.length} events are shown; the API lists them all.`) : null,
    h('ol', { class: 'timeline' }, entries.map((e) => h('li', {}, time(e.at), ' ', ...e.what))),
  );
}
