/**
 * The custom page host's script, bundled for the browser into assets.generated.ts (`npm run
 * build:assets`). It speaks the family's custom page protocol with the framed page, and only
 * with it: a message counts only when it comes from the frame's window and its origin (the
 * pages origin), and whatever else is posted to this window (a page's analytics to the top
 * window, another frame, garbage) is ignored.
 *
 * - READY (`{event: 'READY'}`): answered with `{command: 'PROCESS', event: 'message', variables:
 *   {constants, sessionData}}`, to the frame's origin only. Real pages wait for `command ===
 *   'PROCESS'`, the family's page tester sends `event: 'message'`: one message serves both. A
 *   page that reloads says READY again and is answered again.
 * - SEND (`{event: 'SEND', variables}`): each variable posted to the step as text (a string as it
 *   is, a date as its ISO text, anything else as its JSON; undefined is left out), once.
 * - A page that never says READY: after a while the host says so and offers to load it again;
 *   the step's timer still ends the step.
 */
import { showSending } from './sending.js';
import { CUSTOM_PAGE_VARIABLE_PREFIX, sendFields } from './custom-page-send.js';

const STUCK_AFTER_MS = 15_000;

interface Told {
  origin: string;
  variables: { constants: Record<string, unknown>; sessionData: Record<string, unknown> };
}

const frame = document.getElementById('custom-page') as HTMLIFrameElement | null;
const form = document.getElementById('custom-page-form') as HTMLFormElement | null;
const toldElement = document.getElementById('custom-page-told');

if (frame && form && toldElement) {
  const told = JSON.parse(toldElement.textContent ?? '{}') as Told;
  const loading = document.getElementById('custom-page-loading');
  const stuck = document.getElementById('custom-page-stuck');
  let ready = false;
  let sent = false;
  let stuckTimer = 0;
  const watch = () => {
    ready = false;
    window.clearTimeout(stuckTimer);
    stuckTimer = window.setTimeout(() => {
      if (!ready && stuck) stuck.hidden = false;
    }, STUCK_AFTER_MS);
  };
  watch();
  document.getElementById('custom-page-reload')?.addEventListener('click', () => {
    if (stuck) stuck.hidden = true;
    watch();
    frame.src = frame.src;
  });

  window.addEventListener('message', (event: MessageEvent) => {
    if (event.source !== frame.contentWindow || event.origin !== told.origin) return;
    const data = event.data as { event?: unknown; variables?: unknown } | null;
    if (!data || typeof data !== 'object') return;
    if (data.event === 'READY') {
      ready = true;
      window.clearTimeout(stuckTimer);
      if (loading) loading.hidden = true;
      if (stuck) stuck.hidden = true;
      frame.contentWindow?.postMessage({ command: 'PROCESS', event: 'message', variables: told.variables }, told.origin);
      return;
    }
    if (data.event === 'SEND' && !sent) {
      const fields = sendFields(data.variables);
      // Not what the step can keep: the end user is told, and the step keeps waiting for a SEND it can keep.
      if (!fields) {
        const problem = document.getElementById('custom-page-problem');
        if (problem) problem.hidden = false;
        return;
      }
      sent = true;
      for (const [name, value] of fields) {
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = `${CUSTOM_PAGE_VARIABLE_PREFIX}${name}`;
        input.value = value;
        form.append(input);
      }
      showSending(form);
      form.submit();
    }
  });
}
