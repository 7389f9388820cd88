/**
 * The passkey screens' script, bundled for the browser into assets.generated.ts (`npm run
 * build:assets`): on the button, the WebAuthn ceremony runs with the options the service made
 * (@simplewebauthn/browser), and the form posts the browser's response with the ceremony's id.
 */
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '@simplewebauthn/browser';

const form = document.getElementById('passkey-form') as HTMLFormElement | null;
if (form) {
  const status = document.getElementById('pk-status')!;
  const button = form.querySelector('button[type=submit]') as HTMLButtonElement;
  const response = form.querySelector('input[name=response]') as HTMLInputElement;
  if (!browserSupportsWebAuthn()) {
    status.textContent = form.dataset.msgUnsupported ?? '';
    button.disabled = true;
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    button.disabled = true;
    status.textContent = '';
    const optionsJSON = JSON.parse(form.dataset.options ?? '{}');
    const ceremony = form.dataset.mode === 'register' ? startRegistration({ optionsJSON }) : startAuthentication({ optionsJSON });
    ceremony
      .then((result) => {
        response.value = JSON.stringify(result);
        form.submit();
      })
      .catch(() => {
        // Cancelled, timed out, or refused by the authenticator: the same challenge may be tried again.
        status.textContent = form.dataset.msgCancelled ?? '';
        button.disabled = false;
      });
  });
}
