import type { DataForm, LocalizedText } from '../../statemachines/definition.js';

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
.status{margin:.4rem 0 .8rem}[hidden]{display:none!important}`;

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
