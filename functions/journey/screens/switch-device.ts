import { escapeHtml, page, type PageChrome } from '../layout.js';
import { messages, type Language } from '../messages/index.js';
import { qrCodeSvg } from '../qr-code.js';

/**
 * The pages of a Switch Device step (functions/activities/switch-device.ts) and of a device that
 * follows a journey another device holds (functions/journey/devices.ts). They poll by reloading
 * themselves (`<meta http-equiv="refresh">`): no script, nothing the pages' CSP refuses.
 */

/** How often a page that waits for the other device reloads, in seconds. */
export const FOLLOW_SECONDS = 3;
/** How often the page with the QR code reloads, to move on once a phone has opened the link. */
export const QR_PAGE_SECONDS = 4;

interface SwitchTexts {
  phoneTitle: string;
  phoneText: string;
  phoneSteps: readonly [string, string, string];
  scanTitle: string;
  qrLabel: string;
  linkIntro: string;
  linkNote: string;
  followPhoneTitle: string;
  followPhoneText: string;
  followComputerTitle: string;
  followComputerText: string;
  backTitle: string;
  backText: string;
  hereTitle: string;
  hereText: string;
  notHereTitle: string;
  notHereText: string;
  toJourney: string;
}

/** The texts of these pages in every language of the journey pages (a language added there must be added here). */
const TEXTS = {
  en: {
    phoneTitle: 'Continue on your phone',
    phoneText: 'The next steps are easier on a phone. Move this journey to yours:',
    phoneSteps: [
      'Open the camera on your phone and point it at the code below.',
      'Open the link it shows: the journey continues on your phone.',
      'Keep this page open. It follows your phone and moves on by itself.',
    ],
    scanTitle: 'Scan the code',
    qrLabel: 'QR code of the link that continues this journey on your phone',
    linkIntro: 'No camera? Open this link on your phone:',
    linkNote: 'The link works once, and only while this step is open. Do not share it.',
    followPhoneTitle: 'Continue on your phone',
    followPhoneText: 'This journey is on your phone now. This page follows it and moves on by itself when you are done there.',
    followComputerTitle: 'Continue on your computer',
    followComputerText: 'This journey is back on your computer. Continue there; you can close this page.',
    backTitle: 'Go back to your computer',
    backText: 'Continue on the computer where you started: its page takes the journey back by itself. You can close this page.',
    hereTitle: 'Continue on this device',
    hereText: 'This journey has not been on another device, so there is nothing to move back: continue here.',
    notHereTitle: 'This step moves on by itself',
    notHereText: 'Nothing needs to be sent for it.',
    toJourney: 'Back to the journey',
  },
  de: {
    phoneTitle: 'Auf dem Smartphone fortfahren',
    phoneText: 'Die nächsten Schritte gehen auf einem Smartphone leichter. Setzen Sie sie dort fort:',
    phoneSteps: [
      'Öffnen Sie die Kamera Ihres Smartphones und richten Sie sie auf den Code unten.',
      'Öffnen Sie den Link, den sie anzeigt: Es geht auf dem Smartphone weiter.',
      'Lassen Sie diese Seite geöffnet. Sie folgt dem Smartphone und geht von selbst weiter.',
    ],
    scanTitle: 'Code scannen',
    qrLabel: 'QR-Code des Links, mit dem es auf Ihrem Smartphone weitergeht',
    linkIntro: 'Keine Kamera? Öffnen Sie diesen Link auf Ihrem Smartphone:',
    linkNote: 'Der Link funktioniert einmal und nur, solange dieser Schritt offen ist. Geben Sie ihn nicht weiter.',
    followPhoneTitle: 'Weiter auf dem Smartphone',
    followPhoneText: 'Es geht jetzt auf Ihrem Smartphone weiter. Diese Seite folgt ihm und geht von selbst weiter, wenn Sie dort fertig sind.',
    followComputerTitle: 'Weiter am Computer',
    followComputerText: 'Es geht wieder an Ihrem Computer weiter. Fahren Sie dort fort; diese Seite können Sie schließen.',
    backTitle: 'Zurück zum Computer',
    backText: 'Fahren Sie an dem Computer fort, an dem Sie begonnen haben: Seine Seite übernimmt von selbst. Diese Seite können Sie schließen.',
    hereTitle: 'Auf diesem Gerät fortfahren',
    hereText: 'Sie waren auf keinem anderen Gerät, es gibt also nichts zurückzuholen: Fahren Sie hier fort.',
    notHereTitle: 'Dieser Schritt geht von selbst weiter',
    notHereText: 'Hier muss nichts gesendet werden.',
    toJourney: 'Zurück zum Vorgang',
  },
} as const satisfies Record<Language, SwitchTexts>;

/** A page of one heading and one paragraph (and what `after` adds), marked with the screen it is, in the journey's chrome. */
function notice(lang: Language, screen: string, title: string, text: string, options: { refresh?: number; after?: string; chrome?: PageChrome | undefined } = {}): string {
  return page({
    lang,
    title,
    chrome: options.chrome,
    ...(options.refresh ? { refresh: { seconds: options.refresh } } : {}),
    body: `<div data-screen="${escapeHtml(screen)}"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${options.after ?? ''}</div>`,
  });
}

/**
 * The computer's page of a step to a phone: the instructions, then the QR code of the switch
 * link and the link itself (the `instructions` and `scan-qr` screens, on one page). It reloads
 * itself, and once a phone has opened the link it shows the following page instead.
 */
export function renderSwitchToPhone(input: { lang: Language; link: string; chrome?: PageChrome | undefined }): string {
  const t = TEXTS[input.lang];
  return page({
    lang: input.lang,
    chrome: input.chrome,
    title: t.phoneTitle,
    refresh: { seconds: QR_PAGE_SECONDS },
    body: `<div data-screen="scan-qr"><h1>${escapeHtml(t.phoneTitle)}</h1>
<section id="instructions"><p class="sub">${escapeHtml(t.phoneText)}</p>
<ol>${t.phoneSteps.map((s) => `<li>${escapeHtml(s)}</li>`).join('')}</ol></section>
<section id="scan-qr" aria-labelledby="scan-qr-title"><h2 id="scan-qr-title">${escapeHtml(t.scanTitle)}</h2>
${qrCodeSvg(input.link, t.qrLabel)}
<p>${escapeHtml(t.linkIntro)}<br><a id="switch-link" href="${escapeHtml(input.link)}">${escapeHtml(input.link)}</a></p>
<p class="hint">${escapeHtml(t.linkNote)}</p></section></div>`,
  });
}

/**
 * A device that does not hold the journey (the `mobile-switch-status` screen): where the journey
 * is, reloading itself until it ends or comes back.
 */
export function renderSwitchFollow(lang: Language, on: 'phone' | 'computer', chrome?: PageChrome): string {
  const t = TEXTS[lang];
  return on === 'phone'
    ? notice(lang, 'mobile-switch-status', t.followPhoneTitle, t.followPhoneText, { refresh: FOLLOW_SECONDS, chrome })
    : notice(lang, 'mobile-switch-status', t.followComputerTitle, t.followComputerText, { refresh: FOLLOW_SECONDS, chrome });
}

/** The phone's page of a step back to the computer (`switch-to-desktop`): go back; it reloads itself until the computer took over. */
export function renderSwitchBack(lang: Language, chrome?: PageChrome): string {
  const t = TEXTS[lang];
  return notice(lang, 'switch-to-desktop', t.backTitle, t.backText, { refresh: FOLLOW_SECONDS, chrome });
}

/** A step back to the computer on a journey that has been on one device only: a button goes on, here. */
export function renderSwitchHere(lang: Language, action: string, chrome?: PageChrome): string {
  const t = TEXTS[lang];
  return notice(lang, 'switch-to-desktop', t.hereTitle, t.hereText, {
    chrome,
    after: `<form method="post" action="${escapeHtml(action)}"><button type="submit">${escapeHtml(messages(lang).continue)}</button></form>`,
  });
}

/** A post to a Switch Device step that nothing completes by a post: back to the journey page. */
export function renderSwitchNotHere(lang: Language, journey: string, chrome?: PageChrome): string {
  const t = TEXTS[lang];
  return notice(lang, 'switch-device', t.notHereTitle, t.notHereText, { chrome, after: `<p><a class="button" href="${escapeHtml(journey)}">${escapeHtml(t.toJourney)}</a></p>` });
}
