/**
 * The passport journey the document tests run (test/integration/document-journey.test.ts over
 * HTTP, test/e2e/document-journey.test.ts in Chromium), in the JSON format: a passport chosen and
 * photographed, its quality judged, its MRZ read into a confirmation form, judged for a
 * black-and-white copy and a screen replay, its portrait matched with a selfie. Each failure
 * routes to a decider of its own that ends FAIL; the family's decider ends the rest (PASS, or
 * REVIEW after a check NOT_ASSESSED).
 */
const field = (id: string, label: string, from: string) => ({
  type: 'textfield',
  id,
  label: { values: { en: label } },
  default: `\${_idDocs.doc1.fields.${from}}`,
  validate: { required: true, maxLength: 100 },
});

/** What the confirmation form is sent with (the specimen's person A, as read). */
export const CONFIRMED = { lastName: 'PEDERSEN', firstName: 'JESPER', documentNumber: 'L898902C3', dateOfBirth: '1974-08-12', dateOfExpiry: '2034-04-15' };

/** The four detections no engine here judges, each accepted as NOT_ASSESSED, in this order. */
export const NOT_ASSESSED_STEPS = [
  ['paperCopy', 'PAPER_COPY_DETECTION'],
  ['colorCopy', 'COLOR_COPY_DETECTION'],
  ['portraitSubstitution', 'PORTRAIT_SUBSTITUTION_DETECTION'],
  ['photoSubstitution', 'PHOTO_SUBSTITUTION_DETECTION'],
] as const;

/** `notAssessed`: the four detections of NOT_ASSESSED_STEPS run after the screen replay check. */
export function documentJourney(name: string, opts: { notAssessed: boolean }) {
  const unassessed = opts.notAssessed ? NOT_ASSESSED_STEPS : [];
  const afterScreen = unassessed[0]?.[0] ?? 'captureFace';
  return {
    name,
    version: 1,
    description: 'A passport read, confirmed, judged and matched with a selfie.',
    startActivityId: 'selectDocument',
    activities: {
      selectDocument: { type: 'SELECT_DOCUMENT_TYPE', inputs: { 'Doc Key': 'doc1', 'Document Types': ['PASSPORT', 'ID_CARD'], 'Default Country': 'gb' }, next: 'captureFront' },
      captureFront: { type: 'CAPTURE_DOCUMENT_IMAGE', inputs: { 'Doc Key': 'doc1', 'Document Side': 'FRONT', 'Document Aspect Ratio': 1.42 }, next: 'quality' },
      quality: { type: 'CHECK_DOCUMENT_QUALITY', inputs: { 'Document Key': 'doc1' }, errorEvents: { 'Failed Document Quality': 'qualityFailed' }, next: 'read' },
      read: {
        type: 'DOCUMENT_PROCESSOR',
        inputs: { 'Document Key': 'doc1' },
        errorEvents: { 'Failed Document Processing': 'readingFailed', 'Exceeded Failed Document Processor': 'readingFailed' },
        next: 'confirm',
      },
      confirm: {
        type: 'DATA_FORM',
        inputs: {
          'Form data Key': 'confirmed',
          Form: {
            title: { values: { en: 'Check your details' } },
            version: 1,
            components: [
              field('lastName', 'Last name', 'documentLastName'),
              field('firstName', 'First name', 'documentFirstName'),
              field('documentNumber', 'Document number', 'documentNumber'),
              field('dateOfBirth', 'Date of birth', 'documentDateOfBirth'),
              field('dateOfExpiry', 'Date of expiry', 'documentDateOfExpiry'),
            ],
          },
        },
        next: 'blackAndWhite',
      },
      blackAndWhite: {
        type: 'BLACK_AND_WHITE_COPY_DETECTION',
        inputs: { 'Document Key': 'doc1' },
        errorEvents: { 'Failed Document Black And White Detection': 'copyFailed', 'Exceeded Failed Document Bnw Copy Detection': 'copyFailed' },
        next: 'screenReplay',
      },
      screenReplay: {
        type: 'SCREEN_REPLAY_DETECTION',
        inputs: { 'Document Key': 'doc1' },
        errorEvents: { 'Failed Screen Replay': 'screenFailed', 'Exceeded Failed Screen Replay': 'screenFailed' },
        next: afterScreen,
      },
      ...Object.fromEntries(
        unassessed.map(([id, type], i) => [id, { type, inputs: { 'Document Key': 'doc1', 'Accept Not Assessed': true }, next: unassessed[i + 1]?.[0] ?? 'captureFace' }]),
      ),
      captureFace: { type: 'CAPTURE_FACE_IMAGE', inputs: { 'Face Key': 'face1' }, next: 'match' },
      match: {
        type: 'DOCUMENT_FACE_MATCHER',
        inputs: { 'Document Key': 'doc1', 'Face Key': 'face1' },
        errorEvents: { 'Failed Document Face Matching': 'matchFailed', 'Exceeded Failed Document Face Matching': 'matchFailed' },
        next: 'decide',
      },
      decide: { type: 'SIMPLE_DECIDER', inputs: { 'Decision on Any Failure': 'REVIEW' }, next: 'End_done' },
      qualityFailed: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'FAIL' } },
      readingFailed: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'FAIL' } },
      copyFailed: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'FAIL' } },
      screenFailed: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'FAIL' } },
      matchFailed: { type: 'SIMPLE_DECIDER', inputs: { Outcome: 'FAIL' } },
    },
    ends: { End_done: {} },
  };
}
