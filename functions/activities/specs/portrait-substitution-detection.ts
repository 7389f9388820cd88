import { detectionSpec } from '../document-spec.js';

export const spec = detectionSpec({
  type: 'PORTRAIT_SUBSTITUTION_DETECTION',
  displayName: 'Portrait Substitution Detection',
  bean: 'portraitSubstitutionDocAuthDetectionV1',
  palette: 'PSD01',
  what: 'a portrait put in place of the document\'s own',
  check: 'portraitSubstitution',
  imageProfile: 'Uncropped',
  output: '_portraitSubstitutionDetected',
  failed: { name: 'Failed Portrait Substitution', aslError: 'PortraitSubstitutionDetected', code: 'failedPortraitSubstitution' },
  exceeded: { name: 'Exceeded Failed Portrait Substitution', aslError: 'PortraitSubstitutionAttemptsExceeded', code: 'exceededFailedPortraitSubstitution' },
  assessed: false,
  idlive: true,
});
