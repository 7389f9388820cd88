import { api, explain } from '../api.js';
import { badge, h, notice, replace, time } from '../dom.js';
import type { Screen } from '../screens.js';
import type { Instance, Page } from '../types.js';

/** Who an instance is about, from its token's parameters, or its id. */
export function personOf(i: Instance): string {
  const name = [i.firstName, i.lastName].filter(Boolean).join(' ');
  return name || i.email || i.phoneNumber || `Instance ${i.id.slice(0, 8)}`;
}

/**
 * The review queue: the instances in status REVIEW (their journey ended there, or waits at a
 * Waiting for B/O review step), oldest first, each opening its instance to decide it.
 */
export const reviewQueue: Screen = {
  route: 'review',
  label: 'Review queue',
  needs: ['ProcessManager:getProcessInstance'],
  async render({ main }) {
    document.title = 'Review queue – Console';
    const list = h('ul', { class: 'cards', 'aria-label': 'Instances in review' });
    const more = h('div', { class: 'more' });
    const count = h('p', { class: 'lead', role: 'status' });
    replace(
      main,
      h('h1', {}, 'Review queue'),
      h('p', { class: 'hint' }, 'Instances in status REVIEW, oldest first. Open one to see its photos, checks and form data, then approve, reject or keep it in review with a comment.'),
      count,
      list,
      more,
    );
    const load = async (cursor?: string) => {
      try {
        const page = await api<Page<Instance>>('GET', '/api/process-manager/processInstances/search', {
          query: { processInstanceStatus: 'REVIEW', sort: 'createdAt,asc', size: 20, cursor },
        });
        if (!cursor) count.textContent = page.totalElements ? `${page.totalElements}${page.totalElementsCapped ? '+' : ''} in review.` : 'Nothing to review.';
        for (const i of page.content) {
          list.append(
            h(
              'li',
              { class: 'card' },
              h('a', { href: `#/instances/${encodeURIComponent(i.id)}`, class: 'title' }, personOf(i)),
              h('div', { class: 'meta' }, badge(i.status), ` ${i.processDefnName} v${i.processDefnVersion} · created `, time(i.createdAt)),
            ),
          );
        }
        replace(more, page.nextCursor ? h('button', { type: 'button', class: 'secondary', onclick: () => void load(page.nextCursor!) }, 'Show more') : null);
      } catch (err) {
        replace(more, notice(`The queue could not be read: ${explain(err)}`, 'error'));
      }
    };
    await load();
  },
};
