import { SESSION_ENDED } from './api.js';
import { h, replace } from './dom.js';
import { clearSession, loadSession, takeExpired, type Session } from './session.js';
import type { Screen } from './screens.js';
import { signIn } from './screens/sign-in.js';
import { reviewQueue } from './screens/review-queue.js';
import { instancesScreen } from './screens/instances.js';
import { definitionsScreen } from './screens/definitions.js';
import { keysScreen } from './screens/keys.js';

/**
 * The console (docs/console.md): one page, screens behind hash routes (`#/review`), drawn from
 * the public API with the signed-in key's token. A screen the key cannot use says so.
 */
/** The screens, in the navigation's order. */
const SCREENS: Screen[] = [reviewQueue, instancesScreen, definitionsScreen, keysScreen];
const NAV = SCREENS;

const app = document.getElementById('app')!;
let expiryTimer: number | undefined;

function route(): { screen: Screen | undefined; params: string[] } {
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const screen = SCREENS.find((s) => s.route === parts[0]);
  return { screen, params: parts.slice(1) };
}

function go(hash: string): void {
  if (location.hash === hash) void show();
  else location.hash = hash;
}

function signOut(reason: 'signedOut' | 'expired'): void {
  clearSession();
  if (expiryTimer !== undefined) clearTimeout(expiryTimer);
  expiryTimer = undefined;
  drawSignIn(reason);
}

/** The API reference (`/docs`, served beside the console), from every screen's header. */
function referenceLink(): HTMLElement {
  return h('a', { class: 'bar-link', href: '/docs' }, 'API reference');
}

function drawSignIn(reason?: 'signedOut' | 'expired'): void {
  const main = h('main', { id: 'main', tabindex: -1 });
  replace(app, h('header', { class: 'bar' }, h('span', { class: 'brand' }, 'Console'), referenceLink()), main);
  document.title = 'Sign in – Console';
  signIn(main, reason, (session) => {
    watchExpiry(session);
    void show();
  });
}

/** Signs out when the token expires, rather than failing at the next call. */
function watchExpiry(session: Session): void {
  if (expiryTimer !== undefined) clearTimeout(expiryTimer);
  // setTimeout takes at most 2^31-1 ms; tokens live far less.
  expiryTimer = window.setTimeout(() => signOut('expired'), Math.min(Math.max(session.expiresAt - Date.now(), 0), 2_147_483_647));
}

async function show(): Promise<void> {
  const session = loadSession();
  if (!session) return drawSignIn(takeExpired() ? 'expired' : undefined);
  let { screen, params } = route();
  if (!screen) {
    const first = NAV.find((s) => s.needs.every((p) => session.permissions.includes(p))) ?? NAV[0]!;
    history.replaceState(null, '', `#/${first.route}`);
    screen = first;
    params = [];
  }
  const current = screen;
  const main = h('main', { id: 'main', tabindex: -1 });
  const until = new Date(session.expiresAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  replace(
    app,
    h(
      'header',
      { class: 'bar' },
      h('span', { class: 'brand' }, 'Console'),
      h('span', { class: 'who' }, `Tenant ${session.tenantId} · key ${session.keyId.slice(0, 8)} · until ${until}`),
      referenceLink(),
      h('button', { type: 'button', class: 'link', onclick: () => signOut('signedOut') }, 'Sign out'),
    ),
    h(
      'nav',
      { 'aria-label': 'Console' },
      h(
        'ul',
        {},
        NAV.map((s) => h('li', {}, h('a', { href: `#/${s.route}`, 'aria-current': s.route === current.route ? 'page' : undefined }, s.label))),
      ),
    ),
    main,
  );
  const missing = current.needs.filter((p) => !session.permissions.includes(p));
  if (missing.length) {
    document.title = `${current.label} – Console`;
    replace(
      main,
      h('h1', {}, current.label),
      h('p', { class: 'notice info', role: 'status' }, `This key cannot use this screen: it needs ${missing.join(' and ')}. Sign in with a key that holds ${missing.length > 1 ? 'them' : 'it'}.`),
    );
  } else {
    replace(main, h('p', { role: 'status', class: 'loading' }, 'Loading…'));
    await current.render({ main, params, session, go });
  }
  main.focus();
}

document.addEventListener(SESSION_ENDED, () => signOut('expired'));
window.addEventListener('hashchange', () => void show());
const existing = loadSession();
if (existing) watchExpiry(existing);
void show();
