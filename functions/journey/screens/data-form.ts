import {
  DISPLAY_COMPONENT_TYPES,
  IMAGE_SOURCE,
  WIDTH,
  choicesOf,
  keyedComponents,
  notificationLevel,
  noteTimerSeconds,
  type DataForm,
  type FormComponent,
} from '../../../statemachines/forms.js';
import { callingCodeOf } from '../calling-codes.js';
import { componentText, formTexts, isReadOnly, type FormTexts } from '../forms.js';
import { errorSummary, escapeHtml, page, type PageChrome, type SummaryError } from '../layout.js';
import { fill, messages, type Language, type Messages } from '../messages/index.js';
import { own } from '../../shared/own.js';

/** The Retake button's field (activities/data-form.ts reads it): a name no component id can have (ids have no colon). */
export const ACTION_FIELD = 'arthr:action';

/** The script a page loads when a notification can be closed or hides itself (client/data-form.ts). */
export const DATA_FORM_SCRIPT = '/journey/assets/data-form.js';

interface FieldContext {
  texts: FormTexts;
  s: Messages;
  lang: Language;
  formReadOnly: boolean;
}

/** A country's name in the page's language (`GB` → United Kingdom / Vereinigtes Königreich). */
function countryName(region: string, lang: Language): string {
  try {
    return new Intl.DisplayNames([lang], { type: 'region' }).of(region) ?? region;
  } catch {
    return region;
  }
}

function phoneHint(c: FormComponent, ctx: FieldContext): string {
  const region = c.defaultCountry?.toUpperCase();
  const code = region ? callingCodeOf(region) : 0;
  if (!region || !code) return ctx.s.formPhoneHintIntl;
  return ctx.s.formPhoneHint.replace('{country}', countryName(region, ctx.lang)).replace('{code}', String(code));
}

/**
 * An image's width: pixels (`100`, `"100"`, `"200px"`) as the attribute, other lengths (`"50%"`)
 * as a style; never wider than the page (CSS). A string the page cannot use is ignored.
 */
function widthOf(width: FormComponent['width']): string {
  if (width == null) return '';
  const text = String(width).trim();
  if (!WIDTH.test(text)) return '';
  if (typeof width === 'number' || /^\d+(\.\d+)?(px)?$/.test(text)) return ` width="${Math.round(Number.parseFloat(text))}"`;
  // Checked against WIDTH (digits and a unit), so it cannot close the attribute or add a rule.
  return ` style="width:${text}"`;
}

/** Whether a notification needs the page's script: it can be closed, or hides itself. */
const needsScript = (c: FormComponent) => c.type === 'notification' && (c.closeButton === true || noteTimerSeconds(c) !== undefined);

/** A component that only shows something: a paragraph, a notification or an image. */
function displayHtml(c: FormComponent, key: string, ctx: FieldContext): string {
  const words = componentText(c, ctx.texts);
  const id = `f-${escapeHtml(key)}`;
  if (c.type === 'paragraph') return `<p class="para" id="${id}">${escapeHtml(words)}</p>`;
  if (c.type === 'notification') {
    const level = notificationLevel(c);
    // Warnings and errors are announced; information is read in its place.
    const role = level === 'warning' || level === 'error' ? 'alert' : 'status';
    if (!needsScript(c)) return `<div class="note note-${level}" role="${role}" id="${id}">${escapeHtml(words)}</div>`;
    // Closing and the timer are the script's (client/data-form.ts); the button shows only when it runs.
    const timer = noteTimerSeconds(c);
    const close = c.closeButton === true ? `<button type="button" class="note-close" data-note-close hidden aria-label="${escapeHtml(ctx.s.formNoteClose)}">×</button>` : '';
    return `<div class="note note-${level}${close ? ' closable' : ''}" role="${role}" id="${id}" data-note${timer !== undefined ? ` data-note-timer="${timer}"` : ''}>${escapeHtml(words)}${close}</div>`;
  }
  // An image: only an https URL or an inline raster image. The schema checks this on the way in;
  // it is checked again here because a page must never carry a source that could run or inject
  // anything (javascript:, an SVG with script, a quote that ends the attribute).
  const src = typeof c.src === 'string' ? c.src.replace(/\s+/g, '') : '';
  const alt = typeof c.alt === 'string' ? c.alt : ctx.texts.text(c.alt) || words;
  if (!IMAGE_SOURCE.test(src)) return alt ? `<p class="para" id="${id}">${escapeHtml(alt)}</p>` : '';
  return `<figure class="image" id="${id}"><img src="${escapeHtml(src)}" alt="${escapeHtml(alt)}"${widthOf(c.width)} referrerpolicy="no-referrer" decoding="async"></figure>`;
}

/**
 * One input component, with its label, its value, its error and whether it can be changed; its
 * field is named by its answer key (`key`), and its HTML id is `f-<key>`.
 */
function inputHtml(c: FormComponent, key: string, ctx: FieldContext, value: string | undefined, error: string | undefined): string {
  const id = `f-${key}`;
  const name = escapeHtml(key);
  const readOnly = isReadOnly(c, ctx.formReadOnly);
  const label = escapeHtml(ctx.texts.text(c.label) || c.id);
  const required = c.validate?.required && !readOnly ? ' required aria-required="true"' : '';
  const describedBy = [error ? `${id}-error` : '', c.type === 'phone' || c.type === 'phoneNumber' ? `${id}-hint` : ''].filter(Boolean).join(' ');
  const aria = `${error ? ' aria-invalid="true"' : ''}${describedBy ? ` aria-describedby="${describedBy}"` : ''}`;
  const errorHtml = error ? `<div class="error" id="${id}-error">${escapeHtml(error)}</div>` : '';
  const v = escapeHtml(value ?? '');
  const wrap = (inner: string, cls = 'field') => `<div class="${cls}${error ? ' invalid' : ''}${readOnly ? ' readonly' : ''}">${inner}${errorHtml}</div>`;
  const choices = choicesOf(c);

  if (c.type === 'checkbox') {
    const checked = value === 'on' || value === 'true' ? ' checked' : '';
    // A read-only checkbox is disabled (a disabled field is not posted; the server keeps the value shown).
    return wrap(`<label for="${id}"><input type="checkbox" id="${id}" name="${name}"${checked}${required}${aria}${readOnly ? ' disabled' : ''}>${label}</label>`, 'field check');
  }
  if ((c.type === 'select' || c.type === 'radio') && readOnly) {
    // A chosen value shown as text: a disabled select or radio group is hard to read and skipped by keyboards.
    const chosen = choices.find((o) => o.value === value);
    const shown = chosen ? ctx.texts.text(chosen.label) || chosen.value : value ?? '';
    return wrap(`<label for="${id}">${label}</label><input type="text" id="${id}" value="${escapeHtml(shown)}" readonly aria-readonly="true">`);
  }
  if (c.type === 'radio') {
    const options = choices
      .map(
        (o, i) =>
          `<label class="choice" for="${id}-${i}"><input type="radio" id="${id}-${i}" name="${name}" value="${escapeHtml(o.value)}"${o.value === value ? ' checked' : ''}${i === 0 ? required : ''}>${escapeHtml(ctx.texts.text(o.label) || o.value)}</label>`,
      )
      .join('');
    // The error summary links to the first choice (targetOf).
    return wrap(`<fieldset id="${id}"${aria}><legend>${label}</legend>${options}</fieldset>`);
  }
  const ro = readOnly ? ' readonly aria-readonly="true"' : '';
  const attrs = `id="${id}" name="${name}"${required}${aria}${ro}`;
  let control: string;
  let hint = '';
  switch (c.type) {
    case 'textarea':
      control = `<textarea ${attrs} rows="4"${maxLength(c)}>${v}</textarea>`;
      break;
    case 'select': {
      const options = choices
        .map((o) => `<option value="${escapeHtml(o.value)}"${o.value === value ? ' selected' : ''}>${escapeHtml(ctx.texts.text(o.label) || o.value)}</option>`)
        .join('');
      control = `<select ${attrs}><option value="">${escapeHtml(ctx.s.select)}</option>${options}</select>`;
      break;
    }
    case 'date': {
      const bounds = `${c.validate?.minDate && !c.validate.minDate.startsWith('today') ? ` min="${c.validate.minDate}"` : ''}${c.validate?.maxDate && !c.validate.maxDate.startsWith('today') ? ` max="${c.validate.maxDate}"` : ''}`;
      control = `<input type="date" ${attrs} value="${v}"${bounds}>`;
      break;
    }
    case 'number':
      // Text with a number keyboard: a type=number field drops what it cannot parse, so the server would see nothing.
      control = `<input type="text" inputmode="decimal" ${attrs} value="${v}"${maxLength(c)}>`;
      break;
    case 'email':
      control = `<input type="email" ${attrs} value="${v}" autocomplete="email" inputmode="email" spellcheck="false"${maxLength(c)}>`;
      break;
    case 'phone':
    case 'phoneNumber':
      hint = `<div class="hint" id="${id}-hint">${escapeHtml(phoneHint(c, ctx))}</div>`;
      control = `<input type="tel" ${attrs} value="${v}" autocomplete="tel"${maxLength(c)}>`;
      break;
    default:
      control = `<input type="text" ${attrs} value="${v}"${maxLength(c)}>`;
  }
  return wrap(`<label for="${id}">${label}</label>${hint}${control}`);
}

function maxLength(c: FormComponent): string {
  return c.validate?.maxLength ? ` maxlength="${c.validate.maxLength}"` : '';
}

/** Where an error in the summary links to: the field, or a radio group's first choice. */
const targetOf = (c: FormComponent, key: string) => (c.type === 'radio' ? `f-${key}-0` : `f-${key}`);

/**
 * A form's components as fields, for a data form step or framing another screen (the passcode
 * screens): every component type, in the array's order (a component's `index` is not read), in
 * the form's language (the page's when the form has it, else the form's first), read-only where
 * the form or the component says so. Values and errors are by answer key (`answerKeys`), which
 * also names each field. `scripts` is what the page must load for the form (a notification to
 * close or timed: DATA_FORM_SCRIPT), else nothing.
 */
export function renderFormFields(input: {
  form: DataForm;
  lang: Language;
  values: Record<string, string | undefined>;
  errors?: Record<string, string>;
  readOnly?: boolean;
}): { html: string; summary: SummaryError[]; texts: FormTexts; scripts: string[] } {
  const texts = formTexts(input.form, input.lang);
  const ctx: FieldContext = { texts, s: messages(input.lang), lang: input.lang, formReadOnly: input.readOnly ?? false };
  const errors = input.errors ?? {};
  const keyed = keyedComponents(input.form);
  const html = keyed
    .map(({ c, key }) => (DISPLAY_COMPONENT_TYPES.includes(c.type) ? displayHtml(c, key, ctx) : inputHtml(c, key, ctx, own(input.values, key), own(errors, key))))
    .join('\n');
  // Each error names its field as labelled (ids may repeat: the label tells two apart where the id cannot).
  const summary = keyed
    .filter(({ key }) => own(errors, key))
    .map(({ c, key }): SummaryError => [targetOf(c, key), own(errors, key)!, texts.text(c.label) || c.id]);
  return { html, summary, texts, scripts: input.form.components.some(needsScript) ? [DATA_FORM_SCRIPT] : [] };
}

/** The form's own Submit label (`submitButton.label`, or `submitButton.values`), else the service's. */
function submitLabel(form: DataForm, texts: FormTexts, s: Messages): string {
  const button = form.submitButton;
  const own = texts.text(button?.label) || (button?.values ? texts.text({ values: button.values }) : '');
  return own || s.continue;
}

/**
 * A data form step; after a refused submission, with the messages, the values as typed and,
 * under Max Attempts, the attempts left. `readOnly` shows every field unchangeable (a
 * confirmation screen), `hideButtons` shows no button, `retake` adds the Retake button after
 * Submit (Submit stays the form's default button, which Enter presses).
 */
export function renderDataForm(input: {
  form: DataForm;
  lang: Language;
  action: string;
  values: Record<string, string | undefined>;
  errors?: Record<string, string>;
  readOnly?: boolean;
  hideButtons?: boolean;
  retake?: boolean;
  attemptsLeft?: number;
  chrome?: PageChrome | undefined;
}): string {
  const { form, lang } = input;
  const s = messages(lang);
  const { html, summary, texts, scripts } = renderFormFields(input);
  const title = texts.text(form.title);
  const attempts = input.attemptsLeft !== undefined && summary.length ? `<p class="hint attempts">${escapeHtml(fill(s.formAttemptsLeft, input.attemptsLeft))}</p>` : '';
  const buttons = input.hideButtons
    ? ''
    : `<div class="buttons"><button type="submit">${escapeHtml(submitLabel(form, texts, s))}</button>${
        input.retake ? `<button type="submit" class="secondary" name="${ACTION_FIELD}" value="retake" formnovalidate>${escapeHtml(s.formRetake)}</button>` : ''
      }</div>`;
  // The form's texts are in texts.lang; the page's own words are in lang.
  const formLang = texts.lang !== lang ? ` lang="${escapeHtml(texts.lang)}"` : '';
  const subtitle = form.subtitle ? `<p class="sub"${formLang}>${escapeHtml(texts.text(form.subtitle))}</p>` : '';
  return page({
    lang,
    chrome: input.chrome,
    title: title || s.continue,
    scripts,
    body: `${title ? `<h1${formLang}>${escapeHtml(title)}</h1>` : ''}${subtitle}
<form method="post" action="${escapeHtml(input.action)}" novalidate${formLang}>
${errorSummary(lang, summary)}${attempts}
${html}
${buttons}
</form>`,
  });
}
