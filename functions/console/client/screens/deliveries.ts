import { api, explain } from '../api.js';
import { append, badge, h, notice, replace, time } from '../dom.js';
import { can } from '../session.js';
import type { ScreenContext } from '../screens.js';
import type { Delivery, Page, Webhook } from '../types.js';

const WEBHOOKS = '/api/webhook-manager/webhooks';
const READ = 'WebhookManager:getWebhooks';
const REPLAY = 'WebhookManager:updateWebhook';
/** Deliveries read per webhook, newest first, looking for one instance's (5 pages of 100). */
const MAX_PAGES = 5;

export interface InstanceEvent {
  type: string;
  at: string;
}

/**
 * The webhook deliveries of one instance's events: each webhook's deliveries (newest first) read
 * back to the instance's creation, those whose subject is the instance kept. A replay sends that
 * one event to that webhook again (POST .../replay with its eventId).
 */
export async function deliveriesOf(ctx: ScreenContext, instanceId: string, createdAt?: string): Promise<{ section: HTMLElement; events: InstanceEvent[] }> {
  const section = h('section', { 'aria-labelledby': 'deliveries-h' }, h('h2', { id: 'deliveries-h' }, 'Webhook deliveries'));
  if (!can(ctx.session, READ)) {
    section.append(notice(`This key cannot read webhooks: it needs ${READ}.`));
    return { section, events: [] };
  }
  const rows: { webhook: Webhook; delivery: Delivery }[] = [];
  try {
    const hooks = await api<Page<Webhook>>('GET', WEBHOOKS, { query: { size: 100 } });
    for (const webhook of hooks.content) {
      let nextToken: string | undefined;
      for (let n = 0; n < MAX_PAGES; n++) {
        const page = await api<{ deliveries: Delivery[]; nextToken?: string }>('GET', `${WEBHOOKS}/${encodeURIComponent(webhook.id)}/deliveries`, { query: { size: 100, nextToken } });
        for (const delivery of page.deliveries) if (delivery.subjectId === instanceId) rows.push({ webhook, delivery });
        const oldest = page.deliveries[page.deliveries.length - 1];
        nextToken = page.nextToken;
        if (!nextToken || (createdAt && oldest && oldest.eventTimestamp < createdAt)) break;
      }
    }
  } catch (err) {
    section.append(notice(`The deliveries could not be read: ${explain(err)}`, 'error'));
    return { section, events: [] };
  }
  if (!rows.length) {
    section.append(h('p', {}, 'No webhook delivery of this instance\u2019s events.'));
    return { section, events: [] };
  }
  rows.sort((a, b) => (a.delivery.eventTimestamp < b.delivery.eventTimestamp ? -1 : 1));
  const status = h('div', {});
  const mayReplay = can(ctx.session, REPLAY);
  append(section, [
    status,
    mayReplay ? null : h('p', { class: 'hint' }, `This key cannot replay deliveries (it needs ${REPLAY}).`),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        {},
        h('caption', {}, 'Deliveries of this instance\u2019s events, oldest first'),
        h(
          'thead',
          {},
          h('tr', {}, ['Event', 'Made', 'Webhook', 'Status', 'Attempts', mayReplay ? 'Replay' : null].filter(Boolean).map((t) => h('th', { scope: 'col' }, t!))),
        ),
        h(
          'tbody',
          {},
          rows.map(({ webhook, delivery }) => {
            const last = delivery.attempts[delivery.attempts.length - 1];
            const attempts = `${delivery.attempts.length}${last ? ` (last: ${last.status ?? last.error ?? '–'}, ${last.latencyMs} ms)` : ''}`;
            return h(
              'tr',
              {},
              h('th', { scope: 'row' }, delivery.eventType),
              h('td', {}, time(delivery.eventTimestamp)),
              h('td', {}, webhook.url ?? webhook.description ?? webhook.id),
              h('td', {}, badge(delivery.status)),
              h('td', {}, attempts),
              mayReplay
                ? h(
                    'td',
                    {},
                    h(
                      'button',
                      {
                        type: 'button',
                        class: 'secondary',
                        'aria-label': `Replay ${delivery.eventType} to ${webhook.url ?? webhook.id}`,
                        onclick: async (e: Event) => {
                          const button = e.currentTarget as HTMLButtonElement;
                          button.disabled = true;
                          try {
                            const r = await api<{ queued: number }>('POST', `${WEBHOOKS}/${encodeURIComponent(webhook.id)}/replay`, { body: { eventId: delivery.eventId } });
                            replace(status, notice(r.queued ? `${delivery.eventType} queued to be delivered again.` : `${delivery.eventType} was not queued: the webhook no longer takes it.`, r.queued ? 'success' : 'info'));
                          } catch (err) {
                            replace(status, notice(`Not replayed: ${explain(err)}`, 'error'));
                          } finally {
                            button.disabled = false;
                          }
                        },
                      },
                      'Replay',
                    ),
                  )
                : null,
            );
          }),
        ),
      ),
    ),
  ]);
  return { section, events: rows.map((r) => ({ type: r.delivery.eventType, at: r.delivery.eventTimestamp })) };
}
