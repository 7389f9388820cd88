import type { DataForm, LocalizedText } from '../../statemachines/definition.js';
import { passcodeRules, type PasscodeRequirements } from '../identity-store/passcode-rules.js';

/** The text of a localized value in `lang`, falling back to its language, English, then any given. */
export function localized(text: LocalizedText | undefined, lang: string): string {
  if (!text) return '';
  const values = text.values as Record<string, string>;
  const base = lang.toLowerCase().split('-')[0]!;
  return values[lang] ?? values[base] ?? values.en ?? Object.values(values)[0] ?? '';
}

/**
 * The hosted journey pages, rendered on the server as plain HTML: no outside CDN, no script on
 * form pages, readable at phone width, every field labelled and reachable by keyboard.
 */

export const LANGUAGES = ['en', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The end user's language from `lang` (a regional tag falls back to its language), English otherwise. */
export function pickLanguage(lang: string | undefined): Language {
  const base = (lang ?? '').toLowerCase().split(/[-_]/)[0];
  return (LANGUAGES as readonly string[]).includes(base ?? '') ? (base as Language) : 'en';
}

const STRINGS = {
  en: {
    continue: 'Continue',
    errorSummary: 'Please correct the following:',
    required: 'required',
    doneTitle: 'Thank you',
    doneText: 'You have completed this journey. You can close this page.',
    doneReturn: 'Return to the website',
    goneTitle: 'This link no longer works',
    goneText: 'It has expired or is not valid. Ask the sender for a new link.',
    waitTitle: 'One moment',
    waitText: 'We are preparing the next step. This page refreshes by itself.',
    select: 'Choose…',
    troubleTitle: 'Something went wrong',
    troubleText: 'Please try again in a moment.',
    unsupportedTitle: 'This step cannot be completed here',
    unsupportedText: 'This part of the journey is not available in the browser yet. Please contact the sender.',
    faceTitle: 'A photo of your face',
    faceText: 'Look straight at the camera in good light, with your whole face in view and nothing covering it.',
    faceStartCamera: 'Use the camera',
    faceShoot: 'Take the photo',
    faceRetake: 'Take it again',
    faceFile: 'Or choose a photo of your face',
    faceFileHint: 'A JPEG or PNG image of at most 3 MB.',
    facePreview: 'Your photo',
    faceVideo: 'Camera view',
    faceCameraFailed: 'The camera could not be started. Choose a photo instead.',
    faceTaken: 'Photo taken. Continue to send it, or take it again.',
    face_missing: 'Take a photo or choose one.',
    face_tooLarge: 'The photo is larger than 3 MB. Choose a smaller one.',
    face_notAnImage: 'This file is not a JPEG or PNG image.',
    face_unreadable: 'This image could not be read. Take the photo again.',
    face_tooSmall: 'The photo is too small. Use a photo at least 240 pixels wide and high.',
    pcTitle: 'Choose a passcode',
    pcText: 'You will use it to confirm it is you. It stays on this device: only a proof made from it is sent.',
    pcNew: 'Passcode',
    pcConfirm: 'Passcode again',
    pcRules: 'Your passcode needs:',
    pcNoScript: 'This step needs JavaScript: your passcode is turned into a proof on your device and is never sent.',
    pcMismatch: 'The two passcodes are not the same.',
    pcUnmet: 'Your passcode does not meet every requirement yet.',
    pcReused: 'You have used this passcode before. Choose another one.',
    pcFailed: 'Your passcode could not be set. Please try again.',
    pcAuthTitle: 'Enter your passcode',
    pcAuthText: 'It stays on this device: only a proof made from it is sent.',
    pcWrong: 'That passcode is not right. Attempts left: {n}.',
    pcEmpty: 'Enter your passcode.',
    rule_minimumLength: 'at least {n} characters',
    rule_maximumLength: 'at most {n} characters',
    rule_digitCount: 'at least {n} digit(s)',
    rule_symbolCount: 'at least {n} symbol(s)',
    rule_lowerCaseCount: 'at least {n} lower case letter(s)',
    rule_upperCaseCount: 'at least {n} capital letter(s)',
    rule_characterVariety: 'at least {n} of: digits, symbols, lower case, capitals',
    pkRegTitle: 'Create a passkey',
    pkRegText: 'A passkey lets you sign in with your fingerprint, face or screen lock instead of a password. It stays on your device.',
    pkRegButton: 'Create a passkey',
    pkAuthTitle: 'Sign in with your passkey',
    pkAuthText: 'Use the fingerprint, face or screen lock of the device that holds your passkey.',
    pkAuthButton: 'Sign in with a passkey',
    pkUnsupported: 'This browser cannot use passkeys. Try another browser or device.',
    pkCancelled: 'The passkey was not used. You can try again.',
    pkFailed: 'That passkey could not be confirmed. Please try again.',
  },
  de: {
    continue: 'Weiter',
    errorSummary: 'Bitte korrigieren Sie Folgendes:',
    required: 'Pflichtfeld',
    doneTitle: 'Vielen Dank',
    doneText: 'Sie haben diesen Vorgang abgeschlossen. Sie können diese Seite schließen.',
    doneReturn: 'Zurück zur Website',
    goneTitle: 'Dieser Link funktioniert nicht mehr',
    goneText: 'Er ist abgelaufen oder ungültig. Bitten Sie den Absender um einen neuen Link.',
    waitTitle: 'Einen Moment',
    waitText: 'Wir bereiten den nächsten Schritt vor. Diese Seite aktualisiert sich selbst.',
    select: 'Bitte wählen…',
    troubleTitle: 'Etwas ist schiefgelaufen',
    troubleText: 'Bitte versuchen Sie es gleich noch einmal.',
    unsupportedTitle: 'Dieser Schritt ist hier nicht möglich',
    unsupportedText: 'Dieser Teil des Vorgangs ist im Browser noch nicht verfügbar. Bitte wenden Sie sich an den Absender.',
    faceTitle: 'Ein Foto Ihres Gesichts',
    faceText: 'Schauen Sie bei gutem Licht direkt in die Kamera, das ganze Gesicht im Bild und nichts davor.',
    faceStartCamera: 'Kamera verwenden',
    faceShoot: 'Foto aufnehmen',
    faceRetake: 'Noch einmal aufnehmen',
    faceFile: 'Oder wählen Sie ein Foto Ihres Gesichts',
    faceFileHint: 'Ein JPEG- oder PNG-Bild von höchstens 3 MB.',
    facePreview: 'Ihr Foto',
    faceVideo: 'Kamerabild',
    faceCameraFailed: 'Die Kamera konnte nicht gestartet werden. Wählen Sie stattdessen ein Foto.',
    faceTaken: 'Foto aufgenommen. Weiter sendet es, oder nehmen Sie es noch einmal auf.',
    face_missing: 'Nehmen Sie ein Foto auf oder wählen Sie eines.',
    face_tooLarge: 'Das Foto ist größer als 3 MB. Wählen Sie ein kleineres.',
    face_notAnImage: 'Diese Datei ist kein JPEG- oder PNG-Bild.',
    face_unreadable: 'Dieses Bild konnte nicht gelesen werden. Nehmen Sie das Foto noch einmal auf.',
    face_tooSmall: 'Das Foto ist zu klein. Verwenden Sie ein Foto von mindestens 240 Pixeln Breite und Höhe.',
    pcTitle: 'Wählen Sie einen Passcode',
    pcText: 'Damit bestätigen Sie, dass Sie es sind. Er bleibt auf diesem Gerät: gesendet wird nur ein daraus berechneter Nachweis.',
    pcNew: 'Passcode',
    pcConfirm: 'Passcode wiederholen',
    pcRules: 'Ihr Passcode braucht:',
    pcNoScript: 'Dieser Schritt braucht JavaScript: Ihr Passcode wird auf Ihrem Gerät in einen Nachweis umgerechnet und nie gesendet.',
    pcMismatch: 'Die beiden Passcodes stimmen nicht überein.',
    pcUnmet: 'Ihr Passcode erfüllt noch nicht alle Anforderungen.',
    pcReused: 'Diesen Passcode haben Sie schon verwendet. Wählen Sie einen anderen.',
    pcFailed: 'Ihr Passcode konnte nicht gesetzt werden. Bitte versuchen Sie es noch einmal.',
    pcAuthTitle: 'Geben Sie Ihren Passcode ein',
    pcAuthText: 'Er bleibt auf diesem Gerät: gesendet wird nur ein daraus berechneter Nachweis.',
    pcWrong: 'Dieser Passcode ist nicht richtig. Verbleibende Versuche: {n}.',
    pcEmpty: 'Geben Sie Ihren Passcode ein.',
    rule_minimumLength: 'mindestens {n} Zeichen',
    rule_maximumLength: 'höchstens {n} Zeichen',
    rule_digitCount: 'mindestens {n} Ziffer(n)',
    rule_symbolCount: 'mindestens {n} Sonderzeichen',
    rule_lowerCaseCount: 'mindestens {n} Kleinbuchstabe(n)',
    rule_upperCaseCount: 'mindestens {n} Großbuchstabe(n)',
    rule_characterVariety: 'mindestens {n} von: Ziffern, Sonderzeichen, Klein-, Großbuchstaben',
    pkRegTitle: 'Passkey erstellen',
    pkRegText: 'Mit einem Passkey melden Sie sich per Fingerabdruck, Gesicht oder Bildschirmsperre an statt mit einem Passwort. Er bleibt auf Ihrem Gerät.',
    pkRegButton: 'Passkey erstellen',
    pkAuthTitle: 'Mit Passkey anmelden',
    pkAuthText: 'Verwenden Sie Fingerabdruck, Gesicht oder Bildschirmsperre des Geräts mit Ihrem Passkey.',
    pkAuthButton: 'Mit Passkey anmelden',
    pkUnsupported: 'Dieser Browser kann keine Passkeys verwenden. Versuchen Sie einen anderen Browser oder ein anderes Gerät.',
    pkCancelled: 'Der Passkey wurde nicht verwendet. Sie können es noch einmal versuchen.',
    pkFailed: 'Dieser Passkey konnte nicht bestätigt werden. Bitte versuchen Sie es noch einmal.',
  },
} satisfies Record<Language, Record<string, string>>;

export function strings(lang: Language) {
  return STRINGS[lang];
}

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const CSS = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1f;background:#f4f5f7}
main{max-width:32rem;margin:0 auto;padding:1.25rem 1rem 3rem}
h1{font-size:1.5rem;margin:.5rem 0 .25rem}p.sub{color:#4a4d55;margin:0 0 1.25rem}
form{background:#fff;border-radius:.75rem;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.field{margin-bottom:1.1rem}label{display:block;font-weight:600;margin-bottom:.3rem}
input,select,textarea{width:100%;font:inherit;padding:.7rem .75rem;border:1px solid #8a8f98;border-radius:.5rem;background:#fff}
input[type=checkbox]{width:auto;margin-right:.5rem;transform:scale(1.3)}
.check label{display:flex;align-items:center;font-weight:400}
input:focus,select:focus,textarea:focus,button:focus,a:focus{outline:3px solid #2563eb;outline-offset:2px}
.invalid input,.invalid select,.invalid textarea{border-color:#b42318}
.error{color:#b42318;font-size:.95rem;margin-top:.3rem}
.summary{border:2px solid #b42318;border-radius:.5rem;padding:.75rem 1rem;margin-bottom:1rem;background:#fff5f4}
.summary a{color:#b42318}
button,.button{display:block;width:100%;font:inherit;font-weight:600;padding:.85rem;border:0;border-radius:.5rem;background:#1d4ed8;color:#fff;text-align:center;text-decoration:none;cursor:pointer}
.hint{color:#4a4d55;font-size:.9rem}
.camera{margin-bottom:1.1rem}.camera video,.camera img{display:block;width:100%;max-height:60vh;object-fit:cover;border-radius:.5rem;background:#111;margin-bottom:.6rem}
.camera .secondary{background:#fff;color:#1d4ed8;border:2px solid #1d4ed8;margin-bottom:.6rem}
.status{margin:.4rem 0 .8rem}[hidden]{display:none!important}
.rules{margin:.2rem 0 1.1rem;padding-left:0;list-style:none}.rules li{padding-left:1.6rem;position:relative;margin:.2rem 0}
.rules li::before{content:'○';position:absolute;left:.2rem;color:#4a4d55}.rules li[data-ok=true]::before{content:'✓';color:#067647;font-weight:700}`;

export function page(input: {
  lang: Language;
  title: string;
  body: string;
  /** Same-origin scripts the page loads (the journey pages' own; the CSP allows no others). */
  scripts?: string[];
  refreshSeconds?: number;
  redirect?: { seconds: number; url: string };
}): string {
  return `<!doctype html>
<html lang="${input.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${input.refreshSeconds ? `<meta http-equiv="refresh" content="${input.refreshSeconds}">` : ''}${
    input.redirect ? `<meta http-equiv="refresh" content="${input.redirect.seconds};url=${escapeHtml(input.redirect.url)}">` : ''
  }
<title>${escapeHtml(input.title)}</title>
<style>${CSS}</style>
${(input.scripts ?? []).map((src) => `<script src="${escapeHtml(src)}" defer></script>`).join('\n')}
</head>
<body>
<main>
${input.body}
</main>
</body>
</html>`;
}

function fieldHtml(c: DataForm['components'][number], lang: Language, value: string | undefined, error: string | undefined): string {
  const id = `f-${c.id}`;
  const label = escapeHtml(localized(c.label, lang));
  const required = c.validate?.required ? ' required aria-required="true"' : '';
  const invalid = error ? ` aria-invalid="true" aria-describedby="${id}-error"` : '';
  const errorHtml = error ? `<div class="error" id="${id}-error">${escapeHtml(error)}</div>` : '';
  const v = escapeHtml(value ?? '');
  if (c.type === 'checkbox') {
    const checked = value === 'on' || value === 'true' ? ' checked' : '';
    return `<div class="field check${error ? ' invalid' : ''}"><label for="${id}"><input type="checkbox" id="${id}" name="${c.id}"${checked}${required}${invalid}>${label}</label>${errorHtml}</div>`;
  }
  let control: string;
  const attrs = `id="${id}" name="${c.id}"${required}${invalid}`;
  if (c.type === 'textarea') {
    control = `<textarea ${attrs} rows="4">${v}</textarea>`;
  } else if (c.type === 'select') {
    const options = (c.options ?? [])
      .map((o) => `<option value="${escapeHtml(o.value)}"${o.value === value ? ' selected' : ''}>${escapeHtml(localized(o.label, lang))}</option>`)
      .join('');
    control = `<select ${attrs}><option value="">${escapeHtml(strings(lang).select)}</option>${options}</select>`;
  } else {
    const type = { email: 'email', phoneNumber: 'tel', number: 'number', date: 'date' }[c.type as string] ?? 'text';
    const auto = { email: ' autocomplete="email"', phoneNumber: ' autocomplete="tel"' }[c.type as string] ?? '';
    const max = c.validate?.maxLength ? ` maxlength="${c.validate.maxLength}"` : '';
    control = `<input type="${type}" ${attrs} value="${v}"${auto}${max}>`;
  }
  return `<div class="field${error ? ' invalid' : ''}"><label for="${id}">${label}</label>${control}${errorHtml}</div>`;
}

/** A data form step; after a refused submission, with the messages and the values as typed. */
export function renderDataForm(input: {
  form: DataForm;
  lang: Language;
  action: string;
  values: Record<string, string | undefined>;
  errors?: Record<string, string>;
}): string {
  const { form, lang, errors = {} } = input;
  const s = strings(lang);
  const errorIds = form.components.filter((c) => errors[c.id]).map((c) => c.id);
  const summary = errorIds.length
    ? `<div class="summary" role="alert" tabindex="-1"><p>${escapeHtml(s.errorSummary)}</p><ul>${errorIds
        .map((id) => `<li><a href="#f-${escapeHtml(id)}">${escapeHtml(errors[id])}</a></li>`)
        .join('')}</ul></div>`
    : '';
  const fields = form.components.map((c) => fieldHtml(c, lang, input.values[c.id], errors[c.id])).join('\n');
  const subtitle = form.subtitle ? `<p class="sub">${escapeHtml(localized(form.subtitle, lang))}</p>` : '';
  return page({
    lang,
    title: localized(form.title, lang),
    body: `<h1>${escapeHtml(localized(form.title, lang))}</h1>${subtitle}
<form method="post" action="${escapeHtml(input.action)}" novalidate>
${summary}
${fields}
<button type="submit">${escapeHtml(s.continue)}</button>
</form>`,
  });
}

/**
 * The Capture Face Image step. Without script it is a file upload (`capture="user"` opens the
 * front camera on phones); with script, the page also offers the camera in the page: the
 * photo taken goes into the same file field, so one form post carries either.
 */
export function renderFaceCapture(input: { lang: Language; action: string; maxBytes: number; error?: string }): string {
  const s = strings(input.lang);
  const message = input.error ? escapeHtml(s[`face_${input.error}` as keyof typeof s] ?? s.face_unreadable) : '';
  const summary = input.error
    ? `<div class="summary" role="alert" tabindex="-1"><p>${escapeHtml(s.errorSummary)}</p><ul><li><a href="#face-file">${message}</a></li></ul></div>`
    : '';
  return page({
    lang: input.lang,
    title: s.faceTitle,
    scripts: ['/journey/assets/face-capture.js'],
    body: `<h1>${escapeHtml(s.faceTitle)}</h1><p class="sub">${escapeHtml(s.faceText)}</p>
<form method="post" action="${escapeHtml(input.action)}" enctype="multipart/form-data" id="face-form" data-max-bytes="${input.maxBytes}" novalidate>
${summary}
<div class="camera" id="face-camera" hidden>
<button type="button" class="secondary" id="face-start">${escapeHtml(s.faceStartCamera)}</button>
<video id="face-video" autoplay playsinline muted aria-label="${escapeHtml(s.faceVideo)}" hidden></video>
<img id="face-preview" alt="${escapeHtml(s.facePreview)}" hidden>
<button type="button" class="secondary" id="face-shoot" hidden>${escapeHtml(s.faceShoot)}</button>
<button type="button" class="secondary" id="face-retake" hidden>${escapeHtml(s.faceRetake)}</button>
<p class="status" id="face-status" role="status" aria-live="polite" data-failed="${escapeHtml(s.faceCameraFailed)}" data-taken="${escapeHtml(s.faceTaken)}"></p>
</div>
<div class="field${input.error ? ' invalid' : ''}"><label for="face-file">${escapeHtml(s.faceFile)}</label>
<input type="file" id="face-file" name="image" accept="image/jpeg,image/png" capture="user" aria-describedby="face-file-hint${input.error ? ' face-file-error' : ''}"${input.error ? ' aria-invalid="true"' : ''}>
<div class="hint" id="face-file-hint">${escapeHtml(s.faceFileHint)}</div>
${input.error ? `<div class="error" id="face-file-error">${message}</div>` : ''}</div>
<button type="submit">${escapeHtml(s.continue)}</button>
</form>`,
  });
}

/** A message with its `{n}` filled in. */
function fill(text: string, n: number | undefined): string {
  return n === undefined ? text : text.replace('{n}', String(n));
}

function errorSummary(lang: Language, message: string | undefined, target: string): string {
  if (!message) return '';
  return `<div class="summary" role="alert" tabindex="-1" id="pc-summary"><p>${escapeHtml(strings(lang).errorSummary)}</p><ul><li><a href="#${target}">${escapeHtml(message)}</a></li></ul></div>`;
}

/**
 * The passcode registration screen. The passcode fields have no name: the browser never sends
 * them. The page's script checks the policy's rules as the end user types (each rule is a list
 * item the script marks met) and sends only the SRP verifier (and, under a history rule, the
 * new passcode's verifier under each earlier salt). Without script the step cannot be done,
 * and the page says so.
 */
export function renderPasscodeRegistration(input: {
  lang: Language;
  action: string;
  srp: Record<string, unknown>;
  requirements: PasscodeRequirements;
  error?: 'reused' | 'failed';
}): string {
  const s = strings(input.lang);
  const rules = passcodeRules('', input.requirements)
    .map((r) => {
      const text = r.message ?? fill(s[`rule_${r.id}` as keyof typeof s] ?? r.id, r.count);
      return `<li data-rule="${escapeHtml(r.id)}" data-ok="false">${escapeHtml(text)}</li>`;
    })
    .join('');
  const message = input.error === 'reused' ? s.pcReused : input.error ? s.pcFailed : undefined;
  return page({
    lang: input.lang,
    title: s.pcTitle,
    scripts: ['/journey/assets/passcode.js'],
    body: `<h1>${escapeHtml(s.pcTitle)}</h1><p class="sub">${escapeHtml(s.pcText)}</p>
<form method="post" action="${escapeHtml(input.action)}" id="passcode-form" data-mode="register" data-srp="${escapeHtml(JSON.stringify(input.srp))}" data-requirements="${escapeHtml(JSON.stringify(input.requirements))}" data-msg-mismatch="${escapeHtml(s.pcMismatch)}" data-msg-unmet="${escapeHtml(s.pcUnmet)}" data-msg-summary="${escapeHtml(s.errorSummary)}" novalidate>
<noscript><div class="summary">${escapeHtml(s.pcNoScript)}</div></noscript>
${errorSummary(input.lang, message, 'pc-new')}
<div class="field"><label for="pc-new">${escapeHtml(s.pcNew)}</label><input type="password" id="pc-new" autocomplete="new-password" aria-describedby="pc-rules-title"></div>
<p class="hint" id="pc-rules-title">${escapeHtml(s.pcRules)}</p>
<ul class="rules" id="pc-rules" aria-live="polite">${rules}</ul>
<div class="field"><label for="pc-confirm">${escapeHtml(s.pcConfirm)}</label><input type="password" id="pc-confirm" autocomplete="new-password"></div>
<input type="hidden" name="verifier" value="">
<input type="hidden" name="historyVerifiers" value="">
<button type="submit">${escapeHtml(s.continue)}</button>
</form>`,
  });
}

/** The passcode authentication screen: the script proves the passcode with the SRP handshake (A, M1). */
export function renderPasscodeAuthentication(input: {
  lang: Language;
  action: string;
  challenge: Record<string, unknown> & { attemptsLeft: number };
  wrong?: boolean;
}): string {
  const s = strings(input.lang);
  return page({
    lang: input.lang,
    title: s.pcAuthTitle,
    scripts: ['/journey/assets/passcode.js'],
    body: `<h1>${escapeHtml(s.pcAuthTitle)}</h1><p class="sub">${escapeHtml(s.pcAuthText)}</p>
<form method="post" action="${escapeHtml(input.action)}" id="passcode-form" data-mode="authenticate" data-srp="${escapeHtml(JSON.stringify(input.challenge))}" data-msg-empty="${escapeHtml(s.pcEmpty)}" data-msg-summary="${escapeHtml(s.errorSummary)}" novalidate>
<noscript><div class="summary">${escapeHtml(s.pcNoScript)}</div></noscript>
${errorSummary(input.lang, input.wrong ? fill(s.pcWrong, input.challenge.attemptsLeft) : undefined, 'pc-current')}
<div class="field"><label for="pc-current">${escapeHtml(s.pcNew)}</label><input type="password" id="pc-current" autocomplete="current-password"></div>
<input type="hidden" name="A" value="">
<input type="hidden" name="M1" value="">
<button type="submit">${escapeHtml(s.continue)}</button>
</form>`,
  });
}

/**
 * A passkey screen: when the end user presses the button, the page's script gets a ceremony
 * (its id and WebAuthn options) from `optionsUrl`, runs it in the browser
 * (@simplewebauthn/browser), and posts the browser's response with the ceremony's id.
 */
export function renderPasskey(input: { lang: Language; mode: 'register' | 'authenticate'; action: string; optionsUrl: string; failed?: boolean }): string {
  const s = strings(input.lang);
  const [title, text, button] = input.mode === 'register' ? [s.pkRegTitle, s.pkRegText, s.pkRegButton] : [s.pkAuthTitle, s.pkAuthText, s.pkAuthButton];
  return page({
    lang: input.lang,
    title,
    scripts: ['/journey/assets/passkey.js'],
    body: `<h1>${escapeHtml(title)}</h1><p class="sub">${escapeHtml(text)}</p>
<form method="post" action="${escapeHtml(input.action)}" id="passkey-form" data-mode="${input.mode}" data-options-url="${escapeHtml(input.optionsUrl)}" data-msg-unsupported="${escapeHtml(s.pkUnsupported)}" data-msg-cancelled="${escapeHtml(s.pkCancelled)}" novalidate>
<noscript><div class="summary">${escapeHtml(s.pkUnsupported)}</div></noscript>
${input.failed ? `<div class="summary" role="alert" tabindex="-1" id="pk-summary"><p>${escapeHtml(s.pkFailed)}</p></div>` : ''}
<p class="status" id="pk-status" role="status" aria-live="polite"></p>
<input type="hidden" name="sessionId" value="">
<input type="hidden" name="response" value="">
<button type="submit">${escapeHtml(button)}</button>
</form>`,
  });
}

/** The end: a clear final page, and on to the relying party's `_redirectUrl` when it gave one. */
export function renderDone(input: { lang: Language; redirectUrl?: string | undefined }): string {
  const s = strings(input.lang);
  const back = input.redirectUrl ? `<p><a class="button" href="${escapeHtml(input.redirectUrl)}">${escapeHtml(s.doneReturn)}</a></p>` : '';
  return page({
    lang: input.lang,
    title: s.doneTitle,
    ...(input.redirectUrl ? { redirect: { seconds: 3, url: input.redirectUrl } } : {}),
    body: `<h1>${escapeHtml(s.doneTitle)}</h1><p>${escapeHtml(s.doneText)}</p>${back}`,
  });
}

export function renderTrouble(lang: Language): string {
  const s = strings(lang);
  return page({ lang, title: s.troubleTitle, body: `<h1>${escapeHtml(s.troubleTitle)}</h1><p>${escapeHtml(s.troubleText)}</p>` });
}

/** A user step these pages cannot run yet (face capture, passcode, push wait: coming next). */
export function renderUnsupported(lang: Language): string {
  const s = strings(lang);
  return page({ lang, title: s.unsupportedTitle, body: `<h1>${escapeHtml(s.unsupportedTitle)}</h1><p>${escapeHtml(s.unsupportedText)}</p>` });
}

export function renderGone(lang: Language): string {
  const s = strings(lang);
  return page({ lang, title: s.goneTitle, body: `<h1>${escapeHtml(s.goneTitle)}</h1><p>${escapeHtml(s.goneText)}</p>` });
}

export function renderWaiting(lang: Language): string {
  const s = strings(lang);
  return page({ lang, title: s.waitTitle, refreshSeconds: 2, body: `<h1>${escapeHtml(s.waitTitle)}</h1><p>${escapeHtml(s.waitText)}</p>` });
}
