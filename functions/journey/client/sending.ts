/**
 * The sending state of a journey page's form, shared by the pages' scripts: once a form is sent,
 * its submit buttons are disabled and the one pressed says "Sending…" (the page's
 * `data-sending`), and the form is `aria-busy`, until the next page comes. A face photo over a
 * slow link takes seconds: the end user sees it is on its way, and cannot send it twice.
 */
const BUTTONS = 'button[type=submit],button:not([type])';

export function showSending(form: HTMLFormElement, submitter?: HTMLElement | null): void {
  const buttons = [...form.querySelectorAll<HTMLButtonElement>(BUTTONS)];
  const pressed = (submitter instanceof HTMLButtonElement ? submitter : undefined) ?? buttons[0];
  form.setAttribute('aria-busy', 'true');
  form.dataset.sending = 'true';
  if (pressed) {
    pressed.dataset.label = pressed.textContent ?? '';
    pressed.textContent = document.body.dataset.sending ?? pressed.textContent;
    pressed.setAttribute('aria-busy', 'true');
  }
  // Disabled after the browser has read the form: a disabled submitter's name and value would
  // not be sent (the Retake and preview buttons carry one).
  setTimeout(() => {
    for (const b of buttons) b.disabled = true;
  }, 0);
}

/** Back to what it was: the page came back from the browser's cache (the back button), or a script's sending failed. */
export function resetSending(form: HTMLFormElement): void {
  form.removeAttribute('aria-busy');
  delete form.dataset.sending;
  for (const b of form.querySelectorAll<HTMLButtonElement>(BUTTONS)) {
    b.disabled = false;
    b.removeAttribute('aria-busy');
    if (b.dataset.label !== undefined) {
      b.textContent = b.dataset.label;
      delete b.dataset.label;
    }
  }
}
