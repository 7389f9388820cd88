import { capturedIds, configOf, requirementsMet } from '../shared/additional-documents.js';
import { ADDITIONAL_CHOICE_FIELD, FINISHED_CHOICE, renderAdditionalSelection } from '../journey/screens/additional-document.js';
import { journeyUrl } from '../journey/screen-context.js';
import { own } from '../shared/own.js';
import { activityError, type Screens, type StepBegin, type StepView, type Submission } from './contract.js';
import { spec } from './specs/select-additional-document-type.js';

export const begin: StepBegin<typeof spec> = async ({ activityId, inputs }) => {
  configOf('Select Additional Document Type V2', activityId, inputs['Additional Documents'], (m) => activityError(spec, 'InvalidInput', m));
  return inputs;
};

function stateOf(view: StepView<typeof spec>) {
  const config = configOf('Select Additional Document Type V2', view.step.activityId, view.inputs['Additional Documents'], (m) => new Error(m));
  const captured = capturedIds(view.step.state, view.inputs['Add Doc Key']);
  return { config, captured, canFinish: requirementsMet(config, captured) };
}

const selectionPage = (view: StepView<typeof spec>) =>
  renderAdditionalSelection({
    lang: view.lang,
    action: journeyUrl(view.record, view.capability, view.lang, view.step.activityId),
    ...stateOf(view),
    ...(view.refusal ? { error: view.refusal.errors.choice } : {}),
    chrome: view.chrome,
  });

/** The family's one screen, `selection`. */
export const screens: Screens<typeof spec> = { component: 'selection', render: { selection: selectionPage } };

/**
 * The document chosen (one the configuration offers), kept as `selected`; or "finished", taken
 * only when the requirements are met. `_additionalCaptureFinished` says which at once, so a
 * gateway after this step can skip the capture (the decider sets it again). Anything else gets the page again, saying why.
 */
export const submission: Submission<typeof spec> = {
  part: 'form',
  async submit(view, { body = {} }) {
    const { config, captured, canFinish } = stateOf(view);
    const addDocKey = view.inputs['Add Doc Key'];
    const sent = own(body, ADDITIONAL_CHOICE_FIELD);
    const refuse = (problem: string) => ({ refused: { code: 'ADDITIONAL_DOCUMENT_CHOICE_REFUSED', errors: { choice: problem } } });
    if (sent === FINISHED_CHOICE) {
      if (!canFinish) return refuse('notYetFinished');
      return {
        complete: {
          result: { _additionalDocuments: { [addDocKey]: { finished: true } }, vars: { _additionalCaptureFinished: true } },
          values: { addDocKey, finished: true, captured: [...captured] },
          dataKey: addDocKey,
        },
      };
    }
    const chosen = config.documents.find((d) => d.id === sent);
    if (!chosen) return refuse('choiceMissing');
    return {
      complete: {
        result: { _additionalDocuments: { [addDocKey]: { selected: chosen.id, finished: false } }, vars: { _additionalCaptureFinished: false } },
        values: { addDocKey, selected: chosen.id },
        dataKey: addDocKey,
      },
    };
  },
};
