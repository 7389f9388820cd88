import { escapeHtml } from '../layout.js';

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
  errors: (readonly [string, string])[];
  /** Scripts the form's fields need (renderFormFields), loaded beside the screen's own. */
  scripts?: string[];
}

/**
 * The page's heading: the form's title and subtitle, else the screen's own; the screen's own
 * explanation stays below a form's subtitle (what the passcode screen says about the passcode
 * never leaving the device is not the form's to drop).
 */
export function framedHeading(frame: ScreenFrame | undefined, title: string, text: string): string {
  const lang = frame?.lang ? ` lang="${escapeHtml(frame.lang)}"` : '';
  const heading = frame?.title ? `<h1${lang}>${escapeHtml(frame.title)}</h1>` : `<h1>${escapeHtml(title)}</h1>`;
  const sub = frame?.subtitle ? `<p class="sub"${lang}>${escapeHtml(frame.subtitle)}</p><p class="hint">${escapeHtml(text)}</p>` : `<p class="sub">${escapeHtml(text)}</p>`;
  return heading + sub;
}
