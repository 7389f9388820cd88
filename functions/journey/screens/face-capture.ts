import { errorSummary, escapeHtml, page } from '../layout.js';
import { messages, type Language, type Messages } from '../messages/index.js';

/**
 * The Capture Face Image step. Without script it is a file upload (`capture="user"` opens the
 * front camera on phones); with script, the page also offers the camera in the page: the
 * photo taken goes into the same file field, so one form post carries either.
 */
export function renderFaceCapture(input: {
  lang: Language;
  action: string;
  maxBytes: number;
  format?: 'JPEG' | 'PNG';
  /** What the page asks the camera for, and how long it keeps it on without a photo (the step's inputs). */
  camera?: { width: number; height: number; timeoutSeconds: number };
  error?: string;
}): string {
  const { lang, error } = input;
  const s = messages(lang);
  // `error` is an ImageProblem (face-capture.ts); one without a message of its own reads as unreadable.
  const problem = error ? (s[`face_${error}` as keyof Messages] ?? s.face_unreadable) : '';
  const summary = errorSummary(lang, error ? [['face-file', problem]] : []);
  return page({
    lang,
    title: s.faceTitle,
    scripts: ['/journey/assets/face-capture.js'],
    body: `<h1>${escapeHtml(s.faceTitle)}</h1><p class="sub">${escapeHtml(s.faceText)}</p>
<form method="post" action="${escapeHtml(input.action)}" enctype="multipart/form-data" id="face-form" data-max-bytes="${input.maxBytes}" data-format="${input.format ?? 'JPEG'}"${
      input.camera ? ` data-camera-width="${Math.round(input.camera.width)}" data-camera-height="${Math.round(input.camera.height)}" data-camera-timeout="${Math.round(input.camera.timeoutSeconds)}"` : ''
    } novalidate>
${summary}
<div class="camera" id="face-camera" hidden>
<button type="button" class="secondary" id="face-start">${escapeHtml(s.faceStartCamera)}</button>
<video id="face-video" autoplay playsinline muted aria-label="${escapeHtml(s.faceVideo)}" hidden></video>
<img id="face-preview" alt="${escapeHtml(s.facePreview)}" hidden>
<button type="button" class="secondary" id="face-shoot" hidden>${escapeHtml(s.faceShoot)}</button>
<button type="button" class="secondary" id="face-retake" hidden>${escapeHtml(s.faceRetake)}</button>
<p class="status" id="face-status" role="status" aria-live="polite" data-failed="${escapeHtml(s.faceCameraFailed)}" data-taken="${escapeHtml(s.faceTaken)}" data-stopped="${escapeHtml(s.faceCameraStopped)}"></p>
</div>
<div class="field${error ? ' invalid' : ''}"><label for="face-file">${escapeHtml(s.faceFile)}</label>
<input type="file" id="face-file" name="image" accept="image/jpeg,image/png" capture="user" aria-describedby="face-file-hint${error ? ' face-file-error' : ''}"${error ? ' aria-invalid="true"' : ''}>
<div class="hint" id="face-file-hint">${escapeHtml(s.faceFileHint)}</div>
${error ? `<div class="error" id="face-file-error">${escapeHtml(problem)}</div>` : ''}</div>
<button type="submit">${escapeHtml(s.continue)}</button>
</form>`,
  });
}
