import { countryCode, documentChoices, documentTypeName, type DocumentChoices } from '../shared/document-countries.js';
import { COUNTRY_FIELD, DOCUMENT_TYPE_FIELD, renderDocumentType, type ChoiceProblem } from '../journey/screens/document-type.js';
import { journeyUrl } from '../journey/screen-context.js';
import { own } from '../shared/own.js';
import { activityError, type Screens, type StepBegin, type StepView, type Submission } from './contract.js';
import { spec } from './specs/select-document-type.js';

/** Where the step records what it offers (beside its inputs): worked out once, when it begins. */
const CHOICES_INPUT = 'Document Choices';

/**
 * Before the journey waits: what the step offers, from its inputs (references resolved by now).
 * A value the publish could not check (a reference) that is no country, type or valid
 * configuration fails the step (InvalidInput), as does a configuration that leaves nothing to choose.
 */
export const begin: StepBegin<typeof spec> = async ({ activityId, inputs }) => {
  const choices = documentChoices({
    documentTypes: inputs['Document Types'],
    allowedCountries: inputs['Allowed Countries'],
    countries: inputs.Countries,
    defaultCountry: inputs['Default Country'],
  });
  if ('problem' in choices) throw activityError(spec, 'InvalidInput', `Select Document Type ${activityId}: ${choices.problem}`);
  return { ...inputs, [CHOICES_INPUT]: choices };
};

function choicesOf(view: StepView<typeof spec>): DocumentChoices {
  const recorded = own(view.step.inputs, CHOICES_INPUT) as DocumentChoices | undefined;
  if (recorded && Array.isArray(recorded.types) && recorded.countries && typeof recorded.countries === 'object') return recorded;
  // A step recorded without them (it cannot begin so): worked out from its inputs again.
  const again = documentChoices({ documentTypes: view.inputs['Document Types'], allowedCountries: view.inputs['Allowed Countries'], countries: view.inputs.Countries, defaultCountry: view.inputs['Default Country'] });
  if ('problem' in again) throw new Error(`Select Document Type ${view.step.activityId}: ${again.problem}`);
  return again;
}

const choicePage = (view: StepView<typeof spec>) =>
  renderDocumentType({
    lang: view.lang,
    action: journeyUrl(view.record, view.capability, view.lang, view.step.activityId),
    choices: choicesOf(view),
    ...(view.refusal ? { error: view.refusal.errors.choice as ChoiceProblem | undefined, values: view.refusal.values } : {}),
    chrome: view.chrome,
  });

/** One page for both of the family's screens (type, then country): the form asks both at once. */
export const screens: Screens<typeof spec> = {
  component: 'document-type-selection',
  render: { 'document-type-selection': choicePage, 'country-selection': choicePage },
};

/**
 * The type and country chosen, judged against what the step offers: kept in `_documentType`,
 * `_documentCountry` and `_documents.{Doc Key}` (a new choice starts the document again: its
 * earlier captures are not of this document). Anything else gets the page again, saying why.
 */
export const submission: Submission<typeof spec> = {
  part: 'form',
  async submit(view, { body = {} }) {
    const choices = choicesOf(view);
    const sentType = own(body, DOCUMENT_TYPE_FIELD);
    const sentCountry = own(body, COUNTRY_FIELD);
    const type = documentTypeName(sentType);
    const country = countryCode(sentCountry);
    // What was sent, kept for the page to show again (a code in any case as the list spells it).
    const values = {
      ...(typeof sentType === 'string' ? { documentType: type ?? sentType.slice(0, 40) } : {}),
      ...(typeof sentCountry === 'string' ? { country: country ?? sentCountry.slice(0, 10) } : {}),
    };
    const refuse = (problem: ChoiceProblem) => ({ refused: { code: 'DOCUMENT_CHOICE_REFUSED', errors: { choice: problem }, values } });
    if (!type || !choices.types.includes(type)) return refuse('typeMissing');
    if (!country || !Object.hasOwn(choices.countries, country)) return refuse('countryMissing');
    if (!choices.countries[country]!.includes(type)) return refuse('typeNotOffered');
    const docKey = view.inputs['Doc Key'];
    return {
      complete: {
        result: {
          vars: { _documentType: type, _documentCountry: country },
          _documents: { [docKey]: { documentType: type, country, captures: [] } },
        },
        values: { docKey, documentType: type, country },
        dataKey: docKey,
      },
    };
  },
};
