import { api, explain } from '../api.js';
import { append, badge, h, notice, replace, time } from '../dom.js';
import { can } from '../session.js';
import type { ScreenContext } from '../screens.js';
import type { Delivery, Page, Webhook } from '../types.js';

const WEBHOOKS = '/api/webhook-manager/webhooks';
const READ = 'WebhookManager:getWebhooks';
const REPLAY = 'WebhookManager:updateWebhook';
/** Pages of 50 of the instance's events read at most (500 events, each against every webhook). */
const MAX_PAGES = 10;

/**
 * The webhook deliveries of one instance's events (GET /api/webhook-manager/deliveries
 * ?processInstanceId=, which finds each event's delivery to each webhook by key), oldest event
 * first, each with its webhook. A replay sends that one event to that webhook again (POST
 * .../replay with its eventId).
 */
export async function deliveriesOf(ctx: ScreenContext, instanceId: string): Promise<HTMLElement> {
  const section = h('section', { 'aria-labelledby': 'deliveries-h' }, h('h2', { id: 'deliveries-h' }, 'Webhook deliveries'));
  if (!can(ctx.session, READ)) {
    section.append(notice(`This key cannot read webhooks: it needs ${READ}.`));
    return section;
  }
  const rows: { webhook: Webhook; delivery: Delivery }[] = [];
  let more = false;
  try {
    // The webhooks' URLs, to name each delivery's (at most 20 a tenant: one page).
    const hooks = new Map((await api<Page<Webhook>>('GET', WEBHOOKS, { query: { size: 100 } })).content.map((w) => [w.id, w] as const));
    let nextToken: string | undefined;
    for (let n = 0; n < MAX_PAGES; n++) {
      const page = await api<{ deliveries: Delivery[]; nextToken?: string }>('GET', '/api/webhook-manager/deliveries', { query: { processInstanceId: instanceId, size: 50, nextToken } });
      for (const delivery of page.deliveries) {
        const webhook = hooks.get(delivery.webhookId ?? '') ?? { id: delivery.webhookId ?? '', description: '', enabled: false };
        rows.push({ webhook, delivery });
      }
      nextToken = page.nextToken;
      if (!nextToken) break;
    }
    more = nextToken !== undefined;
  } catch (err) {
    section.append(notice(`The deliveries could not be read: ${explain(err)}`, 'error'));
    return section;
  }
  if (!rows.length) {
    section.append(h('p', {}, 'No webhook delivery of this instance\u2019s events.'));
    return section;
  }
  const status = h('div', {});
  const mayReplay = can(ctx.session, REPLAY);
  append(section, [
    status,
    mayReplay ? null : h('p', { class: 'hint' }, `This key cannot replay deliveries (it needs ${REPLAY}).`),
    more ? h('p', { class: 'hint' }, `Only the deliveries of the instance\u2019s first ${MAX_PAGES * 50} events are shown.`) : null,
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
              h('td', {}, webhook.url || webhook.description || webhook.id),
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
  return section;
}
