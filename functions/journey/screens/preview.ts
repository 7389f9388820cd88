import { escapeHtml, page, type PageChrome } from '../layout.js';
import { messages, type Language } from '../messages/index.js';

/** The field a preview's two buttons set: `confirm` or `retake`. */
export const PREVIEW_FIELD = 'arthr:action';

/**
 * Confirm Image: the last capture, shown inline (a small JPEG as a data URL: the pages' CSP
 * allows `data:` images and no other origin), and two buttons, "Use this photo" and "Take it
 * again", in one form that works without script. With no image to show, the page says so and
 * keeps both buttons.
 */
export function renderPreview(input: {
  lang: Language;
  action: string;
  kind: 'face' | 'document';
  image?: { dataUrl: string; width: number; height: number } | undefined;
  chrome?: PageChrome | undefined;
}): string {
  const s = messages(input.lang);
  const title = input.kind === 'face' ? s.previewFaceTitle : s.previewDocumentTitle;
  const text = input.kind === 'face' ? s.previewFaceText : s.previewDocumentText;
  const shown = input.image
    ? `<div class="camera${input.kind === 'document' ? ' document' : ''}"><img src="${escapeHtml(input.image.dataUrl)}" alt="${escapeHtml(s.previewAlt)}" width="${input.image.width}" height="${input.image.height}"></div>`
    : `<div class="note note-warning" role="status"><p>${escapeHtml(s.previewNone)}</p></div>`;
  return page({
    lang: input.lang,
    chrome: input.chrome,
    title,
    body: `<h1>${escapeHtml(title)}</h1><p class="sub">${escapeHtml(text)}</p>
<form method="post" action="${escapeHtml(input.action)}">
${shown}
<div class="buttons"><button type="submit" name="${PREVIEW_FIELD}" value="confirm">${escapeHtml(s.previewUse)}</button><button type="submit" class="secondary" name="${PREVIEW_FIELD}" value="retake">${escapeHtml(s.previewRetake)}</button></div>
</form>`,
  });
}
