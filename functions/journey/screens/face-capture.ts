import { createHash } from 'node:crypto';
import { isHttpsUrl } from '../../../statemachines/presentation.js';
import { errorSummary, escapeHtml, page, type PageChrome, type SummaryError } from '../layout.js';
import { messages, type Language, type Messages } from '../messages/index.js';

/** The notice's wording version: a change of its text (messages consentText) is a new version, so a kept consent says which it agreed to. */
export const FACE_NOTICE_VERSION = 'face-capture-notice/1';

/** The multipart fields beside `image`: the consent box, and the mark the page's script sets on a camera photo. */
export const CONSENT_FIELD = 'consent';
export const SOURCE_FIELD = 'source';
/** The field naming a Rekognition Face Liveness session (Liveness Check REKOGNITION). */
export const LIVENESS_SESSION_FIELD = 'livenessSession';

/** What the notice before a face capture names: who receives the image, how long it is kept, where the relying party's notice is. */
export interface FaceNotice {
  /** The relying party's name (the definition's presentation); absent: "the organisation that sent you this link". */
  recipient?: string | undefined;
  retentionDays: number;
  privacyUrl?: string | undefined;
  /** The end user must tick the box before the camera or a file is offered (Require Consent). */
  required: boolean;
}

/** The notice's words in `lang`: what the page shows and what a kept consent's hash is of. */
export function faceNoticeText(lang: Language, notice: FaceNotice): string {
  const s = messages(lang);
  return s.consentText.replace('{recipient}', notice.recipient ?? s.consentRecipient).replace('{days}', String(notice.retentionDays));
}

/** What is kept of a notice shown, with the step's user data: its version, language and the SHA-256 of its words. */
export function noticeRecord(lang: Language, notice: FaceNotice): { noticeVersion: string; language: Language; noticeSha256: string } {
  return { noticeVersion: FACE_NOTICE_VERSION, language: lang, noticeSha256: createHash('sha256').update(faceNoticeText(lang, notice)).digest('hex') };
}

/** A refusal's words (one without a message of its own reads as unreadable), with the attempts left where it names them. */
function problemText(s: Messages, error: string | undefined, attemptsLeft: number | undefined): string {
  return error ? (s[`face_${error}` as keyof Messages] ?? s.face_unreadable).replace('{n}', String(attemptsLeft ?? '')) : '';
}

function noticeHtml(lang: Language, s: Messages, notice: FaceNotice): string {
  const privacy =
    notice.privacyUrl && isHttpsUrl(notice.privacyUrl)
      ? `<p><a href="${escapeHtml(notice.privacyUrl)}" rel="noreferrer">${escapeHtml(notice.recipient ? s.consentPrivacy.replace('{recipient}', notice.recipient) : s.consentPrivacyUnnamed)}</a></p>`
      : '';
  const box = notice.required
    ? `<div class="field check"><label for="face-consent"><input type="checkbox" id="face-consent" name="${CONSENT_FIELD}" value="yes" required aria-required="true" aria-describedby="consent-hint">${escapeHtml(s.consentAgree)}</label></div>
<p class="hint" id="consent-hint">${escapeHtml(s.consentNeeded)}</p>`
    : '';
  return `<section class="consent" aria-labelledby="consent-title"><h2 id="consent-title">${escapeHtml(s.consentTitle)}</h2><p id="consent-text">${escapeHtml(faceNoticeText(lang, notice))}</p>${privacy}${box}</section>`;
}

/**
 * The Capture Face Image step. A notice comes first: who receives the image, why and for how
 * long (and, under Require Consent, a box to tick: until it is ticked the page's style hides the
 * camera and the file field, and the server refuses a photo sent without it). Without script the
 * capture is a file upload (`capture="user"` opens the front camera on phones); with script, the
 * page also offers the camera in the page, and the photo taken goes into the same file field, so
 * one form post carries either. Under Require Live Camera no file can be chosen: the page needs
 * its script and a camera.
 */
export function renderFaceCapture(input: {
  lang: Language;
  action: string;
  maxBytes: number;
  format?: 'JPEG' | 'PNG';
  /** What the page asks the camera for, and how long it keeps it on without a photo (the step's inputs). */
  camera?: { width: number; height: number; timeoutSeconds: number };
  notice: FaceNotice;
  liveOnly?: boolean;
  /** Why the last photo was refused: an ImageProblem or FaceProblem (face-capture.ts, faces/quality.ts), `consentMissing` or `liveOnly`. */
  error?: string;
  /** The refusal's stable code (CONSENT_REQUIRED, FACE_UPLOAD_NOT_ALLOWED, FACE_IMAGE_REFUSED), on the form for tests and support. */
  code?: string | undefined;
  chrome?: PageChrome | undefined;
  /** After a Face Liveness failure led back here: how many attempts are left (the message `livenessFailed` says it). */
  attemptsLeft?: number | undefined;
  /** Liveness Check ACTIVE: where the page asks for its challenge, and whether it offers another way (Offer Another Way). */
  challenge?: { url: string; offerAnotherWay: boolean } | undefined;
  /** Liveness Check REKOGNITION: where the page starts its session, whether the screen flashes colours, and Offer Another Way. */
  rekognition?: { url: string; flashing: boolean; offerAnotherWay: boolean } | undefined;
}): string {
  if (input.rekognition) return renderRekognition({ ...input, rekognition: input.rekognition });
  if (input.challenge) return renderChallenge({ ...input, challenge: input.challenge });
  const { lang, error, notice } = input;
  const liveOnly = input.liveOnly === true;
  const s = messages(input.lang);
  const problem = problemText(s, error, input.attemptsLeft);
  const consentError = error === 'consentMissing';
  const fileError = error && !consentError;
  const target = consentError ? 'face-consent' : liveOnly ? 'face-start' : 'face-file';
  const summary = errorSummary(lang, error ? [[target, problem, consentError ? s.consentField : s.facePhoto] satisfies SummaryError] : []);
  const fileField = liveOnly
    ? // The camera's photo is placed here by the script; nothing to choose.
      `<input type="file" id="face-file" name="image" accept="image/jpeg,image/png" hidden tabindex="-1" aria-hidden="true">
<p class="hint" id="face-live-only">${escapeHtml(s.faceLiveOnly)}</p><noscript><div class="summary">${escapeHtml(s.faceNoCamera)}</div></noscript>
${fileError ? `<div class="error" id="face-file-error">${escapeHtml(problem)}</div>` : ''}`
    : `<div class="field${fileError ? ' invalid' : ''}"><label for="face-file">${escapeHtml(s.faceFile)}</label>
<input type="file" id="face-file" name="image" accept="image/jpeg,image/png" capture="user" aria-describedby="face-file-hint${fileError ? ' face-file-error' : ''}"${fileError ? ' aria-invalid="true"' : ''}>
<div class="hint" id="face-file-hint">${escapeHtml(s.faceFileHint)}</div>
${fileError ? `<div class="error" id="face-file-error">${escapeHtml(problem)}</div>` : ''}
<img id="face-chosen" class="chosen" alt="${escapeHtml(s.faceChosen)}" hidden></div>`;
  return page({
    lang,
    chrome: input.chrome,
    title: s.faceTitle,
    scripts: ['/journey/assets/face-capture.js'],
    body: `<h1>${escapeHtml(s.faceTitle)}</h1><p class="sub">${escapeHtml(s.faceText)}</p>
<form method="post" action="${escapeHtml(input.action)}" enctype="multipart/form-data" id="face-form" data-max-bytes="${input.maxBytes}" data-format="${input.format ?? 'JPEG'}"${
      liveOnly ? ' data-live-only="true"' : ''
    }${input.code ? ` data-refusal="${escapeHtml(input.code)}"` : ''}${
      input.camera ? ` data-camera-width="${Math.round(input.camera.width)}" data-camera-height="${Math.round(input.camera.height)}" data-camera-timeout="${Math.round(input.camera.timeoutSeconds)}"` : ''
    } novalidate>
${summary}
${noticeHtml(lang, s, notice)}
<div class="capture" id="face-capture">
<div class="camera" id="face-camera" hidden>
<button type="button" class="secondary" id="face-start">${escapeHtml(s.faceStartCamera)}</button>
<video id="face-video" autoplay playsinline muted aria-label="${escapeHtml(s.faceVideo)}" hidden></video>
<img id="face-preview" alt="${escapeHtml(s.facePreview)}" hidden>
<button type="button" class="secondary" id="face-shoot" hidden>${escapeHtml(s.faceShoot)}</button>
<button type="button" class="secondary" id="face-retake" hidden>${escapeHtml(s.faceRetake)}</button>
<p class="status" id="face-status" role="status" aria-live="polite" data-failed="${escapeHtml(liveOnly ? s.faceNoCamera : s.faceCameraFailed)}" data-taken="${escapeHtml(s.faceTaken)}" data-stopped="${escapeHtml(s.faceCameraStopped)}"></p>
</div>
${fileField}
<input type="hidden" name="${SOURCE_FIELD}" id="face-source" value="file">
<button type="submit">${escapeHtml(s.continue)}</button>
</div>
</form>`,
  });
}

/**
 * What both liveness screens (the active challenge, Rekognition's) share: the messages, the
 * error summary pointing at the consent box or the Start button, and the way out under Offer
 * Another Way (a plain form post).
 */
function livenessParts(input: Parameters<typeof renderFaceCapture>[0], startId: string, offerAnotherWay: boolean) {
  const { lang, error } = input;
  const s = messages(lang);
  const problem = problemText(s, error, input.attemptsLeft);
  const consentError = error === 'consentMissing';
  const summary = errorSummary(lang, error ? [[consentError ? 'face-consent' : startId, problem, consentError ? s.consentField : s.faceChallengeTitle] satisfies SummaryError] : []);
  const decline = offerAnotherWay
    ? `<button type="submit" class="secondary" id="face-decline" name="action" value="decline" formnovalidate>${escapeHtml(s.faceChallengeDecline)}</button>`
    : '';
  return { s, summary, decline };
}

const PROMPT_KEYS = ['turnLeft', 'turnRight', 'lookUp', 'blink', 'openMouth'] as const;

/**
 * The capture with an active liveness challenge (Liveness Check ACTIVE). The page says what will
 * happen (instructions, the colours and how often they change) before anything starts; Start asks
 * the server for a challenge, opens the front camera, and shows the stage full screen: the camera
 * in an oval, the current instruction in words (also announced to screen readers), the screen's
 * colour. The script takes the photo and the frames on the challenge's schedule and sends them in
 * this form's fields. Without script or a camera nothing can be done here: the page says so, and
 * under Offer Another Way its button (a plain form post) leads to another way.
 */
function renderChallenge(input: Parameters<typeof renderFaceCapture>[0] & { challenge: { url: string; offerAnotherWay: boolean } }): string {
  const { lang, notice, challenge } = input;
  const { s, summary, decline } = livenessParts(input, 'face-challenge-start', challenge.offerAnotherWay);
  const prompts = Object.fromEntries(PROMPT_KEYS.map((k) => [k, s[`prompt_${k}`]]));
  return page({
    lang,
    chrome: input.chrome,
    title: s.faceChallengeTitle,
    scripts: ['/journey/assets/face-capture.js'],
    body: `<h1>${escapeHtml(s.faceChallengeTitle)}</h1><p class="sub">${escapeHtml(s.faceChallengeText)}</p>
<form method="post" action="${escapeHtml(input.action)}" enctype="multipart/form-data" id="face-form" data-challenge-url="${escapeHtml(challenge.url)}"${
      input.code ? ` data-refusal="${escapeHtml(input.code)}"` : ''
    } novalidate>
${summary}
${noticeHtml(lang, s, notice)}
<div class="capture camera" id="face-capture">
<p class="hint" id="face-flash">${escapeHtml(s.faceChallengeFlash)}</p>
<noscript><div class="summary">${escapeHtml(s.faceChallengeNoScript)}</div></noscript>
<button type="button" id="face-challenge-start" aria-describedby="face-flash" hidden>${escapeHtml(s.faceChallengeStart)}</button>
<p class="status" id="face-status" role="status" aria-live="polite" data-failed="${escapeHtml(s.faceChallengeFailedStart)}" data-sending="${escapeHtml(s.faceChallengeSending)}"></p>
<div class="stage" id="face-stage" hidden>
<video id="face-video" autoplay playsinline muted aria-hidden="true"></video>
<p class="prompt" id="face-prompt" aria-live="assertive" data-hold="${escapeHtml(s.faceChallengeHold)}" data-colours="${escapeHtml(s.faceChallengeColours)}" data-prompts="${escapeHtml(JSON.stringify(prompts))}"></p>
</div>
<input type="file" id="face-file" name="image" accept="image/jpeg" hidden tabindex="-1" aria-hidden="true">
<input type="file" id="face-frames" name="frame" accept="image/jpeg" multiple hidden tabindex="-1" aria-hidden="true">
<input type="hidden" name="challenge" id="face-nonce" value="">
<input type="hidden" name="frameTimes" id="face-times" value="">
<input type="hidden" name="${SOURCE_FIELD}" id="face-source" value="camera">
</div>
${decline}
</form>`,
  });
}

/** The Face Liveness capture's script: Amazon's component, served from the service's own origin (getFaceLivenessAsset). */
export const FACE_LIVENESS_SCRIPT = '/journey/liveness/face-liveness.js';

/**
 * The capture under Rekognition Face Liveness (Liveness Check REKOGNITION). The page says what
 * will happen, where the video goes, and (for the light challenge) that the screen flashes,
 * before anything starts; Start asks the server for a session, then Amazon's component takes
 * over the stage: the camera, the oval, its own instructions, the stream to Rekognition. When it
 * says the check is done, the script posts the session's id in this form. Without script or a
 * camera nothing can be done here: the page says so, and under Offer Another Way its button
 * (a plain form post) leads to another way.
 */
function renderRekognition(input: Parameters<typeof renderFaceCapture>[0] & { rekognition: { url: string; flashing: boolean; offerAnotherWay: boolean } }): string {
  const { lang, notice, rekognition } = input;
  const { s, summary, decline } = livenessParts(input, 'face-liveness-start', rekognition.offerAnotherWay);
  return page({
    lang,
    chrome: input.chrome,
    title: s.faceChallengeTitle,
    scripts: [FACE_LIVENESS_SCRIPT],
    body: `<h1>${escapeHtml(s.faceChallengeTitle)}</h1><p class="sub">${escapeHtml(s.faceLivenessText)}</p>
<form method="post" action="${escapeHtml(input.action)}" enctype="multipart/form-data" id="face-form" data-session-url="${escapeHtml(rekognition.url)}" data-lang="${lang}"${
      input.code ? ` data-refusal="${escapeHtml(input.code)}"` : ''
    } novalidate>
${summary}
${noticeHtml(lang, s, notice)}
<div class="capture" id="face-capture">
${rekognition.flashing ? `<p class="hint" id="face-flash">${escapeHtml(s.faceLivenessFlash)}</p>` : ''}
<noscript><div class="summary">${escapeHtml(s.faceChallengeNoScript)}</div></noscript>
<button type="button" id="face-liveness-start"${rekognition.flashing ? ' aria-describedby="face-flash"' : ''} hidden>${escapeHtml(s.faceChallengeStart)}</button>
<p class="status" id="face-status" role="status" aria-live="polite" data-failed="${escapeHtml(s.faceChallengeFailedStart)}" data-limit="${escapeHtml(s.faceLivenessLimit)}" data-stopped="${escapeHtml(s.faceLivenessStopped)}" data-consent="${escapeHtml(s.consentNeeded)}" data-sending="${escapeHtml(s.faceChallengeSending)}"></p>
<div class="liveness" id="face-liveness" hidden></div>
<input type="hidden" name="${LIVENESS_SESSION_FIELD}" id="face-liveness-session" value="">
</div>
${decline}
</form>`,
  });
}
