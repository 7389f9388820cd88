/**
 * The script of every journey page with a form or that waits (layout.ts PAGE_SCRIPT), bundled for
 * the browser into assets.generated.ts (`npm run build:assets`): the sending state of a form that
 * is sent (sending.ts), and a waiting page that follows where the journey goes (follow.ts). An
 * enhancement: without it the forms are sent as they are and a waiting page reloads itself.
 */
import { resetSending, showSending } from './sending.js';
import { follow } from './follow.js';

// On the document, so it runs after a screen's own handler: a form its script holds back
// (a check failed, a passcode proof is being made) is not marked; that script marks it itself.
document.addEventListener('submit', (event) => {
  const form = event.target as HTMLFormElement;
  if (event.defaultPrevented) return;
  // Sent already: a second press sends nothing more.
  if (form.dataset.sending === 'true') {
    event.preventDefault();
    return;
  }
  showSending(form, (event as SubmitEvent).submitter);
});

// A page the back button brings back from the browser's cache is as it was when it was left.
window.addEventListener('pageshow', (event) => {
  if (event.persisted) for (const form of document.forms) resetSending(form);
});

// A page that waits for something elsewhere follows it.
follow();
