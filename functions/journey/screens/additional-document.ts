import { textIn, type AdditionalDocument, type AdditionalDocumentsConfig } from '../../shared/additional-documents.js';
import { errorSummary, escapeHtml, page, type PageChrome, type SummaryError } from '../layout.js';
import { messages, type Language, type Messages } from '../messages/index.js';

/** The selection form's field, and its value for "I have no more documents". */
export const ADDITIONAL_CHOICE_FIELD = 'document';
export const FINISHED_CHOICE = '_finished';
/** The capture form's file field (photos of pages, or one PDF) and its "another document" button. */
export const ADDITIONAL_FILE_FIELD = 'file';
export const ADDITIONAL_ACTION_FIELD = 'action';
export const CHANGE_ADDITIONAL = 'change';

const problemText = (s: Messages, problem: string) => s[`addDoc_${problem}` as keyof Messages] ?? s.addDoc_unreadable;

/**
 * Select Additional Document Type V2: the documents offered as radio buttons, required ones
 * first, each marked required or provided; "I have no more documents" is offered only once the
 * requirements are met. One form that works without script.
 */
export function renderAdditionalSelection(input: {
  lang: Language;
  action: string;
  config: AdditionalDocumentsConfig;
  captured: ReadonlySet<string>;
  canFinish: boolean;
  error?: string | undefined;
  chrome?: PageChrome | undefined;
}): string {
  const { lang, config, captured, error } = input;
  const s = messages(lang);
  const ordered = [...config.documents.filter((d) => d.required), ...config.documents.filter((d) => !d.required)];
  const problem = error ? problemText(s, error) : '';
  const first = ordered[0]!.id;
  const summary = errorSummary(lang, error ? [[`add-doc-${first}`, problem, s.addDocLegend] satisfies SummaryError] : []);
  const option = (d: AdditionalDocument) => {
    const marks = [d.required ? s.addDocRequired : '', captured.has(d.id) ? s.addDocCaptured : ''].filter(Boolean).join(', ');
    const subtitle = textIn(d.subtitle, lang);
    return `<label class="choice" for="add-doc-${escapeHtml(d.id)}"><input type="radio" id="add-doc-${escapeHtml(d.id)}" name="${ADDITIONAL_CHOICE_FIELD}" value="${escapeHtml(d.id)}" required>${escapeHtml(textIn(d.title, lang))}${marks ? ` (${escapeHtml(marks)})` : ''}${subtitle ? `<span class="hint">${escapeHtml(subtitle)}</span>` : ''}</label>`;
  };
  return page({
    lang,
    chrome: input.chrome,
    title: s.addDocTitle,
    body: `<h1>${escapeHtml(s.addDocTitle)}</h1><p class="sub">${escapeHtml(s.addDocText)}</p>
<form method="post" action="${escapeHtml(input.action)}" id="add-doc-select-form"${error ? ` data-refusal="${escapeHtml(error)}"` : ''} novalidate>
${summary}
<fieldset class="field${error ? ' invalid' : ''}"${error ? ' aria-describedby="add-doc-error"' : ''}><legend>${escapeHtml(s.addDocLegend)}</legend>
${ordered.map(option).join('\n')}
${error ? `<div class="error" id="add-doc-error">${escapeHtml(problem)}</div>` : ''}</fieldset>
<button type="submit">${escapeHtml(s.continue)}</button>
${input.canFinish ? `<button type="submit" class="secondary" name="${ADDITIONAL_CHOICE_FIELD}" value="${FINISHED_CHOICE}" formnovalidate>${escapeHtml(s.addDocFinish)}</button>` : ''}
</form>`,
  });
}

/**
 * Capture Additional Document v3: the chosen document's title, instructions and pages, and one
 * file field taking several photos (one per page) or one PDF. Works without script.
 */
export function renderAdditionalCapture(input: {
  lang: Language;
  action: string;
  document: AdditionalDocument;
  error?: string | undefined;
  chrome?: PageChrome | undefined;
}): string {
  const { lang, document: d, error } = input;
  const s = messages(lang);
  const problem = error ? problemText(s, error) : '';
  const summary = errorSummary(lang, error ? [['add-doc-file', problem, s.addDocFile] satisfies SummaryError] : []);
  const title = textIn(d.title, lang);
  const subtitle = textIn(d.subtitle, lang);
  const pages = d.pages.minPages === d.pages.maxPages ? `${d.pages.minPages}` : `${d.pages.minPages}–${d.pages.maxPages}`;
  const instructions = d.instructions.map((i) => textIn(i, lang)).filter(Boolean);
  return page({
    lang,
    chrome: input.chrome,
    title,
    body: `<h1>${escapeHtml(title)}</h1>${subtitle ? `<p class="sub">${escapeHtml(subtitle)}</p>` : ''}
${instructions.length ? `<ul id="add-doc-instructions">${instructions.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</ul>` : ''}
<p id="add-doc-pages">${escapeHtml(s.addDocPages)}: ${pages}</p>
<form method="post" action="${escapeHtml(input.action)}" enctype="multipart/form-data" id="add-doc-form"${error ? ` data-refusal="ADDITIONAL_DOCUMENT_REFUSED"` : ''} novalidate>
${summary}
<div class="field${error ? ' invalid' : ''}"><label for="add-doc-file">${escapeHtml(s.addDocFile)}</label>
<input type="file" id="add-doc-file" name="${ADDITIONAL_FILE_FIELD}" accept="image/jpeg,image/png,application/pdf" multiple aria-describedby="add-doc-file-hint${error ? ' add-doc-file-error' : ''}"${error ? ' aria-invalid="true"' : ''}>
<div class="hint" id="add-doc-file-hint">${escapeHtml(s.addDocFileHint)}</div>
${error ? `<div class="error" id="add-doc-file-error">${escapeHtml(problem)}</div>` : ''}</div>
<button type="submit">${escapeHtml(s.addDocSend)}</button>
<button type="submit" class="secondary" name="${ADDITIONAL_ACTION_FIELD}" value="${CHANGE_ADDITIONAL}" formnovalidate>${escapeHtml(s.docChange)}</button>
</form>`,
  });
}
