import type { DataForm } from '../../../statemachines/definition.js';
import { errorSummary, escapeHtml, localized, page } from '../layout.js';
import { messages, type Language } from '../messages/index.js';

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
    control = `<select ${attrs}><option value="">${escapeHtml(messages(lang).select)}</option>${options}</select>`;
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
  const summary = errorSummary(lang, form.components.filter((c) => errors[c.id]).map((c) => [`f-${c.id}`, errors[c.id]!] as const));
  const fields = form.components.map((c) => fieldHtml(c, lang, input.values[c.id], errors[c.id])).join('\n');
  const subtitle = form.subtitle ? `<p class="sub">${escapeHtml(localized(form.subtitle, lang))}</p>` : '';
  return page({
    lang,
    title: localized(form.title, lang),
    body: `<h1>${escapeHtml(localized(form.title, lang))}</h1>${subtitle}
<form method="post" action="${escapeHtml(input.action)}" novalidate>
${summary}
${fields}
<button type="submit">${escapeHtml(messages(lang).continue)}</button>
</form>`,
  });
}
