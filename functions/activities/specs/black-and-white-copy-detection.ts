import { detectionSpec } from '../document-spec.js';

export const spec = detectionSpec({
  type: 'BLACK_AND_WHITE_COPY_DETECTION',
  displayName: 'Black and White Copy Detection',
  bean: 'blackAndWhiteDetectionV1',
  palette: 'BWD01',
  what: 'a black-and-white copy of the document',
  check: 'blackAndWhiteCopy',
  imageProfile: 'Cropped',
  output: '_blackAndWhiteCopyDetected',
  failed: { name: 'Failed Document Black And White Detection', aslError: 'BlackAndWhiteCopyDetected', code: 'failedDocumentBlackAndWhiteDetection' },
  exceeded: { name: 'Exceeded Failed Document Bnw Copy Detection', aslError: 'BlackAndWhiteCopyAttemptsExceeded', code: 'exceededFailedDocumentBnwCopyDetection' },
  assessed: true,
  idlive: false,
});
