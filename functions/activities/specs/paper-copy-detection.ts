import { detectionSpec } from '../document-spec.js';

export const spec = detectionSpec({
  type: 'PAPER_COPY_DETECTION',
  displayName: 'Paper Copy Detection',
  bean: 'paperCopyDocAuthDetectionV1',
  palette: 'PCD01',
  what: 'a paper copy of the document (a print, not the document itself)',
  check: 'paperCopy',
  imageProfile: 'Uncropped',
  output: '_paperCopyDetected',
  failed: { name: 'Failed Paper Copy', aslError: 'PaperCopyDetected', code: 'failedPaperCopy' },
  exceeded: { name: 'Exceeded Failed Paper Copy', aslError: 'PaperCopyAttemptsExceeded', code: 'exceededFailedPaperCopy' },
  assessed: false,
  idlive: true,
});
