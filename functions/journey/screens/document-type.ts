import { countryName, type DocumentChoices, type DocumentTypeName } from '../../shared/document-countries.js';
import { errorSummary, escapeHtml, page, type PageChrome, type SummaryError } from '../layout.js';
import { messages, type Language, type Messages } from '../messages/index.js';

/** The form's fields: the type chosen and the issuing country. */
export const DOCUMENT_TYPE_FIELD = 'documentType';
export const COUNTRY_FIELD = 'country';

/** Why a choice was refused; the page words each in the end user's language. */
export type ChoiceProblem = 'typeMissing' | 'countryMissing' | 'typeNotOffered';

/** The most countries named in the hint of those that take fewer types. */
const MAX_LISTED_EXCEPTIONS = 8;

const typeLabel = (s: Messages, type: DocumentTypeName) => s[`docType_${type}`];

/**
 * Select Document Type: the document's type (radio buttons) and its issuing country (a list
 * sorted by the country's name in the page's language), in one form that works without script.
 * Which types a country offers is judged when the form is sent: a type the chosen country does
 * not offer gets the page again, saying so, with both choices kept. The hint under the country
 * list says which types the selected country offers, where the countries differ.
 */
export function renderDocumentType(input: {
  lang: Language;
  action: string;
  choices: DocumentChoices;
  /** What was sent and refused: the choices to keep, and why. */
  values?: { documentType?: string | undefined; country?: string | undefined };
  error?: ChoiceProblem | undefined;
  chrome?: PageChrome | undefined;
}): string {
  const { lang, choices } = input;
  const s = messages(lang);
  const error = input.error;
  const chosenType = input.values?.documentType;
  const chosenCountry = input.values?.country ?? choices.defaultCountry;
  const collator = new Intl.Collator(lang);
  const countries = Object.keys(choices.countries)
    .map((code) => ({ code, name: countryName(code, lang) }))
    .sort((a, b) => collator.compare(a.name, b.name));
  const typeError = error === 'typeMissing' || error === 'typeNotOffered';
  const countryError = error === 'countryMissing';
  const problem = error ? s[`doc_${error}`] : '';
  const summary = errorSummary(lang, error ? [[typeError ? `doc-type-${choices.types[0]}` : 'doc-country', problem, typeError ? s.docTypeLegend : s.docCountry] satisfies SummaryError] : []);
  // Only one type: nothing to choose, it is sent as it is.
  const single = choices.types.length === 1 ? choices.types[0] : undefined;
  const typeField = single
    ? `<input type="hidden" name="${DOCUMENT_TYPE_FIELD}" value="${single}"><p id="doc-type-${single}"><strong>${escapeHtml(s.docTypeLegend)}:</strong> ${escapeHtml(typeLabel(s, single))}</p>`
    : `<fieldset class="field${typeError ? ' invalid' : ''}"${typeError ? ' aria-describedby="doc-type-error"' : ''}><legend>${escapeHtml(s.docTypeLegend)}</legend>
${choices.types
  .map(
    (t) =>
      `<label class="choice" for="doc-type-${t}"><input type="radio" id="doc-type-${t}" name="${DOCUMENT_TYPE_FIELD}" value="${t}" required${chosenType === t ? ' checked' : ''}>${escapeHtml(typeLabel(s, t))}</label>`,
  )
  .join('\n')}
${typeError ? `<div class="error" id="doc-type-error">${escapeHtml(problem)}</div>` : ''}</fieldset>`;
  // The countries that take fewer types than the others, said up front (the page works without
  // script, so nothing changes as the country is chosen); past a few, the refusal says it.
  const fewer = countries.filter((c) => choices.countries[c.code]!.length !== choices.types.length);
  const offeredHint =
    fewer.length > 0 && fewer.length <= MAX_LISTED_EXCEPTIONS
      ? `<div class="hint" id="doc-country-offers">${escapeHtml(s.docCountryOffers)} ${escapeHtml(fewer.map((c) => `${c.name}: ${choices.countries[c.code]!.map((t) => typeLabel(s, t)).join(', ')}`).join('; '))}.</div>`
      : '';
  return page({
    lang,
    chrome: input.chrome,
    title: s.docTypeTitle,
    body: `<h1>${escapeHtml(s.docTypeTitle)}</h1><p class="sub">${escapeHtml(s.docTypeText)}</p>
<form method="post" action="${escapeHtml(input.action)}" id="doc-type-form"${error ? ` data-refusal="${escapeHtml(error)}"` : ''} novalidate>
${summary}
${typeField}
<div class="field${countryError ? ' invalid' : ''}"><label for="doc-country">${escapeHtml(s.docCountry)}</label>
<select id="doc-country" name="${COUNTRY_FIELD}" autocomplete="country" aria-describedby="doc-country-hint${offeredHint ? ' doc-country-offers' : ''}${countryError ? ' doc-country-error' : ''}"${countryError ? ' aria-invalid="true"' : ''} required>
${chosenCountry && choices.countries[chosenCountry] ? '' : `<option value="">${escapeHtml(s.docCountryChoose)}</option>\n`}${countries
      .map((c) => `<option value="${c.code}"${c.code === chosenCountry ? ' selected' : ''}>${escapeHtml(c.name)}</option>`)
      .join('')}
</select>
<div class="hint" id="doc-country-hint">${escapeHtml(s.docCountryHint)}</div>${offeredHint}
${countryError ? `<div class="error" id="doc-country-error">${escapeHtml(problem)}</div>` : ''}</div>
<button type="submit">${escapeHtml(s.continue)}</button>
</form>`,
  });
}
