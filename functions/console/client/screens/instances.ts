import { api, explain } from '../api.js';
import { badge, h, notice, replace, time } from '../dom.js';
import type { Screen } from '../screens.js';
import type { Instance, Page } from '../types.js';
import { instanceDetail } from './instance.js';
import { personOf } from './review-queue.js';

const STATUSES = ['PENDING', 'ACTIVE', 'REVIEW', 'PAUSED', 'COMPLETED_ENDED_SUCCESS', 'COMPLETED_ENDED_ERROR', 'COMPLETED_PROCESS_ERROR', 'COMPLETED_TERMINATED'];

/** A `datetime-local` value (the reader's time zone) as an ISO instant, or undefined. */
function instant(value: string): string | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/**
 * Instances: the search API's filters (free text, status, definition, creation range), newest
 * first, a page at a time; `#/instances/{id}` is one instance.
 */
export const instancesScreen: Screen = {
  route: 'instances',
  label: 'Instances',
  needs: ['ProcessManager:getProcessInstance'],
  async render(ctx) {
    if (ctx.params[0]) return instanceDetail(ctx, ctx.params[0]);
    document.title = 'Instances – Console';
    const { main } = ctx;
    const field = (id: string, label: string, control: HTMLElement) => h('div', { class: 'field' }, h('label', { for: id }, label), control);
    const text = h('input', { id: 'f-text', type: 'search', name: 'searchString', maxlength: 255 });
    const status = h('select', { id: 'f-status', name: 'status' }, h('option', { value: '' }, 'Any status'), STATUSES.map((s) => h('option', { value: s }, s)));
    const defn = h('input', { id: 'f-defn', type: 'text', name: 'processDefinitionName', maxlength: 100 });
    const from = h('input', { id: 'f-from', type: 'datetime-local', name: 'from' });
    const to = h('input', { id: 'f-to', type: 'datetime-local', name: 'to' });
    const form = h(
      'form',
      { class: 'filters card', role: 'search', 'aria-label': 'Filter the instances' },
      field('f-text', 'Search (id, name, e-mail, phone…)', text),
      field('f-status', 'Status', status),
      field('f-defn', 'Definition name', defn),
      field('f-from', 'Created from', from),
      field('f-to', 'Created until', to),
      h('div', { class: 'field' }, h('button', { type: 'submit' }, 'Search')),
    );
    const count = h('p', { role: 'status' });
    const body = h('tbody', {});
    const more = h('div', { class: 'more' });
    const table = h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        {},
        h('caption', {}, 'Instances, newest first'),
        h('thead', {}, h('tr', {}, ['Instance', 'Definition', 'Status', 'Created'].map((t) => h('th', { scope: 'col' }, t)))),
        body,
      ),
    );
    replace(main, h('h1', {}, 'Instances'), form, count, table, more);
    const load = async (cursor?: string) => {
      const query = {
        searchString: text.value.trim() || undefined,
        processInstanceStatus: status.value || undefined,
        processDefinitionName: defn.value.trim() || undefined,
        startDateTime: instant(from.value),
        endDateTime: instant(to.value),
        sort: 'createdAt,desc',
        size: 25,
        cursor,
      };
      try {
        const page = await api<Page<Instance>>('GET', '/api/process-manager/processInstances/search', { query });
        if (!cursor) {
          body.replaceChildren();
          count.textContent = `${page.totalElements}${page.totalElementsCapped ? '+' : ''} instance${page.totalElements === 1 ? '' : 's'} found.`;
        }
        for (const i of page.content) {
          body.append(
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, h('a', { href: `#/instances/${encodeURIComponent(i.id)}` }, personOf(i))),
              h('td', {}, `${i.processDefnName} v${i.processDefnVersion}`),
              h('td', {}, badge(i.status)),
              h('td', {}, time(i.createdAt)),
            ),
          );
        }
        replace(more, page.nextCursor ? h('button', { type: 'button', class: 'secondary', onclick: () => void load(page.nextCursor!) }, 'Show more') : null);
      } catch (err) {
        replace(more, notice(`The instances could not be read: ${explain(err)}`, 'error'));
      }
    };
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void load();
    });
    await load();
  },
};
