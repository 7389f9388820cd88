/**
 * The data form pages' script, bundled for the browser into assets.generated.ts (`npm run
 * build:assets`), loaded only by a page whose form has a notification to close or a timed one
 * (screens/data-form.ts). An enhancement: without it every notification stays shown. A
 * notification's close button (rendered `hidden`) is shown and hides the notification; one with
 * `data-note-timer` hides itself after that many seconds. Hiding moves the focus on to the next
 * field when the button had it, so the keyboard is never left on nothing.
 */
const FOCUSABLE = 'input:not([type=hidden]):not([disabled]),select:not([disabled]),textarea:not([disabled]),button:not([disabled]),a[href]';

function hide(note: HTMLElement): void {
  const hadFocus = note.contains(document.activeElement);
  note.hidden = true;
  if (!hadFocus) return;
  const next = [...document.querySelectorAll<HTMLElement>(FOCUSABLE)].find(
    (el) => !note.contains(el) && !el.hidden && note.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING,
  );
  next?.focus();
}

for (const note of document.querySelectorAll<HTMLElement>('[data-note]')) {
  const close = note.querySelector<HTMLButtonElement>('[data-note-close]');
  if (close) {
    close.hidden = false;
    close.addEventListener('click', () => hide(note));
  }
  const seconds = Number(note.dataset.noteTimer);
  if (Number.isFinite(seconds) && seconds > 0) setTimeout(() => hide(note), seconds * 1000);
}
