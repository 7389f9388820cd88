import { explain, issueToken } from '../api.js';
import { h, notice, replace } from '../dom.js';
import { saveSession, sessionOf, type Session } from '../session.js';

/** The tenant of this host: its first label (`demo.fir.localhost` → demo), or none on a bare host. */
function tenantOfHost(): string | undefined {
  const labels = location.hostname.split('.');
  return labels.length >= 3 ? labels[0] : undefined;
}

/**
 * Sign-in: an API key of the tenant, exchanged at once for a bearer token. The field is emptied
 * and the key dropped whatever the answer; only the token is kept, for this tab.
 */
export function signIn(main: HTMLElement, reason: 'signedOut' | 'expired' | undefined, done: (s: Session) => void): void {
  const tenant = tenantOfHost();
  const input = h('input', { id: 'api-key', name: 'apiKey', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true, 'aria-describedby': 'api-key-hint' });
  const status = h('div', { id: 'sign-in-status' });
  const button = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    { class: 'card', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: 'api-key' }, 'API key'), input),
    h(
      'p',
      { id: 'api-key-hint', class: 'hint' },
      'The key is exchanged for a session token that lasts until the token expires or you sign out, in this tab only. The key itself is not kept. What you can see and do is what the key allows.',
    ),
    button,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const key = input.value.trim();
    input.value = '';
    if (!key) {
      replace(status, notice('Enter an API key.', 'error'));
      input.setAttribute('aria-invalid', 'true');
      input.focus();
      return;
    }
    button.disabled = true;
    button.textContent = 'Signing in…';
    try {
      const session = sessionOf(await issueToken(key));
      saveSession(session);
      done(session);
    } catch (err) {
      replace(status, notice(`Not signed in: ${explain(err)}`, 'error'));
      input.setAttribute('aria-invalid', 'true');
      input.focus();
    } finally {
      button.disabled = false;
      button.textContent = 'Sign in';
    }
  });
  replace(
    main,
    h('h1', {}, 'Sign in to the console'),
    reason === 'expired' ? notice('Your session expired. Sign in again to go on.', 'info') : null,
    reason === 'signedOut' ? notice('You are signed out.', 'success') : null,
    tenant
      ? h('p', { class: 'lead' }, `Tenant ${tenant}: sign in with one of its API keys.`)
      : h('p', { class: 'notice error', role: 'alert' }, `Open the console on your tenant's host, for example ${location.protocol}//demo.fir.${location.host}/console: the API answers each tenant on its own host.`),
    status,
    form,
  );
  main.focus();
}
