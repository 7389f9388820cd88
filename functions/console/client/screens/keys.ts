import { PERMISSIONS } from '../../../auth/permissions.js';
import { api, explain } from '../api.js';
import { badge, h, notice, replace, time } from '../dom.js';
import { can } from '../session.js';
import type { Screen, ScreenContext } from '../screens.js';
import type { ApiKey, Page } from '../types.js';

const KEYS = '/api/arthr/apiKeys';

/**
 * API keys: the tenant's keys with their status and permissions; create one (its secret shown
 * once, here), block or unblock one, delete one. The key signed in with is marked and cannot be
 * blocked or deleted from here, so nobody locks themselves out mid-session.
 */
export const keysScreen: Screen = {
  route: 'keys',
  label: 'API keys',
  needs: ['ArthrServer:listTenantApiKeys'],
  async render(ctx) {
    document.title = 'API keys – Console';
    const status = h('div', {});
    const list = h('div', {});
    replace(ctx.main, h('h1', {}, 'API keys'), status, can(ctx.session, 'ArthrServer:createTenantApiKey') ? createForm(ctx, status, () => void load()) : h('p', { class: 'hint' }, 'This key cannot create keys (it needs ArthrServer:createTenantApiKey).'), list);
    const load = async () => {
      try {
        const keys: ApiKey[] = [];
        let cursor: string | undefined;
        do {
          const page = await api<Page<ApiKey>>('GET', KEYS, { query: { size: 100, cursor } });
          keys.push(...page.content);
          cursor = page.nextCursor ?? undefined;
        } while (cursor && keys.length < 1000);
        replace(list, table(ctx, keys, status, () => void load()));
      } catch (err) {
        replace(list, notice(`The keys could not be read: ${explain(err)}`, 'error'));
      }
    };
    await load();
  },
};

function table(ctx: ScreenContext, keys: ApiKey[], status: HTMLElement, reload: () => void): HTMLElement {
  const mayUpdate = can(ctx.session, 'ArthrServer:updateTenantApiKey');
  const mayDelete = can(ctx.session, 'ArthrServer:deleteFromTenant');
  const act = async (what: string, call: () => Promise<unknown>) => {
    try {
      await call();
      replace(status, notice(what, 'success'));
      reload();
    } catch (err) {
      replace(status, notice(`Not done: ${explain(err)}`, 'error'));
    }
  };
  return h(
    'section',
    { 'aria-labelledby': 'keys-h' },
    h('h2', { id: 'keys-h' }, `Keys (${keys.length})`),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        {},
        h('caption', {}, "The tenant's API keys"),
        h('thead', {}, h('tr', {}, ['Name', 'Ends in', 'Status', 'Permissions', 'Last token', 'Actions'].map((t) => h('th', { scope: 'col' }, t)))),
        h(
          'tbody',
          {},
          keys.map((k) => {
            const own = k.id === ctx.session.keyId;
            const actions = h('div', { class: 'actions' });
            if (own) actions.append('Signed in with this key');
            else {
              if (mayUpdate && k.status !== 'ARCHIVED') {
                const to = k.status === 'BLOCKED' ? 'ACTIVE' : 'BLOCKED';
                actions.append(
                  h('button', { type: 'button', class: 'secondary', 'aria-label': `${to === 'BLOCKED' ? 'Block' : 'Unblock'} ${k.name}`, onclick: () => act(`${k.name} is now ${to}.`, () => api('POST', `${KEYS}/${encodeURIComponent(k.id)}`, { body: { status: to } })) }, to === 'BLOCKED' ? 'Block' : 'Unblock'),
                );
              }
              if (mayDelete) {
                const confirmBox = h('span', { class: 'actions' });
                const del = h('button', { type: 'button', class: 'danger', 'aria-label': `Delete ${k.name}` }, 'Delete');
                del.addEventListener('click', () => {
                  const yes = h('button', { type: 'button', class: 'danger', onclick: () => act(`${k.name} is deleted.`, () => api('DELETE', `${KEYS}/${encodeURIComponent(k.id)}`)) }, `Delete ${k.name} for good`);
                  replace(confirmBox, yes, h('button', { type: 'button', class: 'secondary', onclick: () => (replace(confirmBox), del.focus()) }, 'Cancel'));
                  yes.focus();
                });
                actions.append(del, confirmBox);
              }
              if (!mayUpdate && !mayDelete) actions.append('–');
            }
            return h(
              'tr',
              {},
              h('th', { scope: 'row' }, k.name, k.description ? h('div', { class: 'hint' }, k.description) : null),
              h('td', {}, h('code', {}, `…${k.code}`)),
              h('td', {}, badge(k.status)),
              h('td', {}, h('details', {}, h('summary', {}, `${k.permissions.length}`), h('ul', {}, k.permissions.map((p) => h('li', {}, p.replace(/^TNT#[^#]+#/, '')))))),
              h('td', {}, time(k.lastIssuedAtDtm)),
              h('td', {}, actions),
            );
          }),
        ),
      ),
    ),
  );
}

/** Name, description and permissions; the secret of the key made is shown once, with a way to copy it. */
function createForm(ctx: ScreenContext, status: HTMLElement, reload: () => void): HTMLElement {
  const name = h('input', { id: 'key-name', name: 'name', maxlength: 255, required: true, autocomplete: 'off' });
  const description = h('input', { id: 'key-description', name: 'description', maxlength: 255, autocomplete: 'off' });
  const groups = new Map<string, string[]>();
  for (const p of PERMISSIONS) {
    const area = p.includes(':') ? p.split(':')[0]! : 'IdentityStore (passcodes)';
    groups.set(area, [...(groups.get(area) ?? []), p]);
  }
  const boxes = h(
    'fieldset',
    { id: 'key-permissions' },
    h('legend', {}, 'Permissions'),
    h('p', { class: 'hint' }, 'A key may be given only permissions the signed-in key holds.'),
    [...groups].map(([area, names]) =>
      h('div', { class: 'perm-group' }, h('p', { class: 'perm-area' }, area), names.map((n) => h('label', { class: 'choice' }, h('input', { type: 'checkbox', name: 'permission', value: n, disabled: !ctx.session.permissions.includes(n) }), n))),
    ),
  );
  const errors = h('div', {});
  const result = h('div', {});
  const button = h('button', { type: 'submit' }, 'Create the key');
  const form = h(
    'form',
    { class: 'card wide', novalidate: true, 'aria-labelledby': 'create-h' },
    h('h2', { id: 'create-h' }, 'Create a key'),
    errors,
    h('div', { class: 'field' }, h('label', { for: 'key-name' }, 'Name'), name),
    h('div', { class: 'field' }, h('label', { for: 'key-description' }, 'Description (optional)'), description),
    boxes,
    button,
    result,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const chosen = [...form.querySelectorAll<HTMLInputElement>('input[name=permission]:checked')].map((i) => `TNT#${ctx.session.tenantId}#${i.value}`);
    if (!name.value.trim()) {
      name.setAttribute('aria-invalid', 'true');
      replace(errors, notice('Give the key a name.', 'error'));
      name.focus();
      return;
    }
    name.removeAttribute('aria-invalid');
    replace(errors);
    button.disabled = true;
    button.textContent = 'Creating…';
    try {
      const made = await api<ApiKey & { secret: string }>('POST', KEYS, { body: { name: name.value.trim(), description: description.value.trim(), permissions: chosen } });
      const secret = h('p', { class: 'secret', id: 'new-secret' }, made.secret);
      const copy = h('button', { type: 'button', class: 'secondary' }, 'Copy the secret');
      copy.addEventListener('click', async () => {
        try {
          await navigator.clipboard.writeText(made.secret);
          copy.textContent = 'Copied';
        } catch {
          copy.textContent = 'Select the secret and copy it';
        }
      });
      replace(
        result,
        h(
          'div',
          { class: 'notice success', role: 'status', tabindex: -1, id: 'created' },
          h('p', {}, `Key ${made.name} created. Its secret is shown this once: keep it now, it cannot be read again.`),
          secret,
          copy,
        ),
      );
      (result.firstChild as HTMLElement).focus();
      form.reset();
      replace(status);
      reload();
    } catch (err) {
      replace(errors, notice(`The key was not created: ${explain(err)}`, 'error'));
    } finally {
      button.disabled = false;
      button.textContent = 'Create the key';
    }
  });
  return form;
}
