import { errorSummary, escapeHtml, page, type PageChrome, type SummaryError } from '../layout.js';
import { messages, type Language, type Messages } from '../messages/index.js';

/** The multipart fields beside `image`: the mark the page's script sets on a camera photo, and the "another document" button. */
export const DOC_SOURCE_FIELD = 'source';
export const DOC_ACTION_FIELD = 'action';
export const CHANGE_DOCUMENT = 'change';

export interface DocumentCamera {
  width: number;
  height: number;
  timeoutSeconds: number;
  /** The document's width over its height (the guide's shape). */
  aspectRatio: number;
  /** The margin the guide leaves around the document, a fraction of the view's width. */
  tolerance: number;
  orientation: 'LANDSCAPE' | 'PORTRAIT';
}

/**
 * Capture Document Image: one side of the document. Without script the page is a file upload
 * (a photo of the document, or under Use Native Capture the device's own camera app through
 * `capture="environment"`) and a Continue button. With script and a camera (and not Use Native
 * Capture), the page offers the back camera in the page, with a guide at the document's shape
 * over the view; the photo taken is shown (the `preview` screen) with "Use this photo" and "Take
 * it again", and goes in the same file field, so one form post carries either. "Choose another
 * document" sends no image: the step ends with changeDocument true.
 */
export function renderDocumentCapture(input: {
  lang: Language;
  action: string;
  maxBytes: number;
  side: 'FRONT' | 'BACK';
  /** The front, where the back is asked for next (Allow Back). */
  backNext: boolean;
  format: 'JPEG' | 'PNG';
  camera: DocumentCamera;
  native: boolean;
  /** Why the last photo was refused (ImageProblem of face-capture.ts). */
  error?: string | undefined;
  code?: string | undefined;
  chrome?: PageChrome | undefined;
}): string {
  const { lang, error, camera } = input;
  const s = messages(lang);
  const problem = error ? (s[`doc_${error}` as keyof Messages] ?? s.doc_unreadable) : '';
  const title = input.side === 'BACK' ? s.docBackTitle : s.docFrontTitle;
  const summary = errorSummary(lang, error ? [['doc-file', problem, s.docPreview] satisfies SummaryError] : []);
  const dims = `data-camera-width="${Math.round(camera.width)}" data-camera-height="${Math.round(camera.height)}" data-camera-timeout="${Math.round(camera.timeoutSeconds)}" data-aspect="${camera.aspectRatio}" data-tolerance="${camera.tolerance}" data-orientation="${camera.orientation}"`;
  return page({
    lang,
    chrome: input.chrome,
    title,
    scripts: ['/journey/assets/document-capture.js'],
    body: `<h1>${escapeHtml(title)}</h1><p class="sub">${escapeHtml(s.docCaptureText)}</p>${input.backNext ? `<p class="hint">${escapeHtml(s.docBackNext)}</p>` : ''}
<form method="post" action="${escapeHtml(input.action)}" enctype="multipart/form-data" id="doc-form" data-max-bytes="${input.maxBytes}" data-format="${input.format}" data-side="${input.side}"${
      input.native ? ' data-native="true"' : ''
    }${input.code ? ` data-refusal="${escapeHtml(input.code)}"` : ''} ${dims} novalidate>
${summary}
<div class="camera document-camera" id="doc-camera" hidden>
<button type="button" class="secondary" id="doc-start">${escapeHtml(s.docStartCamera)}</button>
<div class="doc-view" id="doc-view" hidden><video id="doc-video" autoplay playsinline muted aria-label="${escapeHtml(s.docVideo)}" aria-describedby="doc-guide-text"></video><div class="doc-guide" id="doc-guide" aria-hidden="true"></div></div>
<p class="hint" id="doc-guide-text" hidden>${escapeHtml(s.docGuide)}</p>
<button type="button" class="secondary" id="doc-shoot" hidden>${escapeHtml(s.docShoot)}</button>
<p class="status" id="doc-status" role="status" aria-live="polite" data-failed="${escapeHtml(s.docCameraFailed)}" data-taken="${escapeHtml(s.docTaken)}" data-stopped="${escapeHtml(s.docCameraStopped)}"></p>
</div>
<section class="doc-preview" id="doc-preview-box" aria-labelledby="doc-preview-title" hidden>
<h2 id="doc-preview-title">${escapeHtml(s.docPreview)}</h2><p>${escapeHtml(s.docPreviewText)}</p>
<div class="camera document"><img id="doc-preview" alt="${escapeHtml(s.docPreview)}"></div>
<div class="buttons"><button type="submit" id="doc-confirm">${escapeHtml(s.docUse)}</button><button type="button" class="secondary" id="doc-retake">${escapeHtml(s.docRetake)}</button></div>
</section>
<div class="field${error ? ' invalid' : ''}" id="doc-file-field"><label for="doc-file">${escapeHtml(input.native ? s.docFileNative : s.docFile)}</label>
<input type="file" id="doc-file" name="image" accept="image/jpeg,image/png"${input.native ? ' capture="environment"' : ''} aria-describedby="doc-file-hint${error ? ' doc-file-error' : ''}"${error ? ' aria-invalid="true"' : ''}>
<div class="hint" id="doc-file-hint">${escapeHtml(s.docFileHint)}</div>
${error ? `<div class="error" id="doc-file-error">${escapeHtml(problem)}</div>` : ''}
<img id="doc-chosen" class="chosen" alt="${escapeHtml(s.docChosen)}" hidden></div>
<input type="hidden" name="${DOC_SOURCE_FIELD}" id="doc-source" value="file">
<div class="buttons" id="doc-buttons"><button type="submit" id="doc-send">${escapeHtml(s.continue)}</button>
<button type="submit" class="secondary" name="${DOC_ACTION_FIELD}" value="${CHANGE_DOCUMENT}" id="doc-change">${escapeHtml(s.docChange)}</button></div>
</form>`,
  });
}
