import { escapeHtml, type SummaryError } from '../layout.js';

/**
 * A data form around another screen (the Passcode Authentication Form's): the form's title and
 * subtitle head the page, and its fields come before the screen's own, in one HTML form, so
 * they are posted together.
 */
export interface ScreenFrame {
  title?: string;
  subtitle?: string;
  /** The language of the form's texts, when it is not the page's. */
  lang?: string;
  /** The form's fields (renderFormFields). */
  fields: string;
  /** Refused fields: the field's id and the message, for the error summary. */
  errors: SummaryError[];
  /** Scripts the form's fields need (renderFormFields), loaded beside the screen's own. */
  scripts?: string[];
}

/**
 * The page's heading: the form's title and subtitle, else the screen's own. Below a form's
 * subtitle, which says what the screen is for in the form's words, only `kept` of the screen's
 * own text stays (the passcode never leaving the device is not the form's to drop); the rest
 * would say the subtitle's purpose a second time.
 */
export function framedHeading(frame: ScreenFrame | undefined, title: string, text: string, kept: string): string {
  const lang = frame?.lang ? ` lang="${escapeHtml(frame.lang)}"` : '';
  const heading = frame?.title ? `<h1${lang}>${escapeHtml(frame.title)}</h1>` : `<h1>${escapeHtml(title)}</h1>`;
  const sub = frame?.subtitle ? `<p class="sub"${lang}>${escapeHtml(frame.subtitle)}</p><p class="hint">${escapeHtml(kept)}</p>` : `<p class="sub">${escapeHtml(text)}</p>`;
  return heading + sub;
}
