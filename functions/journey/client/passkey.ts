/**
 * The passkey screens' script, bundled for the browser into assets.generated.ts (`npm run
 * build:assets`): on the button, the service starts a ceremony (a POST to the screen's options
 * URL, same origin), the browser runs it (@simplewebauthn/browser), and the form posts the
 * browser's response with the ceremony's id.
 */
import { showSending } from './sending.js';
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '@simplewebauthn/browser';

const form = document.getElementById('passkey-form') as HTMLFormElement | null;
if (form) {
  const status = document.getElementById('pk-status')!;
  const button = form.querySelector('button[type=submit]') as HTMLButtonElement;
  const response = form.querySelector('input[name=response]') as HTMLInputElement;
  const sessionId = form.querySelector('input[name=sessionId]') as HTMLInputElement;
  if (!browserSupportsWebAuthn()) {
    status.textContent = form.dataset.msgUnsupported ?? '';
    button.disabled = true;
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    button.disabled = true;
    status.textContent = '';
    fetch(form.dataset.optionsUrl ?? '', { method: 'POST', credentials: 'same-origin' })
      .then((res) => {
        if (!res.ok) throw new Error(`options: ${res.status}`);
        return res.json() as Promise<{ sessionId: string; publicKey: Parameters<typeof startRegistration>[0]['optionsJSON'] & Parameters<typeof startAuthentication>[0]['optionsJSON'] }>;
      })
      .then((started): Promise<unknown> => {
        sessionId.value = started.sessionId;
        return form.dataset.mode === 'register' ? startRegistration({ optionsJSON: started.publicKey }) : startAuthentication({ optionsJSON: started.publicKey });
      })
      .then((result) => {
        response.value = JSON.stringify(result);
        showSending(form);
        form.submit();
      })
      .catch(() => {
        // Cancelled, timed out, or refused by the authenticator: the same challenge may be tried again.
        status.textContent = form.dataset.msgCancelled ?? '';
        button.disabled = false;
      });
  });
}
