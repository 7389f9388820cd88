/**
 * A journey page that waits for something elsewhere (the next step, the other device, a resume:
 * the page's `data-refresh`, in seconds) looks again in the background and reloads only when
 * what it would show has changed (`data-shown`, a digest of what the server rendered), so the page is not pulled from under a reader every few
 * seconds (WCAG 2.2.1; a `<meta http-equiv="refresh">` reloads it each time). A page that goes on
 * to the relying party after a moment (`data-refresh-url`) says so and offers to stay. Without
 * script the page's `<noscript>` meta refresh does both as before (layout.ts).
 */

/**
 * What a page shows of where the journey stands, as the server rendered it (layout.ts
 * `shownStamp`): never the live document, which the page's own scripts change.
 */
const shown = (doc: Document) => doc.body?.dataset.shown ?? '';

/** Starts following, on a page that asks for it (`data-refresh`). */
export function follow(): void {
  const body = document.body;
  const seconds = Number(body.dataset.refresh);
  if (seconds > 0 && body.dataset.refreshUrl) {
    const url = body.dataset.refreshUrl;
    const controls = document.getElementById('redirect-controls');
    const timer = setTimeout(() => location.assign(url), seconds * 1000);
    if (controls) {
      controls.hidden = false;
      document.getElementById('redirect-stay')?.addEventListener('click', () => {
        clearTimeout(timer);
        controls.hidden = true;
      });
    }
  } else if (seconds > 0) {
    const initial = shown(document);
    const look = async () => {
      try {
        const res = await fetch(location.href, { cache: 'no-store', credentials: 'same-origin', headers: { accept: 'text/html' } });
        // Sent on (a resume link that has now resumed the journey: a link that works once): where it went, not this link again.
        if (res.redirected) return location.assign(res.url);
        const next = shown(new DOMParser().parseFromString(await res.text(), 'text/html'));
        if (next !== initial) return location.reload();
      } catch {
        // Offline for a moment: look again later.
      }
      setTimeout(look, seconds * 1000);
    };
    setTimeout(look, seconds * 1000);
  }
}
