/**
 * The passcode screens' script, bundled for the browser into assets.generated.ts (`npm run
 * build:assets`). The passcode stays in this page: registration sends only the SRP verifier
 * v = g^x (and, under a history rule, the new passcode's verifier under each earlier salt);
 * authentication sends only A and M1 of the SRP handshake. The policy's rules are checked as
 * the end user types, by the same module the service documents them with.
 */
import { clientLogin, clientRegistration } from '../../identity-store/passcodes/srp-client.js';
import { showSending } from './sending.js';
import { passcodeRules, type PasscodeRequirements } from '../../identity-store/passcodes/passcode-rules.js';

interface SrpParameters {
  identity: string;
  salt: string;
  historySalts?: string[];
  B?: string;
}

const form = document.getElementById('passcode-form') as HTMLFormElement | null;
if (form) {
  const srp = JSON.parse(form.dataset.srp ?? '{}') as SrpParameters;
  const button = form.querySelector('button[type=submit]') as HTMLButtonElement;
  const field = (name: string) => form.querySelector(`input[name=${name}]`) as HTMLInputElement;

  const showError = (message: string, focus: HTMLElement) => {
    let box = document.getElementById('pc-summary');
    if (!box) {
      box = document.createElement('div');
      box.id = 'pc-summary';
      box.className = 'summary';
      box.setAttribute('role', 'alert');
      box.tabIndex = -1;
      form.insertBefore(box, form.querySelector('.field'));
    }
    box.textContent = '';
    const p = document.createElement('p');
    p.textContent = message;
    box.appendChild(p);
    focus.focus();
  };

  if (form.dataset.mode === 'register') {
    const requirements = JSON.parse(form.dataset.requirements ?? '{}') as PasscodeRequirements;
    const passcode = document.getElementById('pc-new') as HTMLInputElement;
    const confirm = document.getElementById('pc-confirm') as HTMLInputElement;
    const items = new Map([...form.querySelectorAll<HTMLLIElement>('#pc-rules li')].map((li) => [li.dataset.rule!, li]));
    const check = () => {
      const rules = passcodeRules(passcode.value, requirements);
      for (const rule of rules) items.get(rule.id)?.setAttribute('data-ok', String(rule.ok));
      return rules.every((r) => r.ok);
    };
    passcode.addEventListener('input', check);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      if (!check()) return showError(form.dataset.msgUnmet ?? '', passcode);
      if (passcode.value !== confirm.value) return showError(form.dataset.msgMismatch ?? '', confirm);
      button.disabled = true;
      const password = passcode.value;
      Promise.all([
        clientRegistration({ identity: srp.identity, password, salt: srp.salt }),
        Promise.all((srp.historySalts ?? []).map((salt) => clientRegistration({ identity: srp.identity, password, salt }))),
      ])
        .then(([verifier, history]) => {
          field('verifier').value = verifier;
          field('historyVerifiers').value = history.join(',');
          passcode.value = '';
          confirm.value = '';
          showSending(form);
          form.submit();
        })
        .catch(() => {
          button.disabled = false;
        });
    });
  } else {
    const passcode = document.getElementById('pc-current') as HTMLInputElement;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      if (!passcode.value) return showError(form.dataset.msgEmpty ?? '', passcode);
      button.disabled = true;
      clientLogin({ identity: srp.identity, password: passcode.value, salt: srp.salt, B: srp.B ?? '' })
        .then(({ A, M1 }) => {
          field('A').value = A;
          field('M1').value = M1;
          passcode.value = '';
          showSending(form);
          form.submit();
        })
        .catch(() => {
          button.disabled = false;
        });
    });
  }
}
