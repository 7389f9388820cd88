import { detectionSpec } from '../document-spec.js';

export const spec = detectionSpec({
  type: 'PHOTO_SUBSTITUTION_DETECTION',
  displayName: 'Photo Substitution Detection',
  bean: 'photoSubDetectionV1',
  palette: 'PSU02',
  what: 'a photo stuck over the document\'s portrait',
  check: 'photoSubstitution',
  imageProfile: 'Cropped',
  output: '_photoSubstitutionDetected',
  failed: { name: 'Failed Photo Substitution Detection', aslError: 'PhotoSubstitutionDetected', code: 'failedPhotoSubstitutionDetection' },
  exceeded: { name: 'Exceeded Failed Document Photo Sub Detection', aslError: 'PhotoSubstitutionAttemptsExceeded', code: 'exceededFailedDocumentPhotoSubDetection' },
  assessed: false,
  idlive: false,
});
