import { ApiError, api, explain } from '../api.js';
import { badge, facts, h, notice, replace, time } from '../dom.js';
import { figuresOf, valueText } from '../figures.js';
import { can } from '../session.js';
import type { ScreenContext } from '../screens.js';
import { deliveriesOf } from './deliveries.js';
import { timeline } from './timeline.js';
import { eventsOf } from './events.js';
import type { Check, Instance, UserData } from '../types.js';
import { personOf } from './review-queue.js';

const INSTANCES = '/api/process-manager/processInstances';
const REVIEW_PERMISSION = 'ProcessManager:reviewProcessInstance';
const USERDATA_PERMISSION = 'UserDataServer:getProcessInstanceUserData';

/**
 * One instance: what it is, its review (and the form to decide it while it is in review), what
 * the end user provided (photos, checks with their figures, form data), its timeline (with its
 * events) and the webhook deliveries of its events.
 */
export function instanceDetail(ctx: ScreenContext, id: string): Promise<void> {
  return draw(ctx, id);
}

async function draw(ctx: ScreenContext, id: string, message?: HTMLElement): Promise<void> {
  const { main, session } = ctx;
  let instance: Instance;
  try {
    instance = await api<Instance>('GET', `${INSTANCES}/${encodeURIComponent(id)}`);
  } catch (err) {
    document.title = 'Instance – Console';
    replace(main, h('h1', {}, 'Instance'), notice(err instanceof ApiError && err.status === 404 ? 'No such instance in this tenant (or past its retention).' : `The instance could not be read: ${explain(err)}`, 'error'));
    return;
  }
  document.title = `${personOf(instance)} – Console`;
  const sections: HTMLElement[] = [];
  if (instance.status === 'REVIEW') sections.push(reviewForm(ctx, instance));
  const userdata = h('div', { class: 'userdata' });
  const history = h('div', { class: 'history' });
  const deliveries = h('div', { class: 'deliveries' });
  replace(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/review' }, 'Review queue'), ' · ', h('a', { href: '#/instances' }, 'Instances')),
    h('h1', {}, personOf(instance)),
    message ?? null,
    summary(instance),
    sections,
    userdata,
    history,
    deliveries,
  );
  // Read at once, shown when the user data (which the timeline also draws on) is in.
  const shown = deliveriesOf(ctx, instance.id);
  const events = eventsOf(session, instance.id);
  let data: UserData | undefined;
  if (!can(session, USERDATA_PERMISSION)) {
    replace(userdata, h('section', {}, h('h2', {}, 'Photos, checks and form data'), notice(`This key cannot read user data: it needs ${USERDATA_PERMISSION}.`)));
  } else {
    replace(userdata, h('p', { role: 'status', class: 'loading' }, 'Loading the user data…'));
    try {
      data = await api<UserData>('GET', `/api/userdata-server/processDefinitions/${encodeURIComponent(instance.processDefnId)}/processInstances/${encodeURIComponent(instance.id)}/userdata`);
      replace(userdata, photos(data), checks(data.checks), forms(data));
    } catch (err) {
      replace(userdata, notice(`The user data could not be read: ${explain(err)}`, 'error'));
    }
  }
  replace(history, timeline(instance, data, await events));
  replace(deliveries, await shown);
}

function summary(i: Instance): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': 'summary-h' },
    h('h2', { id: 'summary-h' }, 'Summary'),
    facts([
      ['Status', [badge(i.status), ` ${i.statusMapped}`]],
      ['Definition', `${i.processDefnName} v${i.processDefnVersion}`],
      ['Instance id', h('code', {}, i.id)],
      ['Created', time(i.createdAt)],
      ['Last updated', time(i.lastUpdatedAt)],
      ...(i.email ? ([['E-mail', i.email]] as [string, string][]) : []),
      ...(i.phoneNumber ? ([['Phone', i.phoneNumber]] as [string, string][]) : []),
      ...(i.review
        ? ([
            ['Review', [badge(i.review.status), ` by ${i.review.reviewedBy} at `, time(i.review.reviewedAt)]],
            ['Review comment', i.review.comment],
          ] as [string, (Node | string)[] | string][])
        : []),
    ]),
  );
}

const DECISIONS = [
  { value: 'APPROVE', label: 'Approve', done: 'Approved' },
  { value: 'REJECT', label: 'Reject', done: 'Rejected' },
  { value: 'REVIEW', label: 'Keep in review', done: 'Kept in review' },
] as const;

/** Approve, reject or keep in review, with the comment the API requires. */
function reviewForm(ctx: ScreenContext, instance: Instance): HTMLElement {
  const section = h('section', { 'aria-labelledby': 'review-h', class: 'card' }, h('h2', { id: 'review-h' }, 'Decide the review'));
  if (!can(ctx.session, REVIEW_PERMISSION)) {
    section.append(notice(`This key cannot decide reviews: it needs ${REVIEW_PERMISSION}.`));
    return section;
  }
  const errors = h('div', { id: 'review-errors' });
  const comment = h('textarea', { id: 'review-comment', name: 'comment', rows: 3, maxlength: 2000, required: true, 'aria-describedby': 'review-comment-hint' });
  const button = h('button', { type: 'submit' }, 'Send the decision');
  const form = h(
    'form',
    { novalidate: true },
    errors,
    h(
      'fieldset',
      { id: 'review-decision' },
      h('legend', {}, 'Decision'),
      DECISIONS.map((d, n) =>
        h('label', { class: 'choice' }, h('input', { type: 'radio', name: 'decision', value: d.value, id: n === 0 ? 'review-decision-first' : undefined }), d.label),
      ),
    ),
    h('div', { class: 'field' }, h('label', { for: 'review-comment' }, 'Comment'), h('p', { id: 'review-comment-hint', class: 'hint' }, 'Required: why you decided so (up to 2,000 characters). The relying party reads it with the instance.'), comment),
    button,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const decision = (form.querySelector('input[name=decision]:checked') as HTMLInputElement | null)?.value;
    const text = comment.value.trim();
    const problems: [string, string][] = [];
    if (!decision) problems.push(['review-decision-first', 'Choose a decision.']);
    if (!text) problems.push(['review-comment', 'Write a comment.']);
    comment.setAttribute('aria-invalid', String(!text));
    if (problems.length) {
      const box = h(
        'div',
        { class: 'summary', role: 'alert', tabindex: -1 },
        h('h3', {}, 'The decision was not sent'),
        h('ul', {}, problems.map(([target, msg]) => h('li', {}, h('a', { href: `#${target}`, onclick: (ev: Event) => (ev.preventDefault(), document.getElementById(target)?.focus()) }, msg)))),
      );
      replace(errors, box);
      box.focus();
      return;
    }
    button.disabled = true;
    button.textContent = 'Sending…';
    try {
      const after = await api<Instance>('POST', `${INSTANCES}/${encodeURIComponent(instance.id)}/review`, { body: { status: decision, comment: text } });
      const done = DECISIONS.find((d) => d.value === decision)!.done;
      await draw(ctx, instance.id, notice(`${done}. The instance is now ${after.status}.`, 'success'));
      ctx.main.focus();
    } catch (err) {
      replace(errors, notice(`The decision was not recorded: ${explain(err)}`, 'error'));
      button.disabled = false;
      button.textContent = 'Send the decision';
    }
  });
  section.append(form);
  return section;
}

function photos(data: UserData): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': 'photos-h' },
    h('h2', { id: 'photos-h' }, 'Photos'),
    data.images.length
      ? h(
          'ul',
          { class: 'photos' },
          data.images.map((img) => {
            const src = img.data ? `data:${img.contentType};base64,${img.data}` : img.url;
            return h(
              'li',
              {},
              h(
                'figure',
                {},
                src ? h('img', { src, alt: `Photo "${img.imageKey}" the end user provided`, width: img.width, height: img.height, loading: 'lazy' }) : null,
                h('figcaption', {}, `${img.imageKey} · ${img.kind} · ${img.width}×${img.height} · `, time(img.capturedAt)),
              ),
            );
          }),
        )
      : h('p', {}, 'No photos.'),
  );
}

function checks(list: Check[]): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': 'checks-h' },
    h('h2', { id: 'checks-h' }, 'Checks'),
    list.length
      ? list.map((c) => {
          const figures = figuresOf(c.moreinfo);
          return h(
            'article',
            { class: 'check card' },
            h('h3', {}, c.displayName, ' ', badge(c.result)),
            h('p', { class: 'hint' }, `${c.checkId} · ${c.checkType} · step ${c.activityId} · `, time(c.checkedAt)),
            c.description ? h('p', {}, c.description) : null,
            c.reports.length
              ? h(
                  'table',
                  {},
                  h('caption', {}, `Reports of ${c.displayName}`),
                  h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Report'), h('th', { scope: 'col' }, 'Result'), h('th', { scope: 'col' }, 'Details'))),
                  h('tbody', {}, c.reports.map((r) => h('tr', {}, h('th', { scope: 'row' }, r.name), h('td', {}, badge(r.result)), h('td', {}, r.description)))),
                )
              : null,
            figures.length
              ? h(
                  'table',
                  { class: 'figures' },
                  h('caption', {}, `Figures of ${c.displayName}`),
                  h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Figure'), h('th', { scope: 'col' }, 'Value'))),
                  h('tbody', {}, figures.map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', {}, v)))),
                )
              : null,
          );
        })
      : h('p', {}, 'No checks.'),
  );
}

function forms(data: UserData): HTMLElement {
  const entries = Object.entries(data.forms);
  return h(
    'section',
    { 'aria-labelledby': 'forms-h' },
    h('h2', { id: 'forms-h' }, 'Form data'),
    entries.length
      ? entries.map(([key, values]) => h('div', { class: 'card' }, h('h3', {}, key), facts(Object.entries(values).map(([k, v]) => [k, valueText(v)]))))
      : h('p', {}, 'No form data.'),
  );
}
